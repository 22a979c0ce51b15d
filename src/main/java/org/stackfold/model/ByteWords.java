package org.stackfold.model;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Byte searches and hashing eight bytes at a time (SWAR: one {@code long} holds eight bytes, little
 * endian, so byte {@code k} of a word is bits {@code 8k..8k+7}). The parsers' hot loops find line
 * ends and frame separators with these instead of a compare per byte.
 */
public final class ByteWords {
    private static final VarHandle LONGS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long MUL = 0x9E3779B97F4A7C15L;
    /** Start value of a hash built with {@link #mix}. */
    public static final long HASH_START = 0x2545F4914F6CDD1DL;

    private ByteWords() {
    }

    /** Eight copies of {@code c}, to pass to {@link #matches}. */
    public static long broadcast(char c) {
        return (c & 0xffL) * ONES;
    }

    /** The eight bytes at {@code b[i]}; {@code i + 8 <= b.length}. */
    public static long word(byte[] b, int i) {
        return (long) LONGS.get(b, i);
    }

    /**
     * The first {@code n} (0..8) bytes at {@code b[i]} with the rest zero; reads a whole word when
     * the array has one there, else byte by byte.
     */
    public static long partialWord(byte[] b, int i, int n) {
        if (n >= 8) {
            return word(b, i);
        }
        if (i + 8 <= b.length) {
            return word(b, i) & lowBytes(n);
        }
        long w = 0;
        for (int k = 0; k < n; k++) {
            w |= (b[i + k] & 0xffL) << (8 * k);
        }
        return w;
    }

    /** A mask of the low {@code n} bytes, 0 <= n <= 7 (n = 0 gives 0). */
    public static long lowBytes(int n) {
        return (1L << (8 * n)) - 1;
    }

    /**
     * Non-zero where some byte of {@code w} equals the byte broadcast in {@code pattern}; the lowest
     * set bit marks the first such byte exactly (higher bits may be false alarms, so only
     * {@link #firstIndex} of the result is meaningful).
     */
    public static long matches(long w, long pattern) {
        long x = w ^ pattern;
        return (x - ONES) & ~x & HIGHS;
    }

    /**
     * The byte index (0..7) of the lowest match of a {@link #matches} result (high bits of bytes
     * only); 8 for zero. By a multiply rather than {@link Long#numberOfTrailingZeros}, which C1 (the
     * launcher's JIT for most inputs) compiles as a call: the lowest bit isolated and moved to bit 0
     * of its byte, times 0x0001020304050607, leaves the byte's index in the top byte.
     */
    public static int firstIndex(long matches) {
        if (matches == 0) {
            return 8;
        }
        return (int) ((((matches & -matches) >>> 7) * 0x0001020304050607L) >>> 56);
    }

    /**
     * a[ao, ao+len) equals b[bo, bo+len): up to 64 bytes eight at a time, the last word overlapping
     * the one before. {@link java.util.Arrays#equals} is a chain of calls under C1 (the launcher's JIT
     * for most inputs): 14 ns a comparison of 12-64 bytes, against 6-14 ns for this loop (C2: 3-5
     * against 5-6 ns); past 64 bytes it is the faster. Interning names took 20% less time with it
     * under C1 ({@code info folded-1m} 1.17 -> 0.95 s); perf's line cache, whose lines are a third of
     * them up to 64 bytes, 0.88 -> 0.85 s of CPU for perf-400mb (medians of 12 alternated runs).
     */
    public static boolean equal(byte[] a, int ao, byte[] b, int bo, int len) {
        if (len > 64) {
            return java.util.Arrays.equals(a, ao, ao + len, b, bo, bo + len);
        }
        if (len < 8) {
            for (int i = 0; i < len; i++) {
                if (a[ao + i] != b[bo + i]) {
                    return false;
                }
            }
            return true;
        }
        int last = len - 8;
        for (int i = 0; i < last; i += 8) {
            if (word(a, ao + i) != word(b, bo + i)) {
                return false;
            }
        }
        return word(a, ao + last) == word(b, bo + last);
    }

    /** Folds one word of bytes into a hash. */
    public static long mix(long h, long w) {
        h = (h ^ w) * MUL;
        return h ^ (h >>> 31);
    }

    /** The 32-bit hash of bytes folded in with {@link #mix}, {@code len} of them. */
    public static int finish(long h, int len) {
        h = (h ^ len) * MUL;
        return (int) (h ^ (h >>> 32));
    }

    /**
     * The hash of b[off, off+len): every whole word from {@code off} folded in with {@link #mix}, then
     * the last partial word (zero padded) if any, then {@link #finish}. Loops that find a name's end
     * word by word compute the same value on the way.
     */
    public static int hash(byte[] b, int off, int len) {
        long h = HASH_START;
        int i = off;
        int end = off + len;
        for (; i + 8 <= end; i += 8) {
            h = mix(h, word(b, i));
        }
        if (i < end) {
            h = mix(h, partialWord(b, i, end - i));
        }
        return finish(h, len);
    }
}
