package org.stackfold.record;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * One key of the in-kernel count map, 40 bytes as the BPF program writes it on its stack:
 * {@code tgid u32 @0, tid u32 @4 (0 unless per thread), kernel stack id s32 @8, user stack id s32 @12,
 * comm char[16] @16, generation u32 @32 (which of the two stack maps holds the stacks), zero u32 @36}.
 * Stack ids below zero are the negated errno of {@code bpf_get_stackid}. Keys of the walker
 * ({@link WalkKey}) become SampleKeys at the drain, with their end status ({@link WalkerProgram}). Once drained, the recorder
 * replaces the kernel's stack ids by its own (see {@link Drained}) and the generation by 0.
 */
public record SampleKey(int pid, int tid, int kernelStack, int userStack, String comm, int generation, int status,
                        int exec) {
    /** A key of the frame-pointer program, which has no end status and does not count execs. */
    public SampleKey(int pid, int tid, int kernelStack, int userStack, String comm, int generation) {
        this(pid, tid, kernelStack, userStack, comm, generation, NO_STATUS, 0);
    }

    /** The status of keys from the frame-pointer program. */
    public static final int NO_STATUS = -1;

    public static final int SIZE = 40;
    static final int PID = 0, TID = 4, KERNEL_STACK = 8, USER_STACK = 12, COMM = 16, COMM_LENGTH = 16;
    static final int GENERATION = 32, PAD = 36;

    public static SampleKey read(MemorySegment key) {
        byte[] comm = new byte[COMM_LENGTH];
        MemorySegment.copy(key, ValueLayout.JAVA_BYTE, COMM, comm, 0, COMM_LENGTH);
        int len = 0;
        while (len < COMM_LENGTH && comm[len] != 0) {
            len++;
        }
        return new SampleKey(key.get(ValueLayout.JAVA_INT, PID), key.get(ValueLayout.JAVA_INT, TID),
                key.get(ValueLayout.JAVA_INT, KERNEL_STACK), key.get(ValueLayout.JAVA_INT, USER_STACK),
                new String(comm, 0, len, StandardCharsets.UTF_8), key.get(ValueLayout.JAVA_INT, GENERATION));
    }

    /** This key with the recorder's own stack ids. */
    public SampleKey withStacks(int kernel, int user) {
        return new SampleKey(pid, tid, kernel, user, comm, 0, status, exec);
    }
}
