package org.stackfold.record;

import static org.stackfold.record.WalkerProgram.FRAMES;
import static org.stackfold.record.WalkerProgram.FRAME_SLOTS;
import static org.stackfold.record.WalkerProgram.MAX_FRAMES;
import static org.stackfold.record.WalkerProgram.N;
import static org.stackfold.record.WalkerProgram.PROG_CONTINUE;
import static org.stackfold.record.WalkerProgram.PROG_PYTHON;
import static org.stackfold.record.WalkerProgram.PY_BUF;
import static org.stackfold.record.WalkerProgram.PY_CALLS;
import static org.stackfold.record.WalkerProgram.PY_CURSOR;
import static org.stackfold.record.WalkerProgram.PY_ON;
import static org.stackfold.record.WalkerProgram.PY_PENDING;
import static org.stackfold.record.WalkerProgram.PY_STATE;
import static org.stackfold.record.WalkerProgram.PY_TID;
import static org.stackfold.record.WalkerProgram.PY_TMP;
import static org.stackfold.record.WalkerProgram.PY_VALUE;
import static org.stackfold.record.WalkerProgram.STATUS;
import static org.stackfold.record.WalkerProgram.TAILS;
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

/**
 * The Python part of the walker (issue 27, docs/python.md "In the kernel"). The walker's entry
 * program copies the process's {@code pyprocs} value (80 bytes, {@code PythonProcess.mapValue()})
 * into its scratch value; each native frame whose pc lies in the eval loop sets a flag, and before
 * the next frame the walker tail-calls this program, which pushes that activation's Python frames
 * right after the eval-loop frame and tail-calls the walker's continuation, which goes on with the
 * native frames. The thread state is found once per sample: {@code pythreads[tid]} validated by one
 * read of its {@code native_thread_id}, else a scan of the interpreters' thread lists (at most
 * {@link #MAX_SCAN} steps of two reads), whose match is cached. A cursor into the thread's frame
 * chain is kept in the scratch value: each call reads frames from it (one read each) until the
 * activation's entry frame (3.12+: owner ≥ the first non-Python owner; 3.11: {@code is_entry}).
 *
 * <p>A Python frame is one value: {@code 1 << 63 | kind << 56 | instruction << 44 | code >> 3},
 * where the code object's address (user space, below 2^47, 8-aligned) takes 44 bits and the
 * instruction index + 1 (0: before the first; saturated at 4095) 12 bits; with function-level
 * aggregation the instruction bits are 0 and the kind says so.
 */
public final class PythonProgram {
    /** Tag of interpreter frames: no user address has bit 63. */
    public static final long TAG = 1L << 63;
    /** Kinds (bits 56–62): a Python frame with its instruction, one without (function-level). */
    public static final int KIND_LINE = 1, KIND_FUNCTION = 2;
    /** The highest instruction index + 1 the value holds. */
    public static final int MAX_INSTRUCTION = 0xfff;
    /** Frames read per run of the program; an activation with more runs it again. */
    public static final int FRAMES_PER_RUN = 24;
    /** Runs of this program per sample (each one tail call, plus one back to the walker). */
    public static final int MAX_RUNS = 10;
    /** Thread states (and interpreters) visited when the cached thread state does not match. */
    public static final int MAX_SCAN = 64;

    // Fields of the pyprocs value (PythonOffsets.mapValue()).
    static final int V_RUNTIME = 8, V_EVAL = 16, V_EVAL_END = 24, V_COLD = 32, V_COLD_END = 40, V_INTERPS = 48,
            V_INTERP_NEXT = 50, V_THREADS = 52, V_TS_NEXT = 54, V_NATIVE_ID = 56, V_CFRAME = 58, V_CURRENT = 60,
            V_FRAME_SIZE = 62, V_PREVIOUS = 64, V_EXECUTABLE = 66, V_INSTR = 68, V_OWNER = 70, V_IS_ENTRY = 72,
            V_ADAPTIVE = 74, V_NOT_PYTHON = 76, V_TAG_MASK = 77;
    static final int NONE = 0xffff;

    private PythonProgram() {
    }

    /** True for a frame value this program pushed. */
    public static boolean isPython(long value) {
        return value < 0;
    }

    public static int kind(long value) {
        return (int) (value >>> 56) & 0x7f;
    }

    /** The code object's address of a Python frame value. */
    public static long code(long value) {
        return (value & ((1L << 44) - 1)) << 3;
    }

