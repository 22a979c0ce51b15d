package org.stackfold.format.folded;

import org.stackfold.model.ByteWords;

/**
 * The byte-level pieces of the folded syntax shared by the readers: white space, and the count at
 * the end of a record (digits, optionally {@code .digits}, as some tools write; the fraction is
 * truncated).
 */
final class FoldedSyntax {
    private static final long BELOW_14 = ByteWords.broadcast((char) 0x0E);
    private static final long HIGHS = 0x8080808080808080L;

    /** Returned by {@link #parseCount} for a count over 2^63-1. */
    static final long TOO_LARGE = -2;

    private FoldedSyntax() {
    }

    static boolean isSpace(byte c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == 0x0b;
    }

    /**
     * Line ends are {@code \n}, {@code \r\n} and a lone {@code \r} (old Mac tools): readers end a
     * line at either byte and take a {@code \n} right after a {@code \r} as part of that line end.
     */
    static boolean isLineEnd(byte c) {
        return c == '\n' || c == '\r';
    }

    /**
     * The first line end in b[from, to), or -1. Eight bytes at a time for any byte below 0x0E (one
     * test where '\n' or '\r' would be two; a tab or the like found so is passed over).
     */
    static int indexOfLineEnd(byte[] b, int from, int to) {
        int i = from;
        while (i + 8 <= to) {
            long w = ByteWords.word(b, i);
            long m = (w - BELOW_14) & ~w & HIGHS;
            if (m == 0) {
                i += 8;
                continue;
            }
            i += ByteWords.firstIndex(m);
            if (isLineEnd(b[i])) {
                return i;
            }
            i++;
        }
        for (; i < to; i++) {
            if (b[i] == '\n' || b[i] == '\r') {
                return i;
            }
        }
        return -1;
    }

    /** 3 where the data starts with a UTF-8 byte-order mark (Windows editors write one), else 0. */
    static long bomLength(org.stackfold.io.ByteView data) {
        return data.size() >= 3 && data.get(0) == (byte) 0xEF && data.get(1) == (byte) 0xBB
                && data.get(2) == (byte) 0xBF ? 3 : 0;
    }

    /** Where stack b comes in byte order after stack a: see {@link #follows}. */
    static final int BEFORE = -1;
    static final int AFTER = 0;
    static final int GOES_ON = 1;

    /**
     * How stack {@code b[bo, bo+bLen)} follows stack {@code a[ao, ao+aLen)} in byte order, given
     * {@code m} where they first differ (0 <= m <= both lengths; they are not equal): {@link #BEFORE}
     * where b comes first (below a at m, or a prefix of a), {@link #GOES_ON} where b goes on from all
     * of a with a byte below ';' (a's last frame, F, is followed by names going on from F's name: its
     * node is entered again after them, see {@code WidePass}), else {@link #AFTER}.
     */
    static int follows(byte[] a, int ao, int aLen, byte[] b, int bo, int bLen, int m) {
        if (m == bLen || m < aLen && (b[bo + m] & 0xff) < (a[ao + m] & 0xff)) {
            return BEFORE;
        }
        return m == aLen && (b[bo + m] & 0xff) < ';' ? GOES_ON : AFTER;
    }

    /** The number of frames ending before offset {@code m}, of a stack whose frames end at {@code ends[0, depth)}. */
    static int framesBefore(int[] ends, int depth, int m) {
        int k = 0;
        while (k < depth && ends[k] < m) {
            k++;
        }
        return k;
    }

    static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }

    /** Start of the number (digits, optionally {@code .digits}) that ends at {@code end}, or {@code end}. */
    static int numberStart(byte[] b, int start, int end) {
        int i = end;
        while (i > start && isDigit(b[i - 1])) {
            i--;
        }
        if (i > start + 1 && b[i - 1] == '.' && isDigit(b[i - 2])) {
            i--;
            while (i > start && isDigit(b[i - 1])) {
                i--;
            }
        }
        return i;
    }

    /** The number in b[s, e) (as {@link #numberStart} found it), fraction truncated; or {@link #TOO_LARGE}. */
    static long parseCount(byte[] b, int s, int e) {
        long v = 0;
        for (int i = s; i < e && b[i] != '.'; i++) {
            int d = b[i] - '0';
            if (v > (Long.MAX_VALUE - d) / 10) {
                return TOO_LARGE;
            }
            v = v * 10 + d;
        }
        return v;
    }

    /** True where the number in b[s, e) has a fraction that truncation loses ({@code 1.5}, not {@code 2.0}). */
    static boolean losesFraction(byte[] b, int s, int e) {
        boolean inFraction = false;
        for (int i = s; i < e; i++) {
            if (b[i] == '.') {
                inFraction = true;
            } else if (inFraction && b[i] != '0') {
                return true;
            }
        }
        return false;
    }
}
