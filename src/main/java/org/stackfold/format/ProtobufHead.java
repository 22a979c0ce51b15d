package org.stackfold.format;

/** Protobuf wire reading for content detection: the protobuf formats (pprof, OTLP) test a file's head by its fields. */
public final class ProtobufHead {
    private ProtobufHead() {
    }

    /** Reads a varint at {@code pos} into {@code value[0]}; returns the offset after it, or -1 if cut off or too long. */
    public static int varint(byte[] b, int pos, int length, long[] value) {
        long v = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            if (pos >= length) {
                return -1;
            }
            byte x = b[pos++];
            v |= (long) (x & 0x7F) << shift;
            if (x >= 0) {
                value[0] = v;
                return pos;
            }
        }
        return -1;
    }
}
