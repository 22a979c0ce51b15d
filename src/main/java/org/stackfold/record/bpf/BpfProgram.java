package org.stackfold.record.bpf;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/** A loaded BPF program. A failed load reports the verifier's log, which says which instruction it refused. */
public final class BpfProgram implements AutoCloseable {
    private static final int LOG_SIZE = 1 << 20;
    /** struct bpf_prog_info: its size and where the run-time statistics sit (Linux 5.1 and later). */
    private static final int INFO_SIZE = 232;
    private static final int INFO_RUN_TIME_NS = 192;
    private static final int INFO_RUN_CNT = 200;
    private static final int INFO_VERIFIED_INSNS = 216;

    private final int fd;

    private BpfProgram(int fd) {
        this.fd = fd;
    }

    /**
     * BPF_PROG_LOAD: {@code prog_type@0 insn_cnt@4 insns@8 license@16 log_level@24 log_size@28 log_buf@32
     * prog_name[16]@48}. Loads without a log first (the verifier runs faster), and again with one to
     * explain a refusal.
     */
    public static BpfProgram load(String name, int type, long[] insns) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment code = a.allocate(ValueLayout.JAVA_LONG, insns.length);
            MemorySegment.copy(insns, 0, code, ValueLayout.JAVA_LONG, 0, insns.length);
            MemorySegment license = a.allocateFrom("GPL");
            MemorySegment attr = a.allocate(Bpf.ATTR_SIZE, 8);
            attr.set(ValueLayout.JAVA_INT, 0, type);
            attr.set(ValueLayout.JAVA_INT, 4, insns.length);
            attr.set(ValueLayout.JAVA_LONG, 8, code.address());
            attr.set(ValueLayout.JAVA_LONG, 16, license.address());
            byte[] n = name.getBytes(StandardCharsets.US_ASCII);
            MemorySegment.copy(n, 0, attr, ValueLayout.JAVA_BYTE, 48, Math.min(n.length, 15));
            String what = "loading BPF program " + name + " (" + insns.length + " instructions)";
            try {
                return new BpfProgram((int) Syscalls.bpf(Bpf.PROG_LOAD, attr, what));
            } catch (ErrnoException first) {
                if (first.errno() == ErrnoException.EPERM) {
                    throw first;
                }
                MemorySegment log = a.allocate(LOG_SIZE);
                attr.set(ValueLayout.JAVA_INT, 24, 1);
                attr.set(ValueLayout.JAVA_INT, 28, LOG_SIZE);
                attr.set(ValueLayout.JAVA_LONG, 32, log.address());
                try {
                    return new BpfProgram((int) Syscalls.bpf(Bpf.PROG_LOAD, attr, what));
                } catch (ErrnoException e) {
                    String text = log.getString(0).strip();
                    throw new ErrnoException(what, e.errno(), text.isEmpty() ? "" : "; verifier log:\n" + text);
                }
            }
        }
    }

    public int fd() {
        return fd;
    }

    /** The kernel's run-time statistics of this program (counted only while BPF stats are enabled). */
    public record RunStats(long runTimeNanos, long runCount) {
        public double nanosPerRun() {
            return runCount == 0 ? 0 : (double) runTimeNanos / runCount;
        }
    }

    /**
     * BPF_RAW_TRACEPOINT_OPEN {@code name@0 prog_fd@8}: runs this raw-tracepoint program at every hit of
     * the kernel tracepoint {@code name} (no tracefs needed); closing the descriptor detaches it.
     */
    public int attachRawTracepoint(String name) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment n = a.allocateFrom(name);
            MemorySegment attr = a.allocate(Bpf.ATTR_SIZE, 8);
            attr.set(ValueLayout.JAVA_LONG, 0, n.address());
            attr.set(ValueLayout.JAVA_INT, 8, fd);
            return (int) Syscalls.bpf(Bpf.RAW_TRACEPOINT_OPEN, attr, "attaching to the tracepoint " + name);
        }
    }

    /** Instructions the verifier processed to accept this program ({@code verified_insns}, Linux 5.16). */
    public long verifiedInstructions() throws ErrnoException {
        return info().get(ValueLayout.JAVA_INT, INFO_VERIFIED_INSNS) & 0xffffffffL;
    }

    private MemorySegment info() throws ErrnoException {
        MemorySegment info = Arena.ofAuto().allocate(INFO_SIZE, 8);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = a.allocate(Bpf.ATTR_SIZE, 8);
            attr.set(ValueLayout.JAVA_INT, 0, fd);
            attr.set(ValueLayout.JAVA_INT, 4, INFO_SIZE);
            attr.set(ValueLayout.JAVA_LONG, 8, info.address());
            Syscalls.bpf(Bpf.OBJ_GET_INFO_BY_FD, attr, "reading BPF program information");
        }
        return info;
    }

    /** BPF_OBJ_GET_INFO_BY_FD: {@code bpf_fd@0 info_len@4 info@8}. */
    public RunStats runStats() throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment info = a.allocate(INFO_SIZE, 8);
            MemorySegment attr = a.allocate(Bpf.ATTR_SIZE, 8);
            attr.set(ValueLayout.JAVA_INT, 0, fd);
            attr.set(ValueLayout.JAVA_INT, 4, INFO_SIZE);
            attr.set(ValueLayout.JAVA_LONG, 8, info.address());
            Syscalls.bpf(Bpf.OBJ_GET_INFO_BY_FD, attr, "reading BPF program statistics");
            return new RunStats(info.get(ValueLayout.JAVA_LONG, INFO_RUN_TIME_NS), info.get(ValueLayout.JAVA_LONG, INFO_RUN_CNT));
        }
    }

    /**
     * BPF_ENABLE_STATS(BPF_STATS_RUN_TIME): the kernel times every BPF program while the returned
     * descriptor is open, as {@code sysctl kernel.bpf_stats_enabled=1} does, without changing the sysctl.
     */
    public static int enableRunTimeStats() throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = a.allocate(Bpf.ATTR_SIZE, 8);
            attr.set(ValueLayout.JAVA_INT, 0, Bpf.STATS_RUN_TIME);
            return (int) Syscalls.bpf(Bpf.ENABLE_STATS, attr, "enabling BPF run-time statistics");
        }
    }

    @Override
    public void close() {
        Syscalls.close(fd);
    }
}