    /** The instruction index (-1: before the first), or -2 with function-level aggregation or when it did not fit. */
    public static int instruction(long value) {
        int i = (int) (value >>> 44) & MAX_INSTRUCTION;
        return kind(value) != KIND_LINE || i == MAX_INSTRUCTION ? -2 : i - 1;
    }

    /** The value the program pushes for a frame (the same arithmetic, for tests). */
    public static long value(long code, long instruction, boolean lines) {
        if (!lines) {
            return TAG | (long) KIND_FUNCTION << 56 | code >>> 3;
        }
        long i = Math.max(0, Math.min(MAX_INSTRUCTION, instruction + 1));
        return TAG | (long) KIND_LINE << 56 | i << 44 | code >>> 3;
    }

    /** In the walker's entry: copy {@code pyprocs[pid]} (R9 = pid, R8 = pid_tgid) into the scratch value. */
    static void begin(BpfAssembler a, WalkerProgram.Spec s) {
        a.stW(R6, PY_ON, 0);
        a.stW(R6, PY_PENDING, 0);
        a.stW(R6, PY_CALLS, 0);
        a.stW(R6, PY_STATE, 0);
        if (s.pyprocsFd() < 0) {
            return;
        }
        BpfAssembler.Label none = a.label("noPython");
        a.stxW(R10, -8, R9);
        a.ldMapFd(R1, s.pyprocsFd()).mov(R2, R10).addImm(R2, -8);
        a.call(Bpf.FUNC_MAP_LOOKUP_ELEM);
        a.jeqImm(R0, 0, none);
        for (int off = 0; off < 80; off += 8) {
            a.ldxDW(R1, R0, off).stxDW(R6, PY_VALUE + off, R1);
        }
        a.stxW(R6, PY_TID, R8);
        a.stW(R6, PY_ON, 1);
        a.bind(none);
    }

    /** At the start of each native frame: if the frame before was in the eval loop, run this program. */
    static void callIfPending(BpfAssembler a, WalkerProgram.Spec s) {
        if (s.pyprocsFd() < 0) {
            return;
        }
        BpfAssembler.Label skip = a.label("noPending");
        a.ldxW(R1, R6, PY_PENDING);
        a.jeqImm(R1, 0, skip);
        a.stW(R6, PY_PENDING, 0);
        a.mov(R1, R7).ldMapFd(R2, s.progsFd()).movImm(R3, PROG_PYTHON).tailCall();
        a.bind(skip); // the tail call failed (no program in the slot): native frames only
    }

    /** After a native frame's lookup pc is in R8: flag it if it lies in the eval loop (clobbers R2). */
    static void markEvalLoop(BpfAssembler a, WalkerProgram.Spec s) {
        if (s.pyprocsFd() < 0) {
            return;
        }
        BpfAssembler.Label no = a.label("notEval");
        BpfAssembler.Label cold = a.label("evalCold");
        BpfAssembler.Label yes = a.label("eval");
        a.ldxW(R2, R6, PY_ON);
        a.jeqImm(R2, 0, no);
        a.ldxDW(R2, R6, PY_VALUE + V_EVAL);
        a.jlt(R8, R2, cold);
        a.ldxDW(R2, R6, PY_VALUE + V_EVAL_END);
        a.jlt(R8, R2, yes);
        a.bind(cold);
        a.ldxDW(R2, R6, PY_VALUE + V_COLD);
        a.jlt(R8, R2, no);
        a.ldxDW(R2, R6, PY_VALUE + V_COLD_END);
        a.jge(R8, R2, no);
        a.bind(yes);
        a.stW(R6, PY_PENDING, 1);
        a.bind(no);
    }

