package org.stackfold.record.bpf;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The raw Linux x86-64 system calls the recorder needs, through libc's variadic {@code syscall(2)}
 * with errno captured. No libbpf: every structure is laid out by hand (offsets in docs/record.md).
 */
public final class Syscalls {
    public static final long SYS_IOCTL = 16;
    public static final long SYS_KILL = 62;
    public static final long SYS_PERF_EVENT_OPEN = 298;
    public static final long SYS_BPF = 321;
    private static final long SYS_CLOSE = 3;
    private static final long SYS_MMAP = 9;
    private static final long SYS_MUNMAP = 11;
    public static final long PAGE = 4096;
    private static final long PROT_READ_WRITE = 3;
    private static final long MAP_SHARED = 1;

    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(StructLayout.PathElement.groupElement("errno"));
    private static final MethodHandle SYSCALL;
    private static final MethodHandle SYSCALL6;
    /** errno lands here; one per thread, reused (a drain makes thousands of calls). */
    private static final ThreadLocal<MemorySegment> STATE = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURE));

    static {
        Linker linker = Linker.nativeLinker();
        MemorySegment fn = linker.defaultLookup().find("syscall")
                .orElseThrow(() -> new UnsatisfiedLinkError("libc has no syscall()"));
        ValueLayout.OfLong l = ValueLayout.JAVA_LONG;
        SYSCALL = linker.downcallHandle(fn, FunctionDescriptor.of(l, l, l, l, l, l, l),
                Linker.Option.firstVariadicArg(1), Linker.Option.captureCallState("errno"));
        SYSCALL6 = linker.downcallHandle(fn, FunctionDescriptor.of(l, l, l, l, l, l, l, l),
                Linker.Option.firstVariadicArg(1), Linker.Option.captureCallState("errno"));
    }

    /** mmap(NULL, length, PROT_READ|PROT_WRITE, MAP_SHARED, fd, 0); the address. */
    public static long mmapShared(int fd, long length, String what) throws ErrnoException {
        return mmapShared(fd, length, true, 0, what);
    }

    /** mmap(NULL, length, PROT_READ (| PROT_WRITE), MAP_SHARED, fd, offset); the address. */
    public static long mmapShared(int fd, long length, boolean writable, long offset, String what)
            throws ErrnoException {
        try {
            MemorySegment state = STATE.get();
            long r = (long) SYSCALL6.invokeExact(state, SYS_MMAP, 0L, length, writable ? PROT_READ_WRITE : 1L,
                    MAP_SHARED, (long) fd, offset);
            if (r < 0 && r > -4096) {
                throw new ErrnoException(what, (int) ERRNO.get(state, 0L));
            }
            if (r == -1) {
                throw new ErrnoException(what, (int) ERRNO.get(state, 0L));
            }
            return r;
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("mmap failed to link", t);
        }
    }

    public static void munmap(long address, long length) throws ErrnoException {
        call("munmap", SYS_MUNMAP, address, length, 0, 0, 0);
    }

    private static final long SYS_POLL = 7;
    private static final long SYS_WRITE = 1;
    private static final long SYS_EVENTFD2 = 290;
    private static final int EINTR = 4;

    /**
     * poll(2) for POLLIN on {@code fds} ({@code timeoutMillis} &lt; 0: without a limit); which of them are
     * readable, as bits (bit i: fds[i]); 0 on a timeout or an interrupted wait.
     */
    public static int pollIn(int[] fds, int timeoutMillis) throws ErrnoException {
        MemorySegment p = POLL.get();
        for (int i = 0; i < fds.length; i++) {
            p.set(ValueLayout.JAVA_INT, i * 8L, fds[i]);
            p.set(ValueLayout.JAVA_INT, i * 8L + 4, 1); // events = POLLIN, revents = 0
        }
        try {
            call("poll", SYS_POLL, p.address(), fds.length, timeoutMillis, 0, 0);
        } catch (ErrnoException e) {
            if (e.errno() == EINTR) {
                return 0;
            }
            throw e;
        }
        int ready = 0;
        for (int i = 0; i < fds.length; i++) {
            if (p.get(ValueLayout.JAVA_SHORT, i * 8L + 6) != 0) {
                ready |= 1 << i;
            }
        }
        return ready;
    }

    /** Up to 8 descriptors a thread. */
    private static final ThreadLocal<MemorySegment> POLL = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(64, 8));

    /** A new eventfd (non-blocking, close-on-exec). */
    public static int eventFd() throws ErrnoException {
        return (int) call("eventfd2", SYS_EVENTFD2, 0, 0x800 | 0x80000, 0, 0, 0);
    }

    /** Adds 1 to an eventfd (wakes whoever polls it). */
    public static void signal(int eventFd) throws ErrnoException {
        MemorySegment one = POLL.get().asSlice(56, 8);
        one.set(ValueLayout.JAVA_LONG, 0, 1);
        call("writing an eventfd", SYS_WRITE, eventFd, one.address(), 8, 0, 0);
    }

    private Syscalls() {
    }

    /** Whether this platform can run the recorder at all (Linux on x86-64: the syscall numbers above). */
    public static boolean supportedPlatform() {
        String os = System.getProperty("os.name", "");
        String arch = System.getProperty("os.arch", "");
        return os.equals("Linux") && (arch.equals("amd64") || arch.equals("x86_64"));
    }

    /** Calls {@code syscall(nr, a...)}; returns its non-negative result or throws with the errno. */
    public static long call(String what, long nr, long a1, long a2, long a3, long a4, long a5) throws ErrnoException {
        try {
            MemorySegment state = STATE.get();
            long r = (long) SYSCALL.invokeExact(state, nr, a1, a2, a3, a4, a5);
            if (r < 0) {
                throw new ErrnoException(what, (int) ERRNO.get(state, 0L));
            }
            return r;
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("syscall " + nr + " failed to link", t);
        }
    }

    /**
     * A system call that returns {@code -errno} on failure instead of throwing: for callers that expect
     * one error as an answer (ENOENT at the end of a map), so that no exception and no message is made for it.
     */
    public static long callOrErrno(long nr, long a1, long a2, long a3, long a4, long a5) {
        try {
            MemorySegment state = STATE.get();
            long r = (long) SYSCALL.invokeExact(state, nr, a1, a2, a3, a4, a5);
            return r < 0 ? -(int) ERRNO.get(state, 0L) : r;
        } catch (Throwable t) {
            throw new IllegalStateException("syscall " + nr + " failed to link", t);
        }
    }

    public static long bpf(int cmd, MemorySegment attr, String what) throws ErrnoException {
        return call(what, SYS_BPF, cmd, attr.address(), attr.byteSize(), 0, 0);
    }

    public static void ioctl(int fd, long request, long arg, String what) throws ErrnoException {
        call(what, SYS_IOCTL, fd, request, arg, 0, 0);
    }

    public static void kill(int pid, int signal) throws ErrnoException {
        call("kill(" + pid + ", " + signal + ")", SYS_KILL, pid, signal, 0, 0, 0);
    }

    /** Closes a descriptor, ignoring errors: only ever called on descriptors this process opened. */
    public static void close(int fd) {
        if (fd >= 0) {
            try {
                call("close", SYS_CLOSE, fd, 0, 0, 0, 0);
            } catch (ErrnoException ignored) {
                // Nothing useful to do about a failed close of a BPF or perf descriptor.
            }
        }
    }
}
