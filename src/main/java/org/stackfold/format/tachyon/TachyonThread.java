package org.stackfold.format.tachyon;

/**
 * One thread of a replay, keyed by (thread id, interpreter id): its current stack, root first,
 * as frame-table indices, and its last timestamp. Listeners may keep per-thread state in arrays
 * indexed by {@link #ordinal()} (threads are numbered in order of first appearance).
 */
public final class TachyonThread {
    final long threadId;
    final int interpreterId;
    final int ordinal;
    final int[] stack = new int[Tachyon.MAX_STACK_DEPTH];
    int depth;
    long prevTimestamp;
    long samples;
    /** Per-thread sample counts by status byte (for describe). */
    long[] statusCounts;

    TachyonThread(long threadId, int interpreterId, int ordinal, long startTime) {
        this.threadId = threadId;
        this.interpreterId = interpreterId;
        this.ordinal = ordinal;
        this.prevTimestamp = startTime;
    }

    /** The thread id (unsigned 64-bit). */
    public long threadId() {
        return threadId;
    }

    /** The interpreter id (unsigned 32-bit). */
    public int interpreterId() {
        return interpreterId;
    }

    public int ordinal() {
        return ordinal;
    }

    public int depth() {
        return depth;
    }

    /** Frame-table index at depth {@code i}; 0 is the outermost frame. */
    public int frame(int i) {
        return stack[i];
    }

    /** Samples of this thread delivered so far. */
    public long samples() {
        return samples;
    }
}
