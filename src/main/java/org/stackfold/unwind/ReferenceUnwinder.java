package org.stackfold.unwind;

/**
 * Walks a user stack over {@link UnwindTable} rows with the algorithm of the BPF walker, step for
 * step (docs/unwind.md): the leaf is looked up at its exact pc, callers at pc − 1; CFA = rsp or rbp
 * + offset, or the PLT rule; the return address at CFA − 8; rbp at CFA + offset where the row says
 * it was saved; a signal frame restores rbp, rsp and rip from the {@code ucontext} at sp + 40; code
 * that no file covers (JIT) gets one frame-pointer step. Not thread-safe: one instance per thread.
 */
public final class ReferenceUnwinder {
    /** How a walk ended, as the BPF walker's end status. */
    public enum End {
        /** A stop row: the return address is undefined (_start, clone3). */
        ROOT,
        /** No row covers the pc (a gap between functions, or code without CFI). */
        NO_INFO,
        /** The pc lies in no mapping and the frame-pointer step failed. */
        NO_MAPPING,
        /** The file mapped at the pc has no table. */
        NO_TABLE,
        /** The stack memory needed was not available (outside the copied stack). */
        READ_FAULT,
        /** The frame limit was reached. */
        DEPTH,
        /** A row the walker cannot follow. */
        UNSUPPORTED,
        /** A return address of 0. */
        ZERO_PC
    }

    /** 8 bytes of the process's memory. */
    public interface Memory {
        /** Reads the little-endian u64 at {@code address} into {@code out[0]}; false where it is not available. */
        boolean read(long address, long[] out);
    }

    /** What covers a runtime address. */
    public interface Modules {
        /**
         * The module holding {@code address}: null where no mapping does (the walker tries a
         * frame-pointer step), else its table (null: a file without one) and load bias.
         */
        Module find(long address);
    }

    /**
     * A mapped file's table and bias (runtime address − ELF address); {@code jit} for executable
     * memory that no file backs, which gets a frame-pointer step.
     */
    public record Module(UnwindTable table, long bias, boolean jit) {
    }

    /** The ucontext's mcontext gregs start at sp + 40 in an rt_sigframe; rbp, rsp and rip are gregs 10, 15 and 16. */
    static final int SIGFRAME_GREGS = 40;
    static final int GREG_RBP = 10;
    static final int GREG_RSP = 15;
    static final int GREG_RIP = 16;
    /** A frame-pointer step accepts a frame at most this far above sp. */
    static final long FP_MAX_FRAME = 1 << 20;

    private final int maxFrames;
    private final long[] frames;
    private final boolean[] exact;
    private final long[] word = new long[1];
    private int count;
    private End end;
    private int signalFrames;
    private int fpSteps;

    /** A walker of at most {@code maxFrames} frames (the BPF walker's 128). */
    public ReferenceUnwinder(int maxFrames) {
        this.maxFrames = maxFrames;
        this.frames = new long[maxFrames];
        this.exact = new boolean[maxFrames];
    }

    /**
     * Unwinds from the registers of the interrupted code; returns the number of frames (the leaf
     * first). Frames are pcs: the leaf's and those after a signal frame exact, the others return
     * addresses.
     */
    public int unwind(long ip, long sp, long bp, Memory memory, Modules modules) {
        count = 0;
        end = null;
        long pc = ip;
        boolean isExact = true;
        while (true) {
            if (pc == 0) {
                end = End.ZERO_PC;
                break;
            }
            if (count >= maxFrames) {
                end = End.DEPTH;
                break;
            }
            frames[count] = pc;
            exact[count++] = isExact;
            long lookup = isExact ? pc : pc - 1;
            Module m = modules.find(lookup);
            if (m == null || m.jit()) {
                // code no file covers: one frame-pointer step
                if (Long.compareUnsigned(bp, sp) > 0 && bp - sp < FP_MAX_FRAME && memory.read(bp, word)) {
                    long savedBp = word[0];
                    if (memory.read(bp + 8, word) && word[0] != 0) {
                        sp = bp + 16;
                        bp = savedBp;
                        pc = word[0];
                        isExact = false;
                        fpSteps++;
                        continue;
                    }
                }
                end = End.NO_MAPPING;
                break;
            }
            if (m.table() == null) {
                end = End.NO_TABLE;
                break;
            }
            long row = m.table().find(lookup - m.bias());
            long cfa;
            int type = UnwindRow.type(row);
            if (type == UnwindRow.RSP) {
                cfa = sp + UnwindRow.cfaOffset(row);
            } else if (type == UnwindRow.RBP) {
                cfa = bp + UnwindRow.cfaOffset(row);
            } else if (type == UnwindRow.PLT) {
                cfa = sp + 8 + ((lookup & 15) >= 11 ? 8 : 0);
            } else {
                int command = UnwindRow.value(row);
                if (command == UnwindRow.SIGNAL) {
                    long gregs = sp + SIGFRAME_GREGS;
                    if (!memory.read(gregs + 8 * GREG_RBP, word)) {
                        end = End.READ_FAULT;
                        break;
                    }
                    long newBp = word[0];
                    if (!memory.read(gregs + 8 * GREG_RSP, word)) {
                        end = End.READ_FAULT;
                        break;
                    }
                    long newSp = word[0];
                    if (!memory.read(gregs + 8 * GREG_RIP, word)) {
                        end = End.READ_FAULT;
                        break;
                    }
                    bp = newBp;
                    sp = newSp;
                    pc = word[0];
                    isExact = true; // the interrupted pc, not a return address
                    signalFrames++;
                    continue;
                }
                end = command == UnwindRow.STOP ? End.ROOT : command == UnwindRow.NO_INFO ? End.NO_INFO : End.UNSUPPORTED;
                break;
            }
            if (!memory.read(cfa - 8, word)) {
                end = End.READ_FAULT;
                break;
            }
            long ra = word[0];
            if (UnwindRow.rbp(row) != 0) {
                if (!memory.read(cfa + UnwindRow.rbpOffset(row), word)) {
                    end = End.READ_FAULT;
                    break;
                }
                bp = word[0];
            }
            sp = cfa;
            pc = ra;
            isExact = false;
        }
        return count;
    }

    public int count() {
        return count;
    }

    /** Frame {@code i} of the last walk (0 the leaf). */
    public long frame(int i) {
        return frames[i];
    }

    /** Whether frame {@code i} is an exact pc (the leaf, or the interrupted code under a signal frame) rather than a return address. */
    public boolean exact(int i) {
        return exact[i];
    }

    /** How the last walk ended. */
    public End end() {
        return end;
    }

    /** Signal frames crossed and frame-pointer steps taken by all walks so far. */
    public int signalFrames() {
        return signalFrames;
    }

    public int fpSteps() {
        return fpSteps;
    }
}
