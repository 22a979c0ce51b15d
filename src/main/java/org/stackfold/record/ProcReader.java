package org.stackfold.record;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import org.stackfold.record.bpf.Syscalls;

/**
 * Reads whole {@code /proc} files (a process's maps, its stat) with three system calls and one
 * buffer kept from call to call: {@code openat}, {@code read} until the end, {@code close}. The unwind
 * worker reads the maps of every new process (~30 a second on a build server), and
 * {@code Files.readString} spent more of its time in the JDK's channels, buffers and cleaners than
 * the kernel spent making the text. Text is decoded as UTF-8 (a malformed name becomes U+FFFD, never
 * an exception). One thread at a time; not for files that report their size (use {@code Files}).
 */
final class ProcReader {
    private static final long SYS_READ = 0, SYS_CLOSE = 3, SYS_OPENAT = 257;
    private static final long AT_FDCWD = -100, O_RDONLY_CLOEXEC = 0x80000;
    private static final int ENOENT = 2, ESRCH = 3, EINTR = 4;

    private final MemorySegment path = Arena.ofAuto().allocate(256);
    private MemorySegment buffer = Arena.ofAuto().allocate(64 << 10);
    private byte[] bytes = new byte[64 << 10];
    private int errno;

    /** The whole text of {@code file}, or null when it cannot be opened or read ({@link #errno} says why). */
    String read(String file) {
        errno = 0;
        path.setString(0, file, StandardCharsets.UTF_8);
        long fd = Syscalls.callOrErrno(SYS_OPENAT, AT_FDCWD, path.address(), O_RDONLY_CLOEXEC, 0, 0);
        if (fd < 0) {
            errno = (int) -fd;
            return null;
        }
        try {
            long n = 0;
            while (true) {
                if (n == buffer.byteSize()) {
                    MemorySegment bigger = Arena.ofAuto().allocate(buffer.byteSize() * 2);
                    MemorySegment.copy(buffer, 0, bigger, 0, n);
                    buffer = bigger;
                }
                long r = Syscalls.callOrErrno(SYS_READ, fd, buffer.address() + n, buffer.byteSize() - n, 0, 0);
                if (r == -EINTR) {
                    continue;
                } else if (r < 0) {
                    errno = (int) -r;
                    return null;
                } else if (r == 0) {
                    break;
                }
                n += r;
            }
            if (bytes.length < n) {
                bytes = new byte[(int) buffer.byteSize()];
            }
            MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, 0, bytes, 0, (int) n);
            return new String(bytes, 0, (int) n, StandardCharsets.UTF_8);
        } finally {
            Syscalls.callOrErrno(SYS_CLOSE, fd, 0, 0, 0, 0);
        }
    }

    /** The errno of the last {@link #read} that returned null (0 after one that did not). */
    int errno() {
        return errno;
    }

    /** Whether the last failure meant "no such file or process" (a process gone). */
    boolean gone() {
        return errno == ENOENT || errno == ESRCH;
    }
}
