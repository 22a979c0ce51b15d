package org.stackfold.record;

import static org.stackfold.record.bpf.BpfAssembler.R0;
import static org.stackfold.record.bpf.BpfAssembler.R1;
import static org.stackfold.record.bpf.BpfAssembler.R10;
import static org.stackfold.record.bpf.BpfAssembler.R2;
import static org.stackfold.record.bpf.BpfAssembler.R3;
import static org.stackfold.record.bpf.BpfAssembler.R4;
import static org.stackfold.record.bpf.BpfAssembler.R6;
import static org.stackfold.record.bpf.BpfAssembler.R7;
import static org.stackfold.record.bpf.BpfAssembler.R8;
import static org.stackfold.record.bpf.BpfAssembler.R9;

import org.stackfold.record.bpf.Bpf;
import org.stackfold.record.bpf.BpfAssembler;
import org.stackfold.record.bpf.ErrnoException;

/**
 * The perf-event program, BCC {@code profile}'s in spirit: at each sample, skip idle (pid 0) and
 * processes outside the pid filter, take the kernel and user stack ids, and count the
 * {@link SampleKey} in a hash map. Counts that cannot be stored (the map is full) are counted in
 * {@link #STAT_LOST_FULL} of the stats array, so nothing is lost silently.
 *
 * <p>Stacks go to one of two stack maps, the one slot {@link #STAT_GENERATION} of the stats array
 * names, and the key records which: the recorder switches maps before each drain and empties the
 * other one afterwards, so a stack map only ever holds the stacks of one drain interval and its
 * hash collisions (which drop stacks) stay rare however long the recording.
 *
 * <p>Stack layout below the frame pointer: the key at -40..-1, the count's initial value at -48,
 * scratch u32 keys (pid filter, stats index) at -52.
 */
public final class SamplingProgram {
    /** Stats array slot: samples lost because the count map was full. */
    public static final int STAT_LOST_FULL = 0;
    /** Stats array slot: which stack map (0 or 1) samples use now. */
    public static final int STAT_GENERATION = 1;
    public static final int STATS = 2;

    private static final int KEY = -40;
    private static final int ONE = -48;
    private static final int SCRATCH = -52;

    /** What the program records; map descriptors are baked into its ld_imm64 instructions. */
    public record Spec(int countsFd, int stacks0Fd, int stacks1Fd, int statsFd, int pidFilterFd, boolean includeIdle,
                       boolean perThread, boolean kernelStacks, boolean userStacks) {
    }

    private SamplingProgram() {
    }

    public static long[] assemble(Spec s) {
        BpfAssembler a = new BpfAssembler();
        BpfAssembler.Label out = a.label("out");
        BpfAssembler.Label insert = a.label("insert");
        BpfAssembler.Label lost = a.label("lost");
        BpfAssembler.Label second = a.label("second");
        BpfAssembler.Label stacksTaken = a.label("stacksTaken");

        a.mov(R6, R1); // the perf-event context, needed by get_stackid after other calls clobber R1
        a.call(Bpf.FUNC_GET_CURRENT_PID_TGID);
        a.mov(R7, R0);
        a.mov(R8, R0).rshImm(R8, 32); // tgid: the process id
        if (!s.includeIdle()) {
            a.jeqImm(R8, 0, out);
        }
        if (s.pidFilterFd() >= 0) {
            a.stxW(R10, SCRATCH, R8);
            a.ldMapFd(R1, s.pidFilterFd()).mov(R2, R10).addImm(R2, SCRATCH);
            a.call(Bpf.FUNC_MAP_LOOKUP_ELEM);
            a.jeqImm(R0, 0, out);
        }
        a.stxW(R10, KEY + SampleKey.PID, R8);
        if (s.perThread()) {
            a.stxW(R10, KEY + SampleKey.TID, R7); // the low half of pid_tgid: the thread id
        } else {
            a.stW(R10, KEY + SampleKey.TID, 0);
        }
        a.stW(R10, SCRATCH, STAT_GENERATION);
        a.ldMapFd(R1, s.statsFd()).mov(R2, R10).addImm(R2, SCRATCH);
        a.call(Bpf.FUNC_MAP_LOOKUP_ELEM);
        a.jeqImm(R0, 0, out);
        a.ldxW(R9, R0, 0);
        a.stxW(R10, KEY + SampleKey.GENERATION, R9);
        a.stW(R10, KEY + SampleKey.PAD, 0);
        a.jneImm(R9, 0, second);
        stackIds(a, s, s.stacks0Fd());
        a.ja(stacksTaken);
        a.bind(second);
        stackIds(a, s, s.stacks1Fd());
        a.bind(stacksTaken);
        a.mov(R1, R10).addImm(R1, KEY + SampleKey.COMM).movImm(R2, SampleKey.COMM_LENGTH);
        a.call(Bpf.FUNC_GET_CURRENT_COMM);

        lookupAndAdd(a, s.countsFd(), insert, out);
        a.bind(insert);
        a.stDW(R10, ONE, 1);
        a.ldMapFd(R1, s.countsFd()).mov(R2, R10).addImm(R2, KEY).mov(R3, R10).addImm(R3, ONE).movImm(R4, Bpf.NOEXIST);
        a.call(Bpf.FUNC_MAP_UPDATE_ELEM);
        a.jeqImm(R0, 0, out);
        // Another CPU inserted the same key between our lookup and insert: add to its count instead.
        a.jneImm(R0, -ErrnoException.EEXIST, lost);
        lookupAndAdd(a, s.countsFd(), lost, out);

        a.bind(lost);
        a.stW(R10, SCRATCH, STAT_LOST_FULL);
        a.ldMapFd(R1, s.statsFd()).mov(R2, R10).addImm(R2, SCRATCH);
        a.call(Bpf.FUNC_MAP_LOOKUP_ELEM);
        a.jeqImm(R0, 0, out);
        a.movImm(R1, 1).atomicAddDW(R0, 0, R1);

        a.bind(out);
        a.movImm(R0, 0).exit();
        return a.build();
    }

    private static void stackIds(BpfAssembler a, Spec s, int stacksFd) {
        stackId(a, s.kernelStacks(), stacksFd, 0, KEY + SampleKey.KERNEL_STACK);
        stackId(a, s.userStacks(), stacksFd, Bpf.F_USER_STACK, KEY + SampleKey.USER_STACK);
    }

    /** key[slot] = bpf_get_stackid(ctx, stacks, flags), or -EFAULT ("no stack") when not wanted. */
    private static void stackId(BpfAssembler a, boolean wanted, int stacksFd, int flags, int slot) {
        if (!wanted) {
            a.stW(R10, slot, -ErrnoException.EFAULT);
            return;
        }
        a.mov(R1, R6).ldMapFd(R2, stacksFd).movImm(R3, flags);
        a.call(Bpf.FUNC_GET_STACKID);
        a.stxW(R10, slot, R0);
    }

    /** if (v = counts[key]) { *v += 1; goto done } else goto missing. */
    private static void lookupAndAdd(BpfAssembler a, int countsFd, BpfAssembler.Label missing, BpfAssembler.Label done) {
        a.ldMapFd(R1, countsFd).mov(R2, R10).addImm(R2, KEY);
        a.call(Bpf.FUNC_MAP_LOOKUP_ELEM);
        a.jeqImm(R0, 0, missing);
        a.movImm(R1, 1).atomicAddDW(R0, 0, R1);
        a.ja(done);
    }
}
