package org.stackfold.record.bpf;

import java.io.IOException;

/** A failed system call: what was being done and the errno the kernel returned. */
public class ErrnoException extends IOException {
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int ESRCH = 3;
    public static final int E2BIG = 7;
    public static final int EACCES = 13;
    public static final int EFAULT = 14;
    public static final int EEXIST = 17;
    public static final int EINVAL = 22;
    public static final int ENOSPC = 28;
    public static final int ENOSYS = 38;

    private final int errno;

    public ErrnoException(String what, int errno) {
        this(what, errno, "");
    }

    public ErrnoException(String what, int errno, String detail) {
        super(what + ": " + name(errno) + detail);
        this.errno = errno;
    }

    /** The same failure, kept as it was (its message and errno), for a subclass that adds to it. */
    protected ErrnoException(ErrnoException e) {
        super(e.getMessage(), e);
        this.errno = e.errno;
    }

    public int errno() {
        return errno;
    }

    public static String name(int errno) {
        return switch (errno) {
            case EPERM -> "EPERM (operation not permitted)";
            case ENOENT -> "ENOENT (no such entry)";
            case ESRCH -> "ESRCH (no such process)";
            case E2BIG -> "E2BIG (too big)";
            case EACCES -> "EACCES (permission denied)";
            case EFAULT -> "EFAULT (bad address)";
            case EEXIST -> "EEXIST (exists)";
            case EINVAL -> "EINVAL (invalid argument)";
            case ENOSPC -> "ENOSPC (no space)";
            case ENOSYS -> "ENOSYS (not implemented)";
            default -> "errno " + errno;
        };
    }
}
