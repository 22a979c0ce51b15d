package org.stackfold.format.perfdata;

import java.util.Arrays;

/**
 * Raw callchains already folded, to the call-tree node they ended at. Samples repeat a few thousand
 * distinct callchains hundreds of thousands of times, so one hash and one comparison of the chain's
 * words replace a cache lookup and a tree step per frame. A key is the chain's words with what else
 * decides their names: a context (address space version and root frame) and a word of flags.
 * Keys live in one growing {@code long[]}; past {@link #MAX_WORDS} nothing more is kept.
 */
final class ChainTable {
    /** 64 MiB of keys at most: enough for every distinct chain of a large system-wide recording. */
    static final int MAX_WORDS = 1 << 23;
    private long[] words = new long[1 << 12];
    private int used;
    /** Per slot: 1 + the offset of the key in {@link #words}, 0 for an empty slot. */
    private int[] slots = new int[1 << 10];
    private int[] nodes = new int[1 << 10];
    /** Per slot: the key's hash, compared before its words and reused when the table grows. */
    private int[] hashes = new int[1 << 10];
    private int size;

    /** The node of the chain {@code chain[from..from+n)} under {@code context} and {@code flags}, or -1. */
    int find(long context, long flags, long[] chain, int from, int n) {
        int mask = slots.length - 1;
        int h = hash(context, flags, chain, from, n);
        for (int i = h & mask; slots[i] != 0; i = (i + 1) & mask) {
            if (hashes[i] == h && matches(slots[i] - 1, context, flags, chain, from, n)) {
                return nodes[i];
            }
        }
        return -1;
    }

    /** Remembers the node of a chain that {@link #find} did not know. */
    void add(long context, long flags, long[] chain, int from, int n, int node) {
        if (used + 3L + n > MAX_WORDS) {
            return;
        }
        if ((size + 1) * 2 > slots.length) {
            grow();
        }
        if (used + 3 + n > words.length) {
            words = Arrays.copyOf(words, (int) Math.min(MAX_WORDS, Math.max(words.length * 2L, used + 3L + n)));
        }
        int at = used;
        words[at] = context;
        words[at + 1] = flags;
        words[at + 2] = n;
        System.arraycopy(chain, from, words, at + 3, n);
        used += 3 + n;
        insert(hash(context, flags, chain, from, n), at, node);
        size++;
    }

    private boolean matches(int at, long context, long flags, long[] chain, int from, int n) {
        return words[at] == context && words[at + 1] == flags && words[at + 2] == n
                && Arrays.equals(words, at + 3, at + 3 + n, chain, from, from + n);
    }

    private void insert(int hash, int at, int node) {
        int mask = slots.length - 1;
        int i = hash & mask;
        while (slots[i] != 0) {
            i = (i + 1) & mask;
        }
        slots[i] = at + 1;
        nodes[i] = node;
        hashes[i] = hash;
    }

    private void grow() {
        int[] oldSlots = slots;
        int[] oldNodes = nodes;
        int[] oldHashes = hashes;
        slots = new int[oldSlots.length * 2];
        nodes = new int[oldSlots.length * 2];
        hashes = new int[oldSlots.length * 2];
        for (int i = 0; i < oldSlots.length; i++) {
            if (oldSlots[i] != 0) {
                insert(oldHashes[i], oldSlots[i] - 1, oldNodes[i]);
            }
        }
    }

    private static int hash(long context, long flags, long[] chain, int from, int n) {
        long h = mix(mix(0, context), flags);
        for (int k = from; k < from + n; k++) {
            h = mix(h, chain[k]);
        }
        return finish(h);
    }

    private static long mix(long h, long w) {
        return (h + w) * 0x9E3779B97F4A7C15L;
    }

    private static int finish(long h) {
        return (int) (h ^ h >>> 32 ^ h >>> 17);
    }
}
