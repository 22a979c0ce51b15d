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
 * <p>Each entry also remembers the two entries whose lines last followed it inside a sample, and
 * the arena keeps the lines in the order they were first seen, each with its newline
 * ({@link #matchRun}): callchains repeat whole runs of lines, so the parser compares the next line
 * against a guess directly, without searching its newline or hashing it first, and the same
 * comparison runs on over the lines first seen after the guess (on the 400 MB benchmark two thirds
 * of the lines are taken that way: a third as many comparisons as one a line).
 */
final class LineCache {
    private static final int MAX_ARENA = 32 << 20;
    private byte[] arena = new byte[1 << 16];
    private int arenaUsed;
    private final HashedEntries entries = new HashedEntries();
    private int[] next = new int[1024];
    private int[] next2 = new int[1024];
    private boolean[] javas = new boolean[1024];
    /** The entry {@link #matchRun} matched first. */
    int runFirst;

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

    /**
     * Entry {@code id}, right after an entry {@link #matchRun} took, is the next line too: its line
     * and newline lie within the bytes found equal (from {@code at}, the input's offset of its line,
     * to {@code end}), and it was put for the same kind of process.
     */
    boolean inRun(int id, int at, int end, boolean java) {
        return id < entries.size() && at + entries.lengths[id] < end && javas[id] == java;
    }

    /**
     * Remembers the line; its entry, or -1 where the cache is full and did not keep it. The arena
     * keeps each line with a newline after it, in the order of the entries ({@link #matchRun}).
     */
    int put(int hash, boolean java, byte[] b, int s, int e, int value) {
        int len = e - s;
        if (arenaUsed + len + 1 > arena.length) {
            if (arenaUsed + (long) len + 1 > MAX_ARENA) {
                return -1;
            }
            arena = Arrays.copyOf(arena, (int) Math.min(MAX_ARENA, Math.max(arena.length * 2L, arenaUsed + len + 1)));
        }
        System.arraycopy(b, s, arena, arenaUsed, len);
        arena[arenaUsed + len] = '\n';
        int id = entries.add(key(hash, java), arenaUsed, len, value);
        arenaUsed += len + 1;
        if (id == next.length) {
            next = Arrays.copyOf(next, id * 2);
            next2 = Arrays.copyOf(next2, id * 2);
            javas = Arrays.copyOf(javas, id * 2);
        }
        next[id] = -1;
        next2[id] = -1;
        javas[id] = java;
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
     * Compares b[s, limit) with the arena from the line of one of the two entries last seen after
     * {@code from}, in one vectorised comparison that runs on past that line: the arena holds the
     * lines in the order they were first seen, each with its newline, so where a sample repeats
     * lines first seen together the comparison covers all of them (on the 400 MB benchmark a third
     * as many comparisons as one a line). Returns the number of bytes equal, at least that entry's
     * line and newline, with the entry in {@link #runFirst}; 0 where neither guess is the line.
     * {@code differs} names an entry known not to be the line (the one a run just stopped at, often
     * also the first guess), or is -1.
     * Every entry after {@code runFirst} whose line and newline lie within the bytes returned is
     * the line there, where it was put for the same kind of process ({@link #inRun}).
     */
    int matchRun(int from, byte[] b, int s, int limit, int differs) {
        int id = next[from];
        if (id >= 0 && id != differs) {
            int n = run(id, b, s, limit);
            if (n > 0) {
                return n;
            }
        }
        int id2 = next2[from];
        if (id2 < 0 || id2 == differs) {
            return 0;
        }
        int n = run(id2, b, s, limit);
        if (n > 0) { // the second guess was right: it becomes the first
            next[from] = id2;
            next2[from] = id;
        }
        return n;
    }

    private int run(int id, byte[] b, int s, int limit) {
        int off = entries.offsets[id];
        int len = entries.lengths[id];
        int e = s + len;
        if (e >= limit || b[e] != '\n') {
            return 0;
        }
        int n = Math.min(arenaUsed - off, limit - s);
        int m = Arrays.mismatch(arena, off, off + n, b, s, s + n);
        if (m < 0) {
            m = n;
        }
        if (m <= len) {
            return 0;
        }
        runFirst = id;
        return m;
    }
}
