package org.stackfold.render.flamegraph;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * inferno's {@code --no-sort} promise check: the (trimmed, non-blank, non-{@code # }) lines of the
 * input must already be in byte order. Streams over the bytes comparing each line with the one before.
 */
public final class SortCheck {
    private long prevStart = -1;
    private long prevEnd = -1;
    private MemorySegment prevData;
    private long lines;

    /** Checks one input (inputs are checked as if concatenated); returns the 1-based bad line or -1. */
    public long check(MemorySegment data) {
        long size = data.byteSize();
        long start = 0;
        long lineNo = 0;
        boolean afterCr = false;
        while (start < size) {
            long end = start;
            byte c = 0;
            while (end < size && (c = data.get(ValueLayout.JAVA_BYTE, end)) != '\n' && c != '\r') {
                end++;
            }
            if (afterCr && end == start && c == '\n') {
                afterCr = false; // the '\n' of a "\r\n"
                start = end + 1;
                continue;
            }
            afterCr = end < size && c == '\r';
            lineNo++;
            long s = start, e = end;
            while (s < e && isSpace(data.get(ValueLayout.JAVA_BYTE, s))) {
                s++;
            }
            while (e > s && isSpace(data.get(ValueLayout.JAVA_BYTE, e - 1))) {
                e--;
            }
            boolean skip = s == e || (data.get(ValueLayout.JAVA_BYTE, s) == '#' && (s + 1 == e
                    || data.get(ValueLayout.JAVA_BYTE, s + 1) == ' '));
            if (!skip) {
                if (prevData != null && compare(prevData, prevStart, prevEnd, data, s, e) > 0) {
                    return lines + lineNo;
                }
                prevData = data;
                prevStart = s;
                prevEnd = e;
            }
            start = end + 1;
        }
        lines += lineNo;
        return -1;
    }

    private static int compare(MemorySegment a, long as, long ae, MemorySegment b, long bs, long be) {
        long m = MemorySegment.mismatch(a, as, ae, b, bs, be);
        if (m < 0) {
            return 0;
        }
        if (m == ae - as) {
            return -1;
        }
        if (m == be - bs) {
            return 1;
        }
        return Integer.compare(a.get(ValueLayout.JAVA_BYTE, as + m) & 0xFF, b.get(ValueLayout.JAVA_BYTE, bs + m) & 0xFF);
    }

    private static boolean isSpace(byte c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == 0x0b;
    }
}
