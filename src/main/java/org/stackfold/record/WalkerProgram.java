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
 * The table-driven user-stack walker (issue 26, docs/record.md "The walker"): two perf-event
 * programs that unwind the sampled thread's user stack through {@code .eh_frame} rows instead of
 * frame pointers, hash the frames as they are pushed, store each distinct stack once per generation
 * and count the sample under a {@link WalkKey} with an end status.
 *
 * <p>The <em>entry</em> program filters as {@link SamplingProgram} does, takes the kernel stack id,
 * reads the user registers (from the perf context when the sample hit user mode, else
 * {@code bpf_task_pt_regs}), walks {@link #FRAMES_PER_PROGRAM} frames and tail-calls the
 * <em>continuation</em>, which walks as many more and tail-calls itself, {@link #MAX_TAILS} times in
 * all, so a stack has at most {@link #MAX_FRAMES} frames. Everything a walk needs lives in one
 * per-CPU scratch value ({@link #STATE_SIZE} bytes), so the continuation starts where the entry
 * left off.
 *
 * <p>One frame: push the pc and mix it into the hash; look the pc (a caller's return address − 1)
 * up in the last mapping or the LPM trie of (pid, address) → mapping; in a file's table, a binary
 * search of at most {@link #SEARCH_STEPS} steps whose bounds are stored to and reloaded from the
 * scratch value at each step (the verifier then sees unknown scalars and its paths converge:
 * ~15 verified instructions a step instead of a precise tree); decode the 8-byte row
 * {@code {u32 pc; u16 cfa; s16 rbp}} and compute the caller's registers. Code that no file covers
 * (JIT) gets one frame-pointer step. Python frames (issue 27) are pushed as tagged values with bit
 * 63 set, which no user address has, by {@link PythonProgram} in slot {@link #PROG_PYTHON} of the
 * same {@code PROG_ARRAY}, right after the eval-loop frame they belong to.
 */
public final class WalkerProgram {
    public static final int FRAMES_PER_PROGRAM = 32;
    /** Tail calls of the continuation (entry + 3 continuations = 128 frame steps). */
    public static final int MAX_TAILS = 3;
    public static final int MAX_FRAMES = 127;
    /** Frame slots in the scratch value and in a stored stack (a power of two for the index mask). */
    public static final int FRAME_SLOTS = 128;
    /** 2^22 rows: the largest table the search covers (libLLVM has ~0.9 M rows). */
    public static final int SEARCH_STEPS = 22;
    public static final int MAX_ROWS = 1 << SEARCH_STEPS;

    /** PROG_ARRAY slots. */
    public static final int PROG_CONTINUE = 0;
    public static final int PROG_PYTHON = 1;
    public static final int PROGS = 4;

    /** How the walk of a sample's user stack ended (the key's status). */
    public static final int ROOT = 0, NO_TABLE = 1, NO_MAPPING = 2, READ_FAULT = 3, DEPTH = 4, UNSUPPORTED = 5,
            JIT_STOP = 6, KTHREAD = 7, NO_INFO = 8;
    public static final int STATUSES = 9;

    /** LPM value kinds: a file with a table, code no file covers (frame-pointer step), a file without a table yet. */
    public static final int KIND_TABLE = 0, KIND_FP = 1, KIND_NO_TABLE = 2;
    /**
     * LPM value: {@code start u64, end u64, bias u64, table u32, rows u32, kind u32, exec u32, serial u32,
     * u32 0}; exec: the process's exec count ({@link ExecProgram}) when its maps were read; a mapping read
     * before the process's last exec is no mapping. serial: the table's load number (from 1, never
     * reused, unlike the slot {@code table}): the row cache's tag.
     */
    public static final int MAPPING_SIZE = 48;
    static final int MAPPING_EXEC = 36, MAPPING_SERIAL = 40;
    /** LPM key: {@code prefixlen u32, pid u32 big-endian, address u64 big-endian}. */
    public static final int LPM_KEY_SIZE = 16;

    /** Stats array slots (after {@link SamplingProgram}'s two). */
    public static final int STAT_LOST_USTACK = 2;
    public static final int STATS = 3;

    // The scratch value.
    static final int IP = 0, SP = 8, BP = 16, HASH = 24, LOOKUP = 32, EXACT = 40, TAILS = 44, LO = 48, HI = 52,
            IDX = 56, M_START = 64, M_END = 72, M_BIAS = 80, M_TABLE = 88, M_ROWS = 92, M_KIND = 96, LPM = 104,
            KEY = 120, READ = 168, READ2 = 176, STACK = 184, N = STACK, STATUS = STACK + 4, FRAMES = STACK + 8,
            SIG = FRAMES + FRAME_SLOTS * 8;
    /** Signal frames: rbp, rbx, rdx, rax, rcx, rsp, rip of the ucontext's gregs, read in one go. */
    static final int SIG_READ = 56;
    /**
     * The Python walk's part of the scratch value ({@link PythonProgram}): flags, the frame cursor, a
     * copy of the process's {@code pyprocs} value and the buffer one frame is read into.
     */
    static final int PY = SIG + SIG_READ, PY_ON = PY, PY_PENDING = PY + 4, PY_CALLS = PY + 8, PY_STATE = PY + 12,
            PY_CURSOR = PY + 16, PY_TMP = PY + 24, PY_TID = PY + 32, PY_VALUE = PY + 40,
            PY_BUF = PY_VALUE + 80, PY_BUF_SIZE = 136;
    /**
     * The row cache (docs/record.md "The row cache"): {@link #CACHE_ENTRIES} direct-mapped entries per CPU,
     * a tag {@code serial << 32 | file address} in {@code CACHE_TAGS} and the row's {@code cfa, rbp} in
     * {@code CACHE_ROWS}, indexed by the top {@link #CACHE_BITS} bits of {@code tag * PHI}; M_SERIAL: the
     * current mapping's table serial; CTAG, CIDX: this frame's tag and index across the search.
     */
    public static final int CACHE_BITS = 11, CACHE_ENTRIES = 1 << CACHE_BITS;
    static final int M_SERIAL = PY_BUF + PY_BUF_SIZE, CIDX = M_SERIAL + 4, CTAG = M_SERIAL + 8,
            M2 = CTAG + 8, CACHE_TAGS = M2 + 48, CACHE_ROWS = CACHE_TAGS + CACHE_ENTRIES * 8;
    /**
     * M2: the mapping used before the current one ({@code start, end, bias, table, rows, kind, exec,
     * serial}), for this sample's walk only: a stack that goes back and forth between two files (JIT code
     * and libjvm, a program and libc) looks each up in the trie once.
     */
    static final int M2_SERIAL = M2 + 40;
    public static final int STATE_SIZE = CACHE_ROWS + CACHE_ENTRIES * 4;
    /** A stored stack: {@code u32 n, u32 status, u64 frames[128]}. */
    public static final int STACK_SIZE = 8 + FRAME_SLOTS * 8;

    /** A row's rbp field (u16) when rbp is saved at CFA − 16, right below the return address. */
    static final int RBP_BELOW_RA = 0xfffe;

    /** pt_regs offsets (x86-64). */
    private static final int REG_BP = 32, REG_IP = 128, REG_CS = 136, REG_SP = 152;
    /** ucontext: uc_mcontext at +40; gregs rbp is index 10 (+80): the 56 bytes from sp + 120. */
    private static final int SIG_FROM_SP = 40 + 80;

    /** The hash mix: h ^= v * PHI; h = (h ^ h >>> 29) * MIX. Java's {@link #mix} is the same. */
    static final long PHI = 0x9e3779b97f4a7c15L, MIX = 0xbf58476d1ce4e5b9L;

    /** Map descriptors baked into the programs. */
    public record Spec(int countsFd, int kstacks0Fd, int kstacks1Fd, int ustacks0Fd, int ustacks1Fd, int statsFd,
                       int pidFilterFd, int scratchFd, int progsFd, int lpmFd, int tablesFd, int unknownFd, int execsFd,
                       int wakeFd, int heldFd, int stoppedFd, boolean includeIdle, boolean perThread,
                       boolean kernelStacks, int pyprocsFd, int pythreadsFd, boolean pythonLines) {
        /** Without Python frames. */
        public Spec(int countsFd, int kstacks0Fd, int kstacks1Fd, int ustacks0Fd, int ustacks1Fd, int statsFd,
                    int pidFilterFd, int scratchFd, int progsFd, int lpmFd, int tablesFd, int unknownFd, int execsFd,
                    int wakeFd, int heldFd, int stoppedFd, boolean includeIdle, boolean perThread, boolean kernelStacks) {
            this(countsFd, kstacks0Fd, kstacks1Fd, ustacks0Fd, ustacks1Fd, statsFd, pidFilterFd, scratchFd, progsFd, lpmFd,
                    tablesFd, unknownFd, execsFd, wakeFd, heldFd, stoppedFd, includeIdle, perThread, kernelStacks, -1, -1, false);
        }
    }

    private WalkerProgram() {
    }

    /** The hash of a stack's frames, leaf first, as the program computes it. */
    public static long hash(long[] frames, int n) {
        long h = 0;
        for (int i = 0; i < n; i++) {
            h = mix(h, frames[i]);
        }
        return h;
    }

    static long mix(long h, long v) {
        h ^= v * PHI;
        return (h ^ h >>> 29) * MIX;
    }

    public static long[] entry(Spec s) {
        BpfAssembler a = new BpfAssembler();
        BpfAssembler.Label out = a.label("out");
        BpfAssembler.Label finish = a.label("finish");
        BpfAssembler.Label second = a.label("second");
        BpfAssembler.Label kernelDone = a.label("kernelDone");
        BpfAssembler.Label fromTask = a.label("fromTask");
        BpfAssembler.Label regsDone = a.label("regsDone");
        BpfAssembler.Label kthread = a.label("kthread");
        BpfAssembler.Label noExec = a.label("noExec");

        a.mov(R7, R1);
        a.call(Bpf.FUNC_GET_CURRENT_PID_TGID);
        a.mov(R8, R0);
        a.mov(R9, R0).rshImm(R9, 32);
        if (!s.includeIdle()) {
            a.jeqImm(R9, 0, out);
        }
        if (s.pidFilterFd() >= 0) {
            a.stxW(R10, -8, R9);
            a.ldMapFd(R1, s.pidFilterFd()).mov(R2, R10).addImm(R2, -8);
            a.call(Bpf.FUNC_MAP_LOOKUP_ELEM);
            a.jeqImm(R0, 0, out);
        }
        a.stW(R10, -8, 0);
        a.ldMapFd(R1, s.scratchFd()).mov(R2, R10).addImm(R2, -8);
        a.call(Bpf.FUNC_MAP_LOOKUP_ELEM);
        a.jeqImm(R0, 0, out);
        a.mov(R6, R0);
        // The key: pid, tid, generation, kernel stack, comm.
        a.stxW(R6, KEY + WalkKey.PID, R9);
        if (s.perThread()) {
            a.stxW(R6, KEY + WalkKey.TID, R8);
        } else {
            a.stW(R6, KEY + WalkKey.TID, 0);
        }
        a.stW(R6, KEY + WalkKey.EXEC, 0);
        a.stxW(R10, -8, R9);
        a.ldMapFd(R1, s.execsFd()).mov(R2, R10).addImm(R2, -8);
        a.call(Bpf.FUNC_MAP_LOOKUP_ELEM);
        a.jeqImm(R0, 0, noExec);
        a.ldxW(R1, R0, 0).stxW(R6, KEY + WalkKey.EXEC, R1);
        a.bind(noExec);
        a.stW(R10, -8, SamplingProgram.STAT_GENERATION);
        a.ldMapFd(R1, s.statsFd()).mov(R2, R10).addImm(R2, -8);
        a.call(Bpf.FUNC_MAP_LOOKUP_ELEM);
        a.jeqImm(R0, 0, out);
        a.ldxW(R1, R0, 0);
        a.stxW(R6, KEY + WalkKey.GENERATION, R1);
        if (s.kernelStacks()) {
            a.jneImm(R1, 0, second);
            a.mov(R1, R7).ldMapFd(R2, s.kstacks0Fd()).movImm(R3, 0).call(Bpf.FUNC_GET_STACKID);
            a.ja(kernelDone);
            a.bind(second);
            a.mov(R1, R7).ldMapFd(R2, s.kstacks1Fd()).movImm(R3, 0).call(Bpf.FUNC_GET_STACKID);
            a.bind(kernelDone);
            a.stxW(R6, KEY + WalkKey.KERNEL_STACK, R0);
        } else {
            a.stW(R6, KEY + WalkKey.KERNEL_STACK, -ErrnoException.EFAULT);
        }
        a.mov(R1, R6).addImm(R1, KEY + WalkKey.COMM).movImm(R2, WalkKey.COMM_LENGTH);
        a.call(Bpf.FUNC_GET_CURRENT_COMM);
        // The walk's state.
        a.stDW(R6, HASH, 0);
        a.stW(R6, N, 0);
        a.stW(R6, STATUS, ROOT);
        a.stW(R6, TAILS, 0);
        a.stW(R6, EXACT, 1);
        a.stDW(R6, M_START, 0);
        a.stDW(R6, M_END, 0);
        a.stDW(R6, M2, 0);
        a.stDW(R6, M2 + 8, 0);
        a.stW(R6, LPM, 96);
        a.mov(R1, R9).toBigEndian(R1, 32).stxW(R6, LPM + 4, R1);
        PythonProgram.begin(a, s);
        // User registers: from the sample when it hit user mode (cs & 3 == 3), else the task's saved ones.
        a.ldxDW(R1, R7, REG_CS).andImm(R1, 3);
        a.jneImm(R1, 3, fromTask);
        a.ldxDW(R1, R7, REG_IP).stxDW(R6, IP, R1);
        a.ldxDW(R1, R7, REG_SP).stxDW(R6, SP, R1);
        a.ldxDW(R1, R7, REG_BP).stxDW(R6, BP, R1);
        a.ja(regsDone);
        a.bind(fromTask);
        a.call(Bpf.FUNC_GET_CURRENT_TASK_BTF);
        a.mov(R1, R0).call(Bpf.FUNC_TASK_PT_REGS);
        a.ldxDW(R1, R0, REG_IP).stxDW(R6, IP, R1);
        a.ldxDW(R1, R0, REG_SP).stxDW(R6, SP, R1);
        a.ldxDW(R1, R0, REG_BP).stxDW(R6, BP, R1);
        a.bind(regsDone);
        a.ldxDW(R1, R6, IP);
        a.jeqImm(R1, 0, kthread);
        a.rshImm(R1, 47);
        a.jneImm(R1, 0, kthread); // not a user address: a kernel thread
        walk(a, s, finish);
        a.bind(kthread);
        a.stW(R6, STATUS, KTHREAD);
        a.ja(finish);
        finish(a, s, finish, out);
        return a.build();
    }

    public static long[] continuation(Spec s) {
        BpfAssembler a = new BpfAssembler();
        BpfAssembler.Label out = a.label("out");
        BpfAssembler.Label finish = a.label("finish");
        a.mov(R7, R1);
        a.stW(R10, -8, 0);
        a.ldMapFd(R1, s.scratchFd()).mov(R2, R10).addImm(R2, -8);
        a.call(Bpf.FUNC_MAP_LOOKUP_ELEM);
        a.jeqImm(R0, 0, out);
        a.mov(R6, R0);
        a.ldxW(R1, R6, TAILS).addImm(R1, 1).stxW(R6, TAILS, R1);
        walk(a, s, finish);
        finish(a, s, finish, out);
        return a.build();
    }

    /** FRAMES_PER_PROGRAM frames, then a tail call to the continuation (while allowed), else the depth status. */
    private static void walk(BpfAssembler a, Spec s, BpfAssembler.Label finish) {
        Statuses st = new Statuses(a, s);
        for (int i = 0; i < FRAMES_PER_PROGRAM; i++) {
            BpfAssembler.Label next = a.label("frame" + (i + 1));
            frame(a, s, st, next);
            a.bind(next);
        }
        BpfAssembler.Label depth = st.label(DEPTH);
        a.ldxW(R1, R6, TAILS);
        a.jgeImm(R1, MAX_TAILS, depth);
        a.mov(R1, R7).ldMapFd(R2, s.progsFd()).movImm(R3, PROG_CONTINUE).tailCall();
        a.ja(depth); // the tail call failed
        st.bind(finish);
    }

    /**
     * Shared "set the status and finish" blocks, one per status a frame can end with. "No mapping"
     * also asks user space to read the process's maps: the pid goes into {@code unknown} and, when it
     * was not there yet, a record into the ring buffer wakes the unwind worker ({@link UnwindDoorbell}).
     */
    private static final class Statuses {
        private final BpfAssembler a;
        private final Spec s;
        private final BpfAssembler.Label[] labels = new BpfAssembler.Label[STATUSES];

        Statuses(BpfAssembler a, Spec s) {
            this.a = a;
            this.s = s;
        }

        BpfAssembler.Label label(int status) {
            if (labels[status] == null) {
                labels[status] = a.label("status" + status);
            }
            return labels[status];
        }

        void bind(BpfAssembler.Label finish) {
            for (int i = 0; i < STATUSES; i++) {
                if (labels[i] != null) {
                    a.bind(labels[i]);
                    a.stW(R6, STATUS, i);
                    if (i == NO_MAPPING) {
                        BpfAssembler.Label rung = a.label("rung");
                        ringOnce(a, s.unknownFd(), s.wakeFd(), R6, KEY + WalkKey.PID, rung);
                        a.bind(rung);
                        if (s.heldFd() >= 0) {
                            hold(a, s.heldFd(), s.stoppedFd(), s.wakeFd(), R6, KEY + WalkKey.PID, true, finish);
                        }
                    }
                    a.ja(finish);
                }
            }
        }
    }

    private static void frame(BpfAssembler a, Spec s, Statuses st, BpfAssembler.Label next) {
        BpfAssembler.Label exactPc = a.label("exact");
        BpfAssembler.Label lpm = a.label("lpm");
        BpfAssembler.Label other = a.label("other");
        BpfAssembler.Label mapped = a.label("mapped");
        BpfAssembler.Label fpStep = a.label("fp");
        BpfAssembler.Label searched = a.label("searched");
        BpfAssembler.Label rbpBased = a.label("rbpBased");
        BpfAssembler.Label plt = a.label("plt");
        BpfAssembler.Label command = a.label("command");
        BpfAssembler.Label haveCfa = a.label("haveCfa");
        BpfAssembler.Label noRbp = a.label("noRbp");
        BpfAssembler.Label signal = a.label("signal");
        BpfAssembler.Label miss = a.label("miss");
        BpfAssembler.Label haveRow = a.label("haveRow");
        BpfAssembler.Label pair = a.label("pair");

        PythonProgram.callIfPending(a, s);
        a.ldxDW(R1, R6, IP);
        a.jeqImm(R1, 0, st.label(ROOT)); // a zero return address ends frame-pointer chains
        a.ldxW(R2, R6, N);
        a.jgeImm(R2, MAX_FRAMES, st.label(DEPTH));
        a.mov(R3, R2).andImm(R3, FRAME_SLOTS - 1).lshImm(R3, 3).add(R3, R6);
        a.stxDW(R3, FRAMES, R1);
        a.addImm(R2, 1).stxW(R6, N, R2);
        mixHash(a);
        // Callers' pcs are return addresses: their call lies one byte before.
        a.ldxW(R2, R6, EXACT);
        a.jneImm(R2, 0, exactPc);
        a.subImm(R1, 1);
        a.bind(exactPc);
        a.stW(R6, EXACT, 0);
        a.stxDW(R6, LOOKUP, R1);
        a.mov(R8, R1);
        PythonProgram.markEvalLoop(a, s);
        a.ldxDW(R2, R6, M_START);
        a.jlt(R8, R2, other);
        a.ldxDW(R2, R6, M_END);
        a.jlt(R8, R2, mapped);
        a.bind(other); // the mapping before: swap it with the current one
        a.ldxDW(R2, R6, M2);
        a.jlt(R8, R2, lpm);
        a.ldxDW(R2, R6, M2 + 8);
        a.jge(R8, R2, lpm);
        for (int off = 0; off < MAPPING_EXEC + 4; off += 8) {
            a.ldxDW(R1, R6, M_START + off).ldxDW(R2, R6, M2 + off);
            a.stxDW(R6, M_START + off, R2).stxDW(R6, M2 + off, R1);
        }
        a.ldxW(R1, R6, M_SERIAL).ldxW(R2, R6, M2_SERIAL);
        a.stxW(R6, M_SERIAL, R2).stxW(R6, M2_SERIAL, R1);
        a.ja(mapped);
        a.bind(lpm);
        a.mov(R2, R8).toBigEndian(R2, 64).stxDW(R6, LPM + 8, R2);
        a.ldMapFd(R1, s.lpmFd()).mov(R2, R6).addImm(R2, LPM);
        a.call(Bpf.FUNC_MAP_LOOKUP_ELEM);
        a.jeqImm(R0, 0, st.label(NO_MAPPING));
        // Read before the process's last exec: the maps of the program it was.
        a.ldxW(R1, R0, MAPPING_EXEC).ldxW(R2, R6, KEY + WalkKey.EXEC);
        a.jne(R1, R2, st.label(NO_MAPPING));
        for (int off = 0; off < MAPPING_EXEC + 4; off += 8) {
            a.ldxDW(R1, R6, M_START + off).stxDW(R6, M2 + off, R1);
            a.ldxDW(R1, R0, off).stxDW(R6, M_START + off, R1);
        }
        a.ldxW(R1, R6, M_SERIAL).stxW(R6, M2_SERIAL, R1);
        a.ldxW(R1, R0, MAPPING_SERIAL).stxW(R6, M_SERIAL, R1);
        a.bind(mapped);
        a.ldxW(R1, R6, M_KIND);
        a.jeqImm(R1, KIND_FP, fpStep);
        a.jneImm(R1, KIND_TABLE, st.label(NO_TABLE));
        a.ldxDW(R1, R6, M_BIAS).sub(R8, R1); // R8: the address in the file's link-time terms
        a.mov(R1, R8).rshImm(R1, 32);
        a.jneImm(R1, 0, st.label(NO_INFO));
        // The row cache: tag = serial << 32 | address; a hit skips the table and its search.
        a.ldxW(R1, R6, M_SERIAL).lshImm(R1, 32).or(R1, R8).stxDW(R6, CTAG, R1);
        a.ldImm64(R2, PHI).mul(R1, R2).rshImm(R1, 64 - CACHE_BITS).stxW(R6, CIDX, R1);
        a.mov(R2, R1).lshImm(R2, 3).add(R2, R6);
        a.ldxDW(R3, R2, CACHE_TAGS).ldxDW(R4, R6, CTAG);
        a.jne(R3, R4, miss);
        a.lshImm(R1, 2).add(R1, R6);
        a.ldxH(R8, R1, CACHE_ROWS);
        a.ldxH(R9, R1, CACHE_ROWS + 2);
        a.ja(haveRow);
        a.bind(miss);
        a.ldMapFd(R1, s.tablesFd()).mov(R2, R6).addImm(R2, M_TABLE);
        a.call(Bpf.FUNC_MAP_LOOKUP_ELEM);
        a.jeqImm(R0, 0, st.label(NO_TABLE));
        a.mov(R9, R0);
        a.stW(R6, LO, 0);
        a.ldxW(R1, R6, M_ROWS).stxW(R6, HI, R1);
        for (int step = 0; step < SEARCH_STEPS; step++) {
            BpfAssembler.Label high = a.label("high");
            BpfAssembler.Label stepDone = a.label("stepDone");
            a.ldxW(R1, R6, LO).ldxW(R2, R6, HI);
            a.mov(R3, R2).sub(R3, R1);
            a.jleImm(R3, 1, searched);
            a.add(R1, R2).rshImm(R1, 1).stxW(R6, IDX, R1);
            a.mov(R1, R9).mov(R2, R6).addImm(R2, IDX);
            a.call(Bpf.FUNC_MAP_LOOKUP_ELEM);
            a.jeqImm(R0, 0, st.label(NO_INFO));
            a.ldxW(R1, R0, 0).ldxW(R2, R6, IDX);
            a.jgt(R1, R8, high);
            a.stxW(R6, LO, R2);
            a.ja(stepDone);
            a.bind(high);
            a.stxW(R6, HI, R2);
            a.bind(stepDone);
        }
        a.bind(searched);
        a.ldxW(R1, R6, LO).stxW(R6, IDX, R1);
        a.mov(R1, R9).mov(R2, R6).addImm(R2, IDX);
        a.call(Bpf.FUNC_MAP_LOOKUP_ELEM);
        a.jeqImm(R0, 0, st.label(NO_INFO));
        a.ldxW(R1, R0, 0);
        a.jgt(R1, R8, st.label(NO_INFO)); // before the table's first row
        a.ldxW(R1, R6, CIDX).andImm(R1, CACHE_ENTRIES - 1);
        a.mov(R2, R1).lshImm(R2, 3).add(R2, R6);
        a.ldxDW(R3, R6, CTAG).stxDW(R2, CACHE_TAGS, R3);
        a.lshImm(R1, 2).add(R1, R6);
        a.ldxW(R3, R0, 4).stxW(R1, CACHE_ROWS, R3);
        a.ldxH(R8, R0, 4); // cfa: type << 14 | offset / 8
        a.ldxH(R9, R0, 6); // rbp: s16 eighths from the CFA, 0 = unchanged
        a.bind(haveRow);
        a.mov(R1, R8).rshImm(R1, 14);
        a.andImm(R8, 0x3fff).lshImm(R8, 3);
        a.jeqImm(R1, 3, command);
        a.jeqImm(R1, 2, plt);
        a.jeqImm(R1, 1, rbpBased);
        a.ldxDW(R1, R6, SP).add(R8, R1);
        a.ja(haveCfa);
        a.bind(rbpBased);
        a.ldxDW(R1, R6, BP).add(R8, R1);
        a.ja(haveCfa);
        a.bind(plt); // cfa = sp + 8 + ((pc & 15) >= 11 ? 8 : 0)
        a.ldxDW(R8, R6, SP).addImm(R8, 8);
        a.ldxDW(R1, R6, LOOKUP).andImm(R1, 15);
        a.jltImm(R1, 11, haveCfa);
        a.addImm(R8, 8);
        a.ja(haveCfa);
        a.bind(command);
        a.jeqImm(R8, 8, st.label(ROOT)); // stop: the return address is undefined
        a.jeqImm(R8, 16, signal);
        a.jeqImm(R8, 0, st.label(NO_INFO));
        a.ja(st.label(UNSUPPORTED));
        a.bind(haveCfa);
        a.jeqImm(R9, RBP_BELOW_RA, pair);
        a.mov(R1, R6).addImm(R1, READ).movImm(R2, 8).mov(R3, R8).subImm(R3, 8);
        a.call(Bpf.FUNC_PROBE_READ_USER);
        a.jneImm(R0, 0, st.label(READ_FAULT));
        a.jeqImm(R9, 0, noRbp);
        a.lshImm(R9, 48).arshImm(R9, 45); // sign-extended, times 8
        a.mov(R1, R6).addImm(R1, READ2).movImm(R2, 8).mov(R3, R8).add(R3, R9);
        a.call(Bpf.FUNC_PROBE_READ_USER);
        a.jneImm(R0, 0, st.label(READ_FAULT));
        a.ldxDW(R1, R6, READ2).stxDW(R6, BP, R1);
        a.bind(noRbp);
        a.stxDW(R6, SP, R8);
        a.ldxDW(R1, R6, READ).stxDW(R6, IP, R1);
        a.ja(next);
        a.bind(pair); // rbp saved just below the return address (push rbp): both in one read
        a.mov(R1, R6).addImm(R1, READ).movImm(R2, 16).mov(R3, R8).subImm(R3, 16);
        a.call(Bpf.FUNC_PROBE_READ_USER);
        a.jneImm(R0, 0, st.label(READ_FAULT));
        a.ldxDW(R1, R6, READ).stxDW(R6, BP, R1);
        a.ldxDW(R1, R6, READ2).stxDW(R6, READ, R1);
        a.ja(noRbp);
        a.bind(signal); // __restore_rt: sp is the ucontext; take rbp, rsp, rip from its gregs
        a.mov(R1, R6).addImm(R1, SIG).movImm(R2, SIG_READ).ldxDW(R3, R6, SP).addImm(R3, SIG_FROM_SP);
        a.call(Bpf.FUNC_PROBE_READ_USER);
        a.jneImm(R0, 0, st.label(READ_FAULT));
        a.ldxDW(R1, R6, SIG).stxDW(R6, BP, R1);
        a.ldxDW(R1, R6, SIG + 40).stxDW(R6, SP, R1);
        a.ldxDW(R1, R6, SIG + 48).stxDW(R6, IP, R1);
        a.stW(R6, EXACT, 1); // the interrupted pc is exact, not a return address
        a.ja(next);
        a.bind(fpStep); // code no file covers (JIT): one frame-pointer step, rbp above sp
        a.ldxDW(R8, R6, BP).ldxDW(R1, R6, SP);
        a.jle(R8, R1, st.label(JIT_STOP));
        a.mov(R1, R6).addImm(R1, READ).movImm(R2, 16).mov(R3, R8);
        a.call(Bpf.FUNC_PROBE_READ_USER);
        a.jneImm(R0, 0, st.label(JIT_STOP));
        a.ldxDW(R1, R6, READ).stxDW(R6, BP, R1);
        a.ldxDW(R1, R6, READ2).stxDW(R6, IP, R1);
        a.addImm(R8, 16).stxDW(R6, SP, R8);
        a.ja(next);
    }

    /**
     * {@code if (update(set, pid at base+off, NOEXIST) == 0) ringbuf_output(wake, pid, 4, FORCE_WAKEUP)}:
     * a pid for the unwind worker, and its wake-up the first time only. Clobbers R0-R5; goes on at
     * {@code done} (shared with {@link ExecProgram}).
     */
    static void ringOnce(BpfAssembler a, int setFd, int wakeFd, int base, int off, BpfAssembler.Label done) {
        a.ldMapFd(R1, setFd).mov(R2, base).addImm(R2, off).mov(R3, R2).movImm(R4, Bpf.NOEXIST);
        a.call(Bpf.FUNC_MAP_UPDATE_ELEM);
        a.jneImm(R0, 0, done);
        a.ldMapFd(R1, wakeFd).mov(R2, base).addImm(R2, off).movImm(R3, 4).movImm(R4, Bpf.RB_FORCE_WAKEUP);
        a.call(Bpf.FUNC_RINGBUF_OUTPUT);
    }

    /** SIGSTOP, for {@link #hold}. */
    static final int SIGSTOP = 19;

    /**
     * A launched command the worker has not read yet is held: {@code if (held[pid] (budget left) &&
     * update(stopped, pid, NOEXIST) == 0) { send_signal(SIGSTOP); ring }}; the worker reads its maps and
     * sends SIGCONT ({@link Sampler}). Only the command the recorder started is ever in {@code held}.
     * With {@code budget}, each hold takes one from the pid's budget (a walk that misses for another
     * reason must not stop the command at every sample). Clobbers R0-R5; goes on at {@code done}.
     */
    static void hold(BpfAssembler a, int heldFd, int stoppedFd, int wakeFd, int base, int off, boolean budget,
                     BpfAssembler.Label done) {
        a.ldMapFd(R1, heldFd).mov(R2, base).addImm(R2, off);
        a.call(Bpf.FUNC_MAP_LOOKUP_ELEM);
        a.jeqImm(R0, 0, done);
        if (budget) {
            BpfAssembler.Label left = a.label("budgetLeft");
            a.ldxDW(R1, R0, 0);
            a.jsgtImm(R1, 0, left);
            a.ja(done);
            a.bind(left);
            a.movImm(R1, -1).atomicAddDW(R0, 0, R1);
        }
        a.ldMapFd(R1, stoppedFd).mov(R2, base).addImm(R2, off).mov(R3, R2).movImm(R4, Bpf.NOEXIST);
        a.call(Bpf.FUNC_MAP_UPDATE_ELEM);
        a.jneImm(R0, 0, done);
        a.movImm(R1, SIGSTOP).call(Bpf.FUNC_SEND_SIGNAL);
        a.ldMapFd(R1, wakeFd).mov(R2, base).addImm(R2, off).movImm(R3, 4).movImm(R4, Bpf.RB_FORCE_WAKEUP);
        a.call(Bpf.FUNC_RINGBUF_OUTPUT);
    }

    /** HASH = mix(HASH, R1), as {@link #mix}; clobbers R3 and R4. */
    static void mixHash(BpfAssembler a) {
        a.mov(R3, R1).ldImm64(R4, PHI).mul(R3, R4);
        a.ldxDW(R4, R6, HASH).xor(R4, R3);
        a.mov(R3, R4).rshImm(R3, 29).xor(R4, R3);
        a.ldImm64(R3, MIX).mul(R4, R3);
        a.stxDW(R6, HASH, R4);
    }

    /** Stores the stack once per generation and counts the key (as {@link SamplingProgram} counts). */
    static void finish(BpfAssembler a, Spec s, BpfAssembler.Label finish, BpfAssembler.Label out) {
        BpfAssembler.Label second = a.label("second");
        BpfAssembler.Label stored = a.label("stored");
        BpfAssembler.Label noStack = a.label("noStack");
        BpfAssembler.Label insert = a.label("insert");
        BpfAssembler.Label lost = a.label("lost");
        BpfAssembler.Label ustackLost = a.label("ustackLost");
        a.bind(finish);
        a.ldxW(R1, R6, STATUS).stxW(R6, KEY + WalkKey.STATUS, R1);
        a.ldxDW(R1, R6, HASH).stxDW(R6, KEY + WalkKey.USER_HASH, R1);
        a.ldxW(R1, R6, N);
        a.jeqImm(R1, 0, noStack);
        a.ldxW(R1, R6, KEY + WalkKey.GENERATION);
        a.jneImm(R1, 0, second);
        storeStack(a, s.ustacks0Fd(), stored, ustackLost);
        a.bind(second);
        storeStack(a, s.ustacks1Fd(), stored, ustackLost);
        a.bind(ustackLost);
        a.stW(R10, -8, STAT_LOST_USTACK);
        a.ldMapFd(R1, s.statsFd()).mov(R2, R10).addImm(R2, -8);
        a.call(Bpf.FUNC_MAP_LOOKUP_ELEM);
        a.jeqImm(R0, 0, stored);
        a.movImm(R1, 1).atomicAddDW(R0, 0, R1);
        a.ja(stored);
        a.bind(noStack);
        a.stDW(R6, KEY + WalkKey.USER_HASH, 0);
        a.bind(stored);

        lookupAndAdd(a, s.countsFd(), insert, out);
        a.bind(insert);
        a.stDW(R10, -16, 1);
        a.ldMapFd(R1, s.countsFd()).mov(R2, R6).addImm(R2, KEY).mov(R3, R10).addImm(R3, -16).movImm(R4, Bpf.NOEXIST);
        a.call(Bpf.FUNC_MAP_UPDATE_ELEM);
        a.jeqImm(R0, 0, out);
        a.jneImm(R0, -ErrnoException.EEXIST, lost);
        lookupAndAdd(a, s.countsFd(), lost, out);
        a.bind(lost);
        a.stW(R10, -8, SamplingProgram.STAT_LOST_FULL);
        a.ldMapFd(R1, s.statsFd()).mov(R2, R10).addImm(R2, -8);
        a.call(Bpf.FUNC_MAP_LOOKUP_ELEM);
        a.jeqImm(R0, 0, out);
        a.movImm(R1, 1).atomicAddDW(R0, 0, R1);
        a.bind(out);
        a.movImm(R0, 0).exit();
    }

    /** if (!ustacks[hash]) ustacks[hash] = stack (NOEXIST; EEXIST from a racing CPU is fine); else lost. */
    private static void storeStack(BpfAssembler a, int fd, BpfAssembler.Label stored, BpfAssembler.Label lost) {
        a.ldMapFd(R1, fd).mov(R2, R6).addImm(R2, KEY + WalkKey.USER_HASH);
        a.call(Bpf.FUNC_MAP_LOOKUP_ELEM);
        a.jneImm(R0, 0, stored);
        a.ldMapFd(R1, fd).mov(R2, R6).addImm(R2, KEY + WalkKey.USER_HASH).mov(R3, R6).addImm(R3, STACK)
                .movImm(R4, Bpf.NOEXIST);
        a.call(Bpf.FUNC_MAP_UPDATE_ELEM);
        a.jeqImm(R0, 0, stored);
        a.jeqImm(R0, -ErrnoException.EEXIST, stored);
        a.ja(lost);
    }

    private static void lookupAndAdd(BpfAssembler a, int countsFd, BpfAssembler.Label missing, BpfAssembler.Label done) {
        a.ldMapFd(R1, countsFd).mov(R2, R6).addImm(R2, KEY);
        a.call(Bpf.FUNC_MAP_LOOKUP_ELEM);
        a.jeqImm(R0, 0, missing);
        a.movImm(R1, 1).atomicAddDW(R0, 0, R1);
        a.ja(done);
    }
}
