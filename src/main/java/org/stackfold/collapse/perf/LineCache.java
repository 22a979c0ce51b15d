package org.stackfold.collapse.perf;

import java.util.Arrays;
import org.stackfold.model.ByteWords;

/**
 * Remembers what each distinct callchain line turned into: the same line bytes (address, symbol,
 * offset, module) always give the same frames, and a profile repeats its lines many times, so
 * after the first sight a line costs one hash probe and one byte comparison (both vectorised)
 * instead of parsing and interning. Keyed by the raw line bytes plus the Java-process flag (which
 * changes the names). The key bytes live in one arena that stops growing at a cap; past it, lines
 * are simply parsed again.
 *
 * <p>Each entry also remembers the two entries whose lines last followed it inside a sample
 * ({@link #predicted}): callchains repeat whole runs of lines, so the parser can compare the
 * next line against those directly, without searching its newline or hashing it first (on the
 * 400 MB benchmark the two guesses are right for 88% of the lines after a known line, the last
 * one alone for 78%).
 */
final class LineCache {
    private static final int MAX_ARENA = 32 << 20;
    private byte[] arena = new byte[1 << 16];
    private int arenaUsed;
    private final HashedEntries entries = new HashedEntries();
    private int[] next = new int[1024];
    private int[] next2 = new int[1024];

    private static int key(int hash, boolean java) {
        int h = java ? hash * 0x5bd1e995 + 1 : hash;
        return h ^ (h >>> 15);
    }

    /** The entry of the line, or -1. */
    int find(int hash, boolean java, byte[] b, int s, int e) {
        int h = key(hash, java);
        int len = e - s;
        HashedEntries t = entries;
        for (int slot = t.slot(h); ; slot = t.next(slot)) {
            int id = t.entry(slot);
            if (id < 0) {
                return -1;
            }
            if (t.hashes[id] == h && t.lengths[id] == len && ByteWords.equal(arena, t.offsets[id], b, s, len)) {
                return id;
            }
        }
    }

    /** The value stored with an entry. */
    int value(int id) {
        return entries.values[id];
    }

    /** The length of an entry's line. */
    int length(int id) {
        return entries.lengths[id];
    }

    /** Remembers the line; its entry, or -1 where the cache is full and did not keep it. */
    int put(int hash, boolean java, byte[] b, int s, int e, int value) {
        int len = e - s;
        if (arenaUsed + len > arena.length) {
            if (arenaUsed + (long) len > MAX_ARENA) {
                return -1;
            }
            arena = Arrays.copyOf(arena, (int) Math.min(MAX_ARENA, Math.max(arena.length * 2L, arenaUsed + len)));
        }
        System.arraycopy(b, s, arena, arenaUsed, len);
        int id = entries.add(key(hash, java), arenaUsed, len, value);
        arenaUsed += len;
        if (id == next.length) {
            next = Arrays.copyOf(next, id * 2);
            next2 = Arrays.copyOf(next2, id * 2);
        }
        next[id] = -1;
        next2[id] = -1;
        return id;
    }

    /** Notes that entry {@code to}'s line followed entry {@code from}'s in a sample (the older guess becomes the second). */
    void followed(int from, int to) {
        int was = next[from];
        if (was != to) {
            next2[from] = was;
            next[from] = to;
        }
    }

    /**
     * The entry of one of the two lines last seen after {@code from}, where b[s..] is that line
     * followed by a newline before {@code limit}; else -1. Vectorised comparisons, no hashing.
     */
    int predicted(int from, byte[] b, int s, int limit) {
        int id = next[from];
        if (id < 0) {
            return -1;
        }
        if (matches(id, b, s, limit)) {
            return id;
        }
        id = next2[from];
        return id >= 0 && matches(id, b, s, limit) ? id : -1;
    }

    private boolean matches(int id, byte[] b, int s, int limit) {
        int len = entries.lengths[id];
        int e = s + len;
        if (e >= limit || b[e] != '\n') {
            return false;
        }
        return ByteWords.equal(arena, entries.offsets[id], b, s, len);
    }
}
