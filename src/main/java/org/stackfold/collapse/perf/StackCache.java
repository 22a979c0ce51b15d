package org.stackfold.collapse.perf;

import java.util.Arrays;

/**
 * Remembers the call-tree node of each distinct sample stack (root frame + frame ids), so that a
 * stack seen before costs one hash and one int-array comparison instead of one tree lookup per
 * frame. Profiles repeat their stacks (the 400 MB benchmark: 222K samples, 67K distinct stacks).
 * The id arena stops growing at a cap; past it, stacks are walked into the tree as usual.
 */
final class StackCache {
    private static final int MAX_IDS = 8 << 20;
    private int[] ids = new int[1 << 14];
    private int idsUsed;
    private int[] hashes = new int[1024];
    private int[] offsets = new int[1024];
    private int[] lengths = new int[1024];
    private int[] nodes = new int[1024];
    private int size;
    private int[] table = new int[4096];
    private int mask = table.length - 1;

    static int hash(int root, int[] stack, int depth) {
        int h = root * 0x9E3779B9;
        for (int i = 0; i < depth; i++) {
            h = (h ^ stack[i]) * 0x01000193;
        }
        h ^= depth;
        return h ^ (h >>> 16);
    }

    /** The node of the stack, or -1. */
    int find(int h, int root, int[] stack, int depth) {
        int slot = h & mask;
        while (true) {
            int x = table[slot];
            if (x == 0) {
                return -1;
            }
            int id = x - 1;
            if (hashes[id] == h && lengths[id] == depth + 1 && ids[offsets[id]] == root
                    && Arrays.equals(ids, offsets[id] + 1, offsets[id] + 1 + depth, stack, 0, depth)) {
                return nodes[id];
            }
            slot = (slot + 1) & mask;
        }
    }

    void put(int h, int root, int[] stack, int depth, int node) {
        int len = depth + 1;
        if (idsUsed + len > ids.length) {
            if (idsUsed + (long) len > MAX_IDS) {
                return;
            }
            ids = Arrays.copyOf(ids, (int) Math.min(MAX_IDS, Math.max(ids.length * 2L, idsUsed + len)));
        }
        if (size == hashes.length) {
            int cap = size * 2;
            hashes = Arrays.copyOf(hashes, cap);
            offsets = Arrays.copyOf(offsets, cap);
            lengths = Arrays.copyOf(lengths, cap);
            nodes = Arrays.copyOf(nodes, cap);
        }
        ids[idsUsed] = root;
        System.arraycopy(stack, 0, ids, idsUsed + 1, depth);
        int id = size++;
        hashes[id] = h;
        offsets[id] = idsUsed;
        lengths[id] = len;
        nodes[id] = node;
        idsUsed += len;
        if (size * 2 > table.length) {
            table = new int[table.length * 2];
            mask = table.length - 1;
            for (int i = 0; i < size; i++) {
                insert(i);
            }
        } else {
            insert(id);
        }
    }

    private void insert(int id) {
        int slot = hashes[id] & mask;
        while (table[slot] != 0) {
            slot = (slot + 1) & mask;
        }
        table[slot] = id + 1;
    }
}