    /** The program in slot {@link WalkerProgram#PROG_PYTHON}. */
    public static long[] assemble(WalkerProgram.Spec s) {
        BpfAssembler a = new BpfAssembler();
        BpfAssembler.Label out = a.label("out");
        BpfAssembler.Label finish = a.label("finish");
        BpfAssembler.Label back = a.label("back");
        BpfAssembler.Label done = a.label("done");
        BpfAssembler.Label walking = a.label("walking");
        BpfAssembler.Label scan = a.label("scan");
        BpfAssembler.Label found = a.label("found");
        BpfAssembler.Label haveTs = a.label("haveTs");
        BpfAssembler.Label noCframe = a.label("noCframe");

        a.mov(R7, R1);
        a.stW(R10, -8, 0);
        a.ldMapFd(R1, s.scratchFd()).mov(R2, R10).addImm(R2, -8);
        a.call(Bpf.FUNC_MAP_LOOKUP_ELEM);
        a.jeqImm(R0, 0, out);
        a.mov(R6, R0);
        a.stW(R6, PY_PENDING, 0);
        a.ldxW(R1, R6, PY_CALLS);
        a.jgeImm(R1, MAX_RUNS, back);
        a.addImm(R1, 1).stxW(R6, PY_CALLS, R1);
        a.ldxW(R1, R6, PY_STATE);
        a.jeqImm(R1, 1, walking);
        a.jneImm(R1, 0, back);
        a.stW(R6, PY_STATE, 2); // until a thread state and its current frame are found

        // The thread state: the cached one if its native_thread_id is still this thread's.
        a.ldxW(R1, R6, PY_TID).stxW(R10, -8, R1);
        a.ldMapFd(R1, s.pythreadsFd()).mov(R2, R10).addImm(R2, -8);
        a.call(Bpf.FUNC_MAP_LOOKUP_ELEM);
        a.jeqImm(R0, 0, scan);
        a.ldxDW(R9, R0, 0);
        read8(a, R9, V_NATIVE_ID, scan);
        a.ldxW(R1, R6, PY_TMP).ldxW(R2, R6, PY_TID);
        a.jeq(R1, R2, haveTs);
        a.bind(scan);
        a.ldxDW(R8, R6, PY_VALUE + V_RUNTIME);
        read8(a, R8, V_INTERPS, back);
        a.ldxDW(R8, R6, PY_TMP);
        a.jeqImm(R8, 0, back);
        read8(a, R8, V_THREADS, back);
        a.ldxDW(R9, R6, PY_TMP);
        for (int i = 0; i < MAX_SCAN; i++) {
            BpfAssembler.Label check = a.label("check");
            BpfAssembler.Label step = a.label("step");
            a.jneImm(R9, 0, check);
            read8(a, R8, V_INTERP_NEXT, back); // this interpreter's threads are done: the next one's
            a.ldxDW(R8, R6, PY_TMP);
            a.jeqImm(R8, 0, back);
            read8(a, R8, V_THREADS, back);
            a.ldxDW(R9, R6, PY_TMP);
            a.ja(step);
            a.bind(check);
            read8(a, R9, V_NATIVE_ID, back);
            a.ldxW(R1, R6, PY_TMP).ldxW(R2, R6, PY_TID);
            a.jeq(R1, R2, found);
            read8(a, R9, V_TS_NEXT, back);
            a.ldxDW(R9, R6, PY_TMP);
            a.bind(step);
        }
        a.ja(back);
        a.bind(found);
        a.stxDW(R10, -16, R9);
        a.ldxW(R1, R6, PY_TID).stxW(R10, -8, R1);
        a.ldMapFd(R1, s.pythreadsFd()).mov(R2, R10).addImm(R2, -8).mov(R3, R10).addImm(R3, -16).movImm(R4, Bpf.ANY);
        a.call(Bpf.FUNC_MAP_UPDATE_ELEM);
        a.ldxDW(R9, R10, -16);
        a.bind(haveTs);
        a.ldxH(R1, R6, PY_VALUE + V_CFRAME);
        a.jeqImm(R1, NONE, noCframe);
        read8(a, R9, V_CFRAME, back); // 3.11/3.12: the current frame is in the _PyCFrame
        a.ldxDW(R9, R6, PY_TMP);
        a.jeqImm(R9, 0, back);
        a.bind(noCframe);
        read8(a, R9, V_CURRENT, back);
        a.ldxDW(R1, R6, PY_TMP).stxDW(R6, PY_CURSOR, R1);
        a.stW(R6, PY_STATE, 1);

        a.bind(walking);
        for (int i = 0; i < FRAMES_PER_RUN; i++) {
            frame(a, s, back, done);
        }
        // A long activation: run again for its next frames.
        a.mov(R1, R7).ldMapFd(R2, s.progsFd()).movImm(R3, PROG_PYTHON).tailCall();
        a.ja(back);
        a.bind(done);
        a.stW(R6, PY_STATE, 2);
        a.bind(back);
        // Back to the native walk: the continuation counts itself a tail of the walk, which this is not.
        a.ldxW(R1, R6, TAILS).subImm(R1, 1).stxW(R6, TAILS, R1);
        a.mov(R1, R7).ldMapFd(R2, s.progsFd()).movImm(R3, PROG_CONTINUE).tailCall();
        a.ldxW(R1, R6, TAILS).addImm(R1, 1).stxW(R6, TAILS, R1);
        a.stW(R6, STATUS, WalkerProgram.DEPTH); // the kernel's tail-call limit: the stack ends here
        a.ja(finish);
        WalkerProgram.finish(a, s, finish, out);
        return a.build();
    }

