package org.stackfold.record.bpf;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A software CPU-clock perf event that runs a BPF program at every sample. Opened disabled; the
 * program is attached and then the event enabled.
 */
public final class PerfEvent implements AutoCloseable {
    private static final int PERF_TYPE_SOFTWARE = 1;
    private static final int PERF_COUNT_SW_CPU_CLOCK = 0;
    private static final int ATTR_SIZE = 128; // PERF_ATTR_SIZE_VER7
    private static final long FLAG_DISABLED = 1L;
    private static final long FLAG_INHERIT = 1L << 1;
    private static final long FLAG_FREQ = 1L << 10;
    private static final long PERF_FLAG_FD_CLOEXEC = 8;
    private static final long IOC_ENABLE = 0x2400;
    private static final long IOC_DISABLE = 0x2401;
    private static final long IOC_SET_BPF = 0x40042408;

    private final int fd;

    private PerfEvent(int fd) {
        this.fd = fd;
    }

    /**
     * perf_event_open of {@code struct perf_event_attr}: {@code type@0 size@4 config@8 sample_freq@16
     * flags@40} (disabled bit 0, inherit bit 1, freq bit 10). {@code pid} -1 samples every task on
     * {@code cpu}; a pid with {@code inherit} samples that task and every task it creates later.
     */
    public static PerfEvent cpuClock(int pid, int cpu, int frequency, boolean inherit) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = a.allocate(ATTR_SIZE, 8);
            attr.set(ValueLayout.JAVA_INT, 0, PERF_TYPE_SOFTWARE);
            attr.set(ValueLayout.JAVA_INT, 4, ATTR_SIZE);
            attr.set(ValueLayout.JAVA_LONG, 8, PERF_COUNT_SW_CPU_CLOCK);
            attr.set(ValueLayout.JAVA_LONG, 16, frequency);
            attr.set(ValueLayout.JAVA_LONG, 40, FLAG_DISABLED | FLAG_FREQ | (inherit ? FLAG_INHERIT : 0));
            String what = "perf_event_open(cpu-clock, " + (pid < 0 ? "all tasks" : "pid " + pid) + ", cpu " + cpu
                    + ", " + frequency + " Hz)";
            return new PerfEvent((int) Syscalls.call(what, Syscalls.SYS_PERF_EVENT_OPEN, attr.address(), pid, cpu, -1,
                    PERF_FLAG_FD_CLOEXEC));
        }
    }

    public void attach(BpfProgram program) throws ErrnoException {
        Syscalls.ioctl(fd, IOC_SET_BPF, program.fd(), "attaching the BPF program to a perf event");
    }

    public void enable() throws ErrnoException {
        Syscalls.ioctl(fd, IOC_ENABLE, 0, "enabling a perf event");
    }

    public void disable() throws ErrnoException {
        Syscalls.ioctl(fd, IOC_DISABLE, 0, "disabling a perf event");
    }

    @Override
    public void close() {
        Syscalls.close(fd);
    }
}
