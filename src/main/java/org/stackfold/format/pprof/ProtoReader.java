package org.stackfold.format.pprof;

import org.stackfold.io.InputException;

/**
 * A bounds-checked protobuf wire-format decoder over one byte array. Every length is checked
 * against the bytes left in the enclosing message before anything is allocated or skipped, so a
 * lying length is an {@link InputException} naming the byte offset, never an out-of-bounds read or
 * a huge allocation.
 */
final class ProtoReader {
    static final int VARINT = 0;
    static final int I64 = 1;
    static final int LEN = 2;
    static final int I32 = 5;

    private final byte[] b;
    private final String source;
    private int pos;
    private int limit;

    ProtoReader(byte[] b, String source, int from, int to) {
        this.b = b;
        this.source = source;
        this.pos = from;
        this.limit = to;
    }

    /** A reader over a nested message [from, to) of the same buffer. */
    ProtoReader sub(int from, int to) {
        return new ProtoReader(b, source, from, to);
    }

    byte[] buffer() {
        return b;
    }

    int pos() {
        return pos;
    }

    boolean more() {
        return pos < limit;
    }

    InputException error(long offset, String what) {
        return InputException.atOffset(source, offset, "pprof: " + what);
    }

    long varint() {
        int start = pos;
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (pos >= limit) {
                throw error(start, "truncated varint");
            }
            byte x = b[pos++];
            v |= (long) (x & 0x7F) << shift;
            if (x >= 0) {
                return v;
            }
        }
        throw error(start, "varint longer than 10 bytes");
    }

    /** The next field's tag: field number << 3 | wire type. */
    int tag() {
        int at = pos;
        long t = varint();
        if (t >>> 3 == 0 || t >>> 3 > Integer.MAX_VALUE >>> 3) {
            throw error(at, "bad field number " + (t >>> 3));
        }
        int wire = (int) (t & 7);
        if (wire != VARINT && wire != I64 && wire != LEN && wire != I32) {
            throw error(at, "unsupported wire type " + wire + " for field " + (t >>> 3));
        }
        return (int) t;
    }

    /** Reads a length prefix and checks it against what is left; returns the end offset. */
    int lengthEnd() {
        int at = pos;
        long len = varint();
        if (len < 0 || len > limit - pos) {
            throw error(at, "length " + Long.toUnsignedString(len) + " exceeds the " + (limit - pos)
                    + " bytes left in the message");
        }
        return pos + (int) len;
    }

    void skip(int wireType) {
        int at = pos;
        switch (wireType) {
            case VARINT -> varint();
            case I64 -> advance(at, 8);
            case I32 -> advance(at, 4);
            case LEN -> pos = lengthEnd();
            default -> throw error(at, "unsupported wire type " + wireType);
        }
    }

    private void advance(int at, int n) {
        if (limit - pos < n) {
            throw error(at, "truncated fixed-width field");
        }
        pos += n;
    }

    /** Moves to {@code to}, which must be within the message (after {@link #lengthEnd}). */
    void seek(int to) {
        pos = to;
    }

    /**
     * Reads a repeated varint field that may be packed (LEN) or not (one VARINT) into {@code out}
     * from {@code count}; returns the new count.
     */
    long[] repeated(int wireType, long[] out, int[] count) {
        if (wireType == VARINT) {
            out = room(out, count[0] + 1);
            out[count[0]++] = varint();
            return out;
        }
        if (wireType != LEN) {
            throw error(pos, "wire type " + wireType + " for a repeated integer field");
        }
        int end = lengthEnd();
        int saved = limit;
        limit = end;
        while (pos < end) {
            out = room(out, count[0] + 1);
            out[count[0]++] = varint();
        }
        limit = saved;
        return out;
    }

    private static long[] room(long[] a, int n) {
        return n <= a.length ? a : java.util.Arrays.copyOf(a, Math.max(n, a.length * 2));
    }
}
