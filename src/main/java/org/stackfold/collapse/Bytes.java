package org.stackfold.collapse;

import java.nio.charset.StandardCharsets;

/**
 * Byte-range helpers for the line-oriented collapsers: a line is {@code buf[start, end)} of a
 * {@link LineReader}, and these find, compare and trim inside it without making a String. Text
 * arguments are ASCII (the delimiters and keywords of the formats).
 */
final class Bytes {
    private Bytes() {
    }

    static boolean startsWith(byte[] b, int start, int end, String prefix) {
        int n = prefix.length();
        if (end - start < n) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (b[start + i] != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    static boolean endsWith(byte[] b, int start, int end, String suffix) {
        return end - start >= suffix.length() && startsWith(b, end - suffix.length(), end, suffix);
    }

    /** The first index of {@code c} in {@code [from, end)}, or -1. */
    static int indexOf(byte[] b, int from, int end, int c) {
        for (int i = from; i < end; i++) {
            if (b[i] == c) {
                return i;
            }
        }
        return -1;
    }

    /** The last index of {@code c} in {@code [start, end)}, or -1. */
    static int lastIndexOf(byte[] b, int start, int end, int c) {
        for (int i = end - 1; i >= start; i--) {
            if (b[i] == c) {
                return i;
            }
        }
        return -1;
    }

    /** The first index of {@code text} in {@code [from, end)}, or -1. */
    static int indexOf(byte[] b, int from, int end, String text) {
        int n = text.length();
        if (n == 0) {
            return from;
        }
        char first = text.charAt(0);
        for (int i = from; i <= end - n; i++) {
            if (b[i] == first && startsWith(b, i, end, text)) {
                return i;
            }
        }
        return -1;
    }

    static boolean contains(byte[] b, int start, int end, String text) {
        return indexOf(b, start, end, text) >= 0;
    }

    /** The first index at or after {@code from} that is not ASCII whitespace, or {@code end}. */
    static int skipSpace(byte[] b, int from, int end) {
        while (from < end && Text.isSpace(b[from])) {
            from++;
        }
        return from;
    }

    /** The end of {@code [start, end)} without trailing ASCII whitespace. */
    static int trimEnd(byte[] b, int start, int end) {
        while (end > start && Text.isSpace(b[end - 1])) {
            end--;
        }
        return end;
    }

    /** The first index at or after {@code from} that is ASCII whitespace, or {@code end}. */
    static int skipNonSpace(byte[] b, int from, int end) {
        while (from < end && !Text.isSpace(b[from])) {
            from++;
        }
        return from;
    }

    /** The end of a run of ASCII digits starting at {@code from}. */
    static int skipDigits(byte[] b, int from, int end) {
        while (from < end && b[from] >= '0' && b[from] <= '9') {
            from++;
        }
        return from;
    }

    /**
     * The unsigned decimal value of {@code [start, end)}: -1 where it is empty or not all digits,
     * -2 where it is digits but larger than a long.
     */
    static long parseCount(byte[] b, int start, int end) {
        if (start >= end) {
            return -1;
        }
        long v = 0;
        boolean overflow = false;
        for (int i = start; i < end; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                return -1;
            }
            if (v > (Long.MAX_VALUE - d) / 10) {
                overflow = true;
            } else {
                v = v * 10 + d;
            }
        }
        return overflow ? -2 : v;
    }

    /** The range as a String, one char per byte (for messages and rare paths). */
    static String latin1(byte[] b, int start, int end) {
        return new String(b, start, end - start, StandardCharsets.ISO_8859_1);
    }

    /** The line of {@code r} without a trailing {@code \r} (CRLF files): its end index. */
    static int lineEnd(LineReader r) {
        int end = r.end();
        return end > r.start() && r.buffer()[end - 1] == '\r' ? end - 1 : end;
    }
}
