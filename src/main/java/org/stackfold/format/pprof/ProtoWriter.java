package org.stackfold.format.pprof;

import java.util.Arrays;

/**
 * A minimal protobuf wire-format encoder: varints (wire type 0) and length-delimited fields
 * (wire type 2) are all {@code profile.proto} needs. Bytes go into one growable array; a nested
 * message is encoded into its own writer and appended with its length.
 */
final class ProtoWriter {
    static final int VARINT = 0;
    static final int LEN = 2;

    private byte[] buf;
    private int size;

    ProtoWriter() {
        this(256);
    }

    ProtoWriter(int capacity) {
        buf = new byte[Math.max(16, capacity)];
    }

    int size() {
        return size;
    }

    byte[] array() {
        return buf;
    }

    void reset() {
        size = 0;
    }

    private void ensure(int more) {
        if (buf.length - size < more) {
            long want = Math.max((long) buf.length * 2, (long) size + more);
            if (want > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("pprof message larger than 2 GiB");
            }
            buf = Arrays.copyOf(buf, (int) want);
        }
    }

    void rawVarint(long v) {
        ensure(10);
        while ((v & ~0x7FL) != 0) {
            buf[size++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[size++] = (byte) v;
    }

    static int varintSize(long v) {
        int n = 1;
        while ((v & ~0x7FL) != 0) {
            n++;
            v >>>= 7;
        }
        return n;
    }

    void tag(int field, int wireType) {
        rawVarint(((long) field << 3) | wireType);
    }

    /** A varint field; zero is the default and, as in proto3, is not written. */
    void varint(int field, long v) {
        if (v != 0) {
            tag(field, VARINT);
            rawVarint(v);
        }
    }

    void bytes(int field, byte[] b, int off, int len) {
        tag(field, LEN);
        rawVarint(len);
        ensure(len);
        System.arraycopy(b, off, buf, size, len);
        size += len;
    }

    void message(int field, ProtoWriter sub) {
        bytes(field, sub.buf, 0, sub.size);
    }

    /** A packed repeated varint field (proto3's default encoding for repeated scalars). */
    void packed(int field, long[] values, int count) {
        if (count == 0) {
            return;
        }
        int len = 0;
        for (int i = 0; i < count; i++) {
            len += varintSize(values[i]);
        }
        tag(field, LEN);
        rawVarint(len);
        for (int i = 0; i < count; i++) {
            rawVarint(values[i]);
        }
    }
}
