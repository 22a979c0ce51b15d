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
    private int[] hashes = new int[1024];
    private int[] offsets = new int[1024];
    private int[] lengths = new int[1024];
    private int[] values = new int[1024];
    private int size;
    private int[] table = new int[4096]; // entry + 1
    private int mask = table.length - 1;

    private static int key(int hash, boolean java) {
        return java ? hash * 0x5bd1e995 + 1 : hash;
    }

    /** The value stored for the line, or -1. */
    int find(int hash, boolean java, byte[] b, int s, int e) {
        int h = key(hash, java);
        int len = e - s;
        int slot = (h ^ (h >>> 15)) & mask;
        int[] t = table;
        while (true) {
            int x = t[slot];
            if (x == 0) {
                return -1;
            }
            int id = x - 1;
            if (hashes[id] == h && lengths[id] == len
                    && Arrays.equals(arena, offsets[id], offsets[id] + len, b, s, e)) {
                return values[id];
            }
            slot = (slot + 1) & mask;
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
        int h = key(hash, java);
        if (size == hashes.length) {
            int cap = size * 2;
            hashes = Arrays.copyOf(hashes, cap);
            offsets = Arrays.copyOf(offsets, cap);
            lengths = Arrays.copyOf(lengths, cap);
            values = Arrays.copyOf(values, cap);
        }
        System.arraycopy(b, s, arena, arenaUsed, len);
        int id = size++;
        hashes[id] = h;
        offsets[id] = arenaUsed;
        lengths[id] = len;
        values[id] = value;
        arenaUsed += len;
        if (size * 2 > table.length) {
            table = new int[table.length * 2];
            mask = table.length - 1;
            for (int i = 0; i < size; i++) {
                insert(i);
            }
        } else {
            insert(id);
        }
        return true;
    }

    private void insert(int id) {
        int h = hashes[id];
        int slot = (h ^ (h >>> 15)) & mask;
        while (table[slot] != 0) {
            slot = (slot + 1) & mask;
        }
        table[slot] = id + 1;
    }
}
