package org.stackfold.record;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * One key of the count map when the {@link WalkerProgram} walks user stacks, 48 bytes:
 * {@code tgid u32 @0, tid u32 @4 (0 unless per thread), kernel stack id s32 @8, generation u32 @12,
 * user stack hash u64 @16 (0: no user stack), end status u32 @24, execs of the process so far u32 @28 ({@link ExecProgram}), comm char[16] @32}.
 * The user stack is stored under its hash in the generation's stack map, once per generation.
 */
public record WalkKey(int pid, int tid, int kernelStack, int generation, long userHash, int status, int exec,
                      String comm) {
    public static final int SIZE = 48;
    static final int PID = 0, TID = 4, KERNEL_STACK = 8, GENERATION = 12, USER_HASH = 16, STATUS = 24, EXEC = 28;
    static final int COMM = 32, COMM_LENGTH = 16;

    public static WalkKey read(MemorySegment key) {
        byte[] comm = new byte[COMM_LENGTH];
        MemorySegment.copy(key, ValueLayout.JAVA_BYTE, COMM, comm, 0, COMM_LENGTH);
        int len = 0;
        while (len < COMM_LENGTH && comm[len] != 0) {
            len++;
        }
        return new WalkKey(key.get(ValueLayout.JAVA_INT, PID), key.get(ValueLayout.JAVA_INT, TID),
                key.get(ValueLayout.JAVA_INT, KERNEL_STACK), key.get(ValueLayout.JAVA_INT, GENERATION),
                key.get(ValueLayout.JAVA_LONG, USER_HASH), key.get(ValueLayout.JAVA_INT, STATUS), key.get(ValueLayout.JAVA_INT, EXEC),
                new String(comm, 0, len, StandardCharsets.UTF_8));
    }
}
