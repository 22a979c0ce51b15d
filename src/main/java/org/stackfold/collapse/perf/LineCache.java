package org.stackfold.collapse.perf;

import java.util.Arrays;

/**
 * Remembers what each distinct callchain line turned into: the same line bytes (address, symbol,
 * offset, module) always give the same frames, and a profile repeats its lines many times, so
 * after the first sight a line costs one hash probe and one byte comparison (both vectorised)
 * instead of parsing and interning. Keyed by the raw line bytes plus the Java-process flag (which
 * changes the names). The key bytes live in one arena that stops growing at a cap; past it, lines
 * are simply parsed again.
 */
final class LineCache {
    private static final int MAX_ARENA = 32 << 20;
    private byte[] arena = new byte[1 << 16];
    private int arenaUsed;
    private final HashedEntries entries = new HashedEntries();

    private static int key(int hash, boolean java) {
        int h = java ? hash * 0x5bd1e995 + 1 : hash;
        return h ^ (h >>> 15);
    }

    /** The value stored for the line, or -1. */
    int find(int hash, boolean java, byte[] b, int s, int e) {
        int h = key(hash, java);
        int len = e - s;
        HashedEntries t = entries;
        for (int slot = t.slot(h); ; slot = t.next(slot)) {
            int id = t.entry(slot);
            if (id < 0) {
                return -1;
            }
            if (t.hashes[id] == h && t.lengths[id] == len
                    && Arrays.equals(arena, t.offsets[id], t.offsets[id] + len, b, s, e)) {
                return t.values[id];
            }
        }
    }

    /** Remembers the line; false where the cache is full and did not keep it. */
    boolean put(int hash, boolean java, byte[] b, int s, int e, int value) {
        int len = e - s;
        if (arenaUsed + len > arena.length) {
            if (arenaUsed + (long) len > MAX_ARENA) {
                return false;
            }
            arena = Arrays.copyOf(arena, (int) Math.min(MAX_ARENA, Math.max(arena.length * 2L, arenaUsed + len)));
        }
        System.arraycopy(b, s, arena, arenaUsed, len);
        entries.add(key(hash, java), arenaUsed, len, value);
        arenaUsed += len;
        return true;
    }
}
