package org.stackfold.perf;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import org.stackfold.model.ByteWords;

/** Byte helpers of the perf parser: whitespace, and the one-pass newline search + line hash. */
public final class PerfBytes {
    private static final VarHandle LONGS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long NL = 0x0A0A0A0A0A0A0A0AL;
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long SEED = 0x2545F4914F6CDD1DL;
    private static final long MUL = 0x9E3779B97F4A7C15L;

    private PerfBytes() {
    }

    /**
     * Space, tab, vertical tab, form feed or carriage return. Written as a range so that its
     * bytecode stays under C1's inlining limit (35 bytes; five comparisons took 36): called for
     * most bytes of event lines and blank-line checks.
     */
    public static boolean isSpace(byte c) {
        return c == ' ' || (c >= '\t' && c <= '\r' && c != '\n');
    }

    /**
     * a[as, ae) equals b[bs, be), as a call of its own, for code that runs once per new frame line or
     * per event: the launcher force-inlines Arrays.equals for the per-line paths (C1 would leave it a
     * chain of calls), and inlined into these it only grew their compiled code (FrameNamer.piece 8.7 KB,
     * 7 ms of C1); the launcher keeps this method out of line.
     */
    public static boolean same(byte[] a, int as, int ae, byte[] b, int bs, int be) {
        return java.util.Arrays.equals(a, as, ae, b, bs, be);
    }

    private static long mix(long h, long w) {
        h = (h ^ w) * MUL;
        return h ^ (h >>> 31);
    }

    private static int finish(long h, int len) {
        h = (h ^ len) * MUL;
        return (int) (h ^ (h >>> 32));
    }

    /**
     * Finds the next {@code '\n'} in b[from, limit) and hashes the bytes before it in the same pass,
     * 8 bytes at a time. Returns the newline's index, or -1 where there is none before limit (the
     * hash is then meaningless). The hash goes to {@code hashOut[0]}. Whole 8-byte words are read
     * only below {@code limit}; the last few bytes are scanned one by one. The hash of a line is the
     * same however the buffer is filled, since words are counted from the line's start.
     */
    public static int scanLine(byte[] b, int from, int limit, int[] hashOut) {
        long h = SEED;
        int i = from;
        int wordEnd = limit - 8;
        while (i <= wordEnd) {
            long w = (long) LONGS.get(b, i);
            long x = w ^ NL;
            long t = (x - ONES) & ~x & HIGHS;
            if (t != 0) {
                int k = ByteWords.firstIndex(t);
                if (k > 0) {
                    h = mix(h, w & (-1L >>> (64 - 8 * k)));
                }
                hashOut[0] = finish(h, i + k - from);
                return i + k;
            }
            h = mix(h, w);
            i += 8;
        }
        long w = 0;
        int k = 0;
        for (; i < limit; i++) {
            byte c = b[i];
            if (c == '\n') {
                if (k > 0) {
                    h = mix(h, w);
                }
                hashOut[0] = finish(h, i - from);
                return i;
            }
            w |= (c & 0xffL) << (8 * k);
            k++;
        }
        return -1;
    }

    /** The hash {@link #scanLine} gives b[from, end) when a newline follows at end. */
    public static int hash(byte[] b, int from, int end) {
        long h = SEED;
        int i = from;
        for (; i + 8 <= end; i += 8) {
            h = mix(h, (long) LONGS.get(b, i));
        }
        long w = 0;
        int k = 0;
        for (; i < end; i++) {
            w |= (b[i] & 0xffL) << (8 * k);
            k++;
        }
        if (k > 0) {
            h = mix(h, w);
        }
        return finish(h, end - from);
    }
}
