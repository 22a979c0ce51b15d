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
    private final HashedEntries entries = new HashedEntries();

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
        HashedEntries t = entries;
        for (int slot = t.slot(h); ; slot = t.next(slot)) {
            int id = t.entry(slot);
            if (id < 0) {
                return -1;
            }
            int at = t.offsets[id];
            if (t.hashes[id] == h && t.lengths[id] == depth + 1 && ids[at] == root
                    && Arrays.equals(ids, at + 1, at + 1 + depth, stack, 0, depth)) {
                return t.values[id];
            }
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
        ids[idsUsed] = root;
        System.arraycopy(stack, 0, ids, idsUsed + 1, depth);
        entries.add(h, idsUsed, len, node);
        idsUsed += len;
    }
}