    /** PY_TMP = *(u64 *)(base + value's u16 field); on a failed read go to {@code fail}. Clobbers R0–R5. */
    private static void read8(BpfAssembler a, int base, int field, BpfAssembler.Label fail) {
        a.mov(R1, R6).addImm(R1, PY_TMP).movImm(R2, 8);
        a.ldxH(R3, R6, PY_VALUE + field).add(R3, base);
        a.call(Bpf.FUNC_PROBE_READ_USER);
        a.jneImm(R0, 0, fail);
    }

    /** R1 = the scratch pointer to the frame buffer at the value's u16 field (masked into the buffer). */
    private static void field(BpfAssembler a, int dst, int field) {
        a.ldxH(R1, R6, PY_VALUE + field).andImm(R1, 0x7f);
        a.mov(dst, R6).add(dst, R1);
    }

    /** One Python frame at the cursor: read it, move the cursor, push it or end the activation. */
    private static void frame(BpfAssembler a, WalkerProgram.Spec s, BpfAssembler.Label back, BpfAssembler.Label done) {
        BpfAssembler.Label next = a.label("pyNext");
        BpfAssembler.Label positive = a.label("positive");
        BpfAssembler.Label clamped = a.label("clamped");
        BpfAssembler.Label high = a.label("high");
        a.ldxDW(R8, R6, PY_CURSOR);
        a.jeqImm(R8, 0, done);
        a.ldxW(R1, R6, N);
        a.jgeImm(R1, MAX_FRAMES, done);
        a.ldxH(R2, R6, PY_VALUE + V_FRAME_SIZE).andImm(R2, 0x7f);
        a.jeqImm(R2, 0, done);
        a.mov(R1, R6).addImm(R1, PY_BUF).mov(R3, R8);
        a.call(Bpf.FUNC_PROBE_READ_USER);
        a.jneImm(R0, 0, done);
        field(a, R2, V_PREVIOUS);
        a.ldxDW(R9, R2, PY_BUF).stxDW(R6, PY_CURSOR, R9);
        // An entry frame (3.12+): the activation's frames are all pushed.
        field(a, R2, V_OWNER);
        a.ldxB(R1, R2, PY_BUF).ldxB(R2, R6, PY_VALUE + V_NOT_PYTHON);
        a.jge(R1, R2, back);
        field(a, R2, V_EXECUTABLE);
        a.ldxDW(R8, R2, PY_BUF);
        a.ldxB(R2, R6, PY_VALUE + V_TAG_MASK).xorImm(R2, -1).and(R8, R2);
        a.jeqImm(R8, 0, next); // a frame being pushed: no code yet
        if (s.pythonLines()) {
            field(a, R2, V_INSTR);
            a.ldxDW(R9, R2, PY_BUF).sub(R9, R8);
            a.ldxH(R2, R6, PY_VALUE + V_ADAPTIVE).sub(R9, R2);
            a.addImm(R9, 2).arshImm(R9, 1); // instruction index + 1
            a.jsgtImm(R9, 0, positive);
            a.movImm(R9, 0);
            a.ja(clamped);
            a.bind(positive);
            a.jsgtImm(R9, MAX_INSTRUCTION, high);
            a.ja(clamped);
            a.bind(high);
            a.movImm(R9, MAX_INSTRUCTION);
            a.bind(clamped);
            a.lshImm(R9, 44);
            a.mov(R1, R8).rshImm(R1, 3).or(R1, R9);
            a.ldImm64(R2, TAG | (long) KIND_LINE << 56).or(R1, R2);
        } else {
            a.mov(R1, R8).rshImm(R1, 3);
            a.ldImm64(R2, TAG | (long) KIND_FUNCTION << 56).or(R1, R2);
        }
        a.ldxW(R2, R6, N);
        a.mov(R3, R2).andImm(R3, FRAME_SLOTS - 1).lshImm(R3, 3).add(R3, R6);
        a.stxDW(R3, FRAMES, R1);
        a.addImm(R2, 1).stxW(R6, N, R2);
        WalkerProgram.mixHash(a);
        // 3.11: the activation's outermost frame has is_entry set.
        a.ldxH(R1, R6, PY_VALUE + V_IS_ENTRY);
        a.jeqImm(R1, NONE, next);
        field(a, R2, V_IS_ENTRY);
        a.ldxB(R1, R2, PY_BUF);
        a.jneImm(R1, 0, back);
        a.bind(next);
    }
}
