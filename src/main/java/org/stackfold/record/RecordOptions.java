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
 */
public record RecordOptions(int frequency, double seconds, List<Integer> pids, List<String> command,
                            boolean kernelStacks, boolean userStacks, boolean includeIdle, boolean perThread,
                            boolean delimited, boolean annotate, int stackStorage, int drainMillis) {
    public static final int DEFAULT_FREQUENCY = 99;

    public RecordOptions {
        pids = List.copyOf(pids);
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
                delimited, annotate, stackStorage, drainMillis);
    }

    public RecordOptions withPids(List<Integer> p) {
        return new RecordOptions(frequency, seconds, p, command, kernelStacks, userStacks, includeIdle, perThread,
                delimited, annotate, stackStorage, drainMillis);
    }

    public RecordOptions withCommand(List<String> c) {
        return new RecordOptions(frequency, seconds, pids, c, kernelStacks, userStacks, includeIdle, perThread,
                delimited, annotate, stackStorage, drainMillis);
    }
}
