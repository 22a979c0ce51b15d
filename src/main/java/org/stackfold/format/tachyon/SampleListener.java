package org.stackfold.format.tachyon;

/**
 * Receives the samples of a Tachyon file as {@link TachyonReplay} decodes them, in file order
 * (which is per-thread time order; repeated samples are written late, so threads interleave
 * out of global time order). Nothing is materialised beyond the current record.
 */
public interface SampleListener {
    /** A thread appeared for the first time (before its first stack or samples). */
    default void threadStarted(TachyonThread thread) {
    }

    /** A record of the given encoding ({@link Tachyon#REPEAT} ...) of this thread begins. */
    default void record(TachyonThread thread, int encoding) {
    }

    /**
     * The thread's stack changed; its bottom {@code kept} frames are unchanged since the last
     * call for this thread, so a listener caching a path may reuse that much of it.
     */
    default void stackChanged(TachyonThread thread, int kept) {
    }

    /**
     * {@code count} samples of the thread, all with its current stack and the same status byte,
     * at {@code timestamps[0..count)} (microseconds, unsigned, modulo 2^64). The array is reused
     * after the call returns.
     */
    void samples(TachyonThread thread, int status, long[] timestamps, int count);
}
