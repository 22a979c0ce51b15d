package org.stackfold.record;

import java.util.List;

/**
 * What to record and how to fold it.
 *
 * @param frequency      samples a second on each CPU
 * @param seconds        how long to record; 0 means until stopped (or until the profiled processes exit)
 * @param pids           processes to record (empty: every process, unless a command is given)
 * @param command        a command to start and record with all its descendants (empty: none)
 * @param kernelStacks   take kernel stacks (off: user only)
 * @param userStacks     take user stacks (off: kernel only)
 * @param includeIdle    keep samples of the idle tasks (pid 0, {@code swapper/N})
 * @param perThread      one root per thread ({@code comm-PID/TID}) instead of one per thread name
 * @param delimited      a {@code -} frame between user and kernel frames, as BCC's {@code profile -d}
 * @param annotate       a {@code _[k]} suffix on kernel frames, as BCC's {@code profile -a}
 * @param stackStorage   entries of each of the two stack maps (0: 16384)
 * @param drainMillis    how often the count map is read and emptied (0: from rate and CPUs)
 * @param unwind         how user stacks are walked: through .eh_frame tables in the kernel (DWARF), frame
 *                       pointers (FP), or AUTO (DWARF where the kernel has what the walker needs, 5.15+)
 */
public record RecordOptions(int frequency, double seconds, List<Integer> pids, List<String> command,
                            boolean kernelStacks, boolean userStacks, boolean includeIdle, boolean perThread,
                            boolean delimited, boolean annotate, int stackStorage, int drainMillis, Unwind unwind) {
    public static final int DEFAULT_FREQUENCY = 99;

    /** How user stacks are walked. */
    public enum Unwind { AUTO, FP, DWARF }

    /** With the default unwinding (AUTO). */
    public RecordOptions(int frequency, double seconds, List<Integer> pids, List<String> command,
                         boolean kernelStacks, boolean userStacks, boolean includeIdle, boolean perThread,
                         boolean delimited, boolean annotate, int stackStorage, int drainMillis) {
        this(frequency, seconds, pids, command, kernelStacks, userStacks, includeIdle, perThread, delimited, annotate,
                stackStorage, drainMillis, Unwind.AUTO);
    }

    public RecordOptions {
        pids = List.copyOf(pids);
        if (unwind == null) {
            unwind = Unwind.AUTO;
        }
        command = List.copyOf(command);
        if (frequency <= 0) {
            throw new IllegalArgumentException("frequency must be positive");
        }
        if (!kernelStacks && !userStacks) {
            throw new IllegalArgumentException("user-only and kernel-only exclude each other");
        }
        if (!pids.isEmpty() && !command.isEmpty()) {
            throw new IllegalArgumentException("give pids or a command, not both");
        }
    }

    /** Whole system, both stacks, 99 Hz, until stopped. */
    public static RecordOptions defaults() {
        return new RecordOptions(DEFAULT_FREQUENCY, 0, List.of(), List.of(), true, true, false, false, false, false,
                0, 0);
    }

    public RecordOptions withSeconds(double s) {
        return new RecordOptions(frequency, s, pids, command, kernelStacks, userStacks, includeIdle, perThread,
                delimited, annotate, stackStorage, drainMillis, unwind);
    }

    public RecordOptions withPids(List<Integer> p) {
        return new RecordOptions(frequency, seconds, p, command, kernelStacks, userStacks, includeIdle, perThread,
                delimited, annotate, stackStorage, drainMillis, unwind);
    }

    public RecordOptions withCommand(List<String> c) {
        return new RecordOptions(frequency, seconds, pids, c, kernelStacks, userStacks, includeIdle, perThread,
                delimited, annotate, stackStorage, drainMillis, unwind);
    }

    public RecordOptions withUnwind(Unwind u) {
        return new RecordOptions(frequency, seconds, pids, command, kernelStacks, userStacks, includeIdle, perThread,
                delimited, annotate, stackStorage, drainMillis, u);
    }
}
