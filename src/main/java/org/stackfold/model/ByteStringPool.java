package org.stackfold.model;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Interns byte strings to dense int ids, in order of first appearance.
 *
 * <p>Names are kept as the bytes they arrived as (profiles carry invalid UTF-8 often enough), in one
 * growing arena, so interning a name seen before allocates nothing. This is the hot path of every
 * parser: the hash is computed once by the caller's loop-friendly {@link #hash} and probing compares
 * bytes in place.
 */
public final class ByteStringPool {
    private byte[] arena = new byte[1 << 16];
    private int arenaSize;
    private int[] offsets = new int[1024];
    private int[] lengths = new int[1024];
    private int[] hashes = new int[1024];
    private int size;
    private int[] table = new int[2048]; // id + 1; 0 = empty
    private int mask = table.length - 1;

    public int size() {
        return size;
    }

    /** The hash {@link #intern(byte[], int, int)} uses: {@link ByteWords#hash}, eight bytes at a time. */
    public static int hash(byte[] b, int off, int len) {
        return ByteWords.hash(b, off, len);
    }

    public int intern(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return intern(b, 0, b.length);
    }

    public int intern(byte[] b, int off, int len) {
        return intern(b, off, len, hash(b, off, len));
    }

    /** Returns the id of the string, adding it if new; {@code h} must be {@link #hash} of it. */
    public int intern(byte[] b, int off, int len, int h) {
        int slot = h & mask;
        while (true) {
            int e = table[slot];
            if (e == 0) {
                return add(b, off, len, h, slot);
            }
            int id = e - 1;
            if (hashes[id] == h && lengths[id] == len && ByteWords.equal(arena, offsets[id], b, off, len)) {
                return id;
            }
            slot = (slot + 1) & mask;
        }
    }

    /** The id of the string, or -1 where it was never interned. */
    public int find(byte[] b, int off, int len) {
        int h = hash(b, off, len);
        int slot = h & mask;
        while (true) {
            int e = table[slot];
            if (e == 0) {
                return -1;
            }
            int id = e - 1;
            if (hashes[id] == h && lengths[id] == len && ByteWords.equal(arena, offsets[id], b, off, len)) {
                return id;
            }
            slot = (slot + 1) & mask;
        }
    }

    private int add(byte[] b, int off, int len, int h, int slot) {
        if (arenaSize + len > arena.length || arenaSize + len < 0) {
            long want = Math.max((long) arena.length * 2, (long) arenaSize + len);
            if (want > Integer.MAX_VALUE - 16) {
                want = Integer.MAX_VALUE - 16;
                if (arenaSize + (long) len > want) {
                    throw new IllegalStateException("more than 2 GiB of distinct frame names");
                }
            }
            arena = Arrays.copyOf(arena, (int) want);
        }
        System.arraycopy(b, off, arena, arenaSize, len);
        int id = size++;
        if (id == offsets.length) {
            int n = id * 2;
            offsets = Arrays.copyOf(offsets, n);
            lengths = Arrays.copyOf(lengths, n);
            hashes = Arrays.copyOf(hashes, n);
        }
        offsets[id] = arenaSize;
        lengths[id] = len;
        hashes[id] = h;
        arenaSize += len;
        table[slot] = id + 1;
        if (size * 2 > table.length) {
            rehash();
        }
        return id;
    }

    private void rehash() {
        int[] t = new int[table.length * 2];
        int m = t.length - 1;
        for (int id = 0; id < size; id++) {
            int slot = hashes[id] & m;
            while (t[slot] != 0) {
                slot = (slot + 1) & m;
            }
            t[slot] = id + 1;
        }
        table = t;
        mask = m;
    }

    public int length(int id) {
        return lengths[id];
    }

    public byte[] bytes(int id) {
        return Arrays.copyOfRange(arena, offsets[id], offsets[id] + lengths[id]);
    }

    /** Copies the string's bytes to {@code dst} at {@code at}; returns the index after them. */
    public int copyTo(int id, byte[] dst, int at) {
        System.arraycopy(arena, offsets[id], dst, at, lengths[id]);
        return at + lengths[id];
    }

    public void writeTo(int id, OutputStream out) throws IOException {
        out.write(arena, offsets[id], lengths[id]);
    }

    /** Decodes as UTF-8; malformed bytes become U+FFFD. */
    public String string(int id) {
        return new String(arena, offsets[id], lengths[id], StandardCharsets.UTF_8);
    }

    /** Unsigned byte order, as {@code LC_ALL=C sort} orders. */
    public int compare(int a, int b) {
        return Arrays.compareUnsigned(arena, offsets[a], offsets[a] + lengths[a],
                arena, offsets[b], offsets[b] + lengths[b]);
    }

    /**
     * Unsigned byte order of the strings each followed by {@code terminator}: with ';' this is the
     * order of frame names inside folded stacks, where a name is followed by the next frame.
     */
    public int compareTerminated(int a, int b, int terminator) {
        return compareTerminated(a, terminator, b, terminator);
    }

    /**
     * Unsigned byte order of string {@code a} followed by byte {@code ta} and string {@code b}
     * followed by {@code tb} (terminators 0..255).
     */
    public int compareTerminated(int a, int ta, int b, int tb) {
        int oa = offsets[a];
        int la = lengths[a];
        int ob = offsets[b];
        int lb = lengths[b];
        int m = Arrays.mismatch(arena, oa, oa + la, arena, ob, ob + lb);
        if (m < 0) {
            return Integer.compare(ta, tb);
        }
        int ca = m < la ? arena[oa + m] & 0xff : ta;
        int cb = m < lb ? arena[ob + m] & 0xff : tb;
        return ca != cb ? Integer.compare(ca, cb) : Integer.compare(la, lb); // a terminator inside the other: shorter first
    }

    /** True where string {@code id} is longer than {@code prefix} and starts with it. */
    public boolean startsWith(int id, int prefix) {
        int lp = lengths[prefix];
        return lengths[id] > lp && Arrays.equals(arena, offsets[id], offsets[id] + lp,
                arena, offsets[prefix], offsets[prefix] + lp);
    }

    public boolean contains(int id, byte x) {
        for (int i = offsets[id], end = i + lengths[id]; i < end; i++) {
            if (arena[i] == x) {
                return true;
            }
        }
        return false;
    }

    /** Bytes held, for memory accounting. */
    public long footprint() {
        return arena.length + 12L * offsets.length + 4L * table.length;
    }
}
