package org.stackfold.io;

import java.lang.foreign.MemorySegment;

/**
 * Copies from a memory segment into a byte array, segment to segment. {@code MemorySegment.copy}
 * straight into an array finds the array's type through a pattern switch inside the JDK, whose first
 * use spins a class with the class-file API at run time (interpreted, and the AOT cache cannot keep
 * it): a few ms of every one-shot command that reads a mapped file.
 */
public final class SegmentBytes {
    private SegmentBytes() {
    }

    /** {@code dst[off, off + n)} = {@code src[at, at + n)}. */
    public static void copy(MemorySegment src, long at, byte[] dst, int off, int n) {
        MemorySegment.copy(src, at, MemorySegment.ofArray(dst), off, n);
    }
}
