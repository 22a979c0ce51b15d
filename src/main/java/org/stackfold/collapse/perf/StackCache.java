package org.stackfold.collapse.perf;

import java.util.Arrays;
import org.stackfold.model.CallTree;
import org.stackfold.model.DistinctStacks;

/**
 * The distinct sample stacks (root frame + frame ids) of a range and the weight of each, handed on
 * as {@link DistinctStacks} once the range is read ({@link #stacks}): to the call tree, or straight
 * to the folded writer. A stack seen before costs one hash, one probe and one int-array comparison;
 * a new one is appended, with no tree lookup. Profiles repeat their stacks (the 400 MB benchmark:
 * 222K samples, 56K distinct stacks under the counted event).
 *
 * <p>A stack is one record in an int arena: its depth, its weight (two ints), its frames leaf first
 * as the parser collects them, then the root frame (-1: none): the layout DistinctStacks reads. The
 * arena stops growing at a cap; past it, {@link #put} refuses and the parser walks such stacks into
 * the tree itself.
 */
final class StackCache {
    static final int MAX_INTS = 8 << 20;
    // A record: depth, then the weight just before the frames, as DistinctStacks reads it.
    private static final int DEPTH = 0;
    private static final int WEIGHT_HIGH = 1;
    private static final int WEIGHT_LOW = 2;
    private static final int FRAMES = 3;

    private final int maxInts;
    private int[] arena;
    private int used;
    private int count;
    // Slots: the stack's hash above its record's offset + 1; 0 = empty. Probing compares hashes in
    // the table itself, so only the record of a likely match is read.
    private long[] table = new long[1 << 12];
    private int mask = table.length - 1;

    /** A cache whose arena holds at most {@code maxInts} ints (a stack takes its depth + 4). */
    StackCache(int maxInts) {
        this.maxInts = maxInts;
        arena = new int[Math.min(1 << 14, maxInts)];
    }

    /** Two interleaved multiply chains (C1 runs them side by side: 25% less time than one). */
    static int hash(int root, int[] stack, int depth) {
        int h = root * 0x9E3779B9;
        int g = depth;
        int i = 1;
        for (; i < depth; i += 2) {
            h = (h ^ stack[i - 1]) * 0x01000193;
            g = (g ^ stack[i]) * 0x01000193;
        }
        if (i == depth) {
            h = (h ^ stack[i - 1]) * 0x01000193;
        }
        h = (h ^ g) * 0x9E3779B9;
        return h ^ (h >>> 16);
    }

    /** The record of the stack, or -1. */
    int find(int h, int root, int[] stack, int depth) {
        int[] a = arena;
        long[] t = table;
        int m = mask;
        for (int slot = h & m; ; slot = (slot + 1) & m) {
            long e = t[slot];
            if (e == 0) {
                return -1;
            }
            int at = (int) e - 1;
            if ((int) (e >>> 32) == h && a[at + DEPTH] == depth && a[at + FRAMES + depth] == root
                    && Arrays.equals(a, at + FRAMES, at + FRAMES + depth, stack, 0, depth)) {
                return at;
            }
        }
    }

    /** Adds to the weight of a record {@link #find} returned; overflow past 2^63-1 is an error. */
    void add(int at, long weight) {
        int[] a = arena;
        long w = Math.addExact(((long) a[at + WEIGHT_HIGH] << 32) | (a[at + WEIGHT_LOW] & 0xFFFFFFFFL), weight);
        a[at + WEIGHT_HIGH] = (int) (w >>> 32);
        a[at + WEIGHT_LOW] = (int) w;
    }

    /** Remembers a stack not {@link #find found}, with its first weight; false where the cache is full. */
    boolean put(int h, int root, int[] stack, int depth, long weight) {
        int len = FRAMES + depth + 1;
        if (used + len > arena.length) {
            if (used + (long) len > maxInts) {
                return false;
            }
            arena = Arrays.copyOf(arena, (int) Math.min(maxInts, Math.max(arena.length * 2L, used + len)));
        }
        int at = used;
        int[] a = arena;
        a[at + WEIGHT_HIGH] = (int) (weight >>> 32);
        a[at + WEIGHT_LOW] = (int) weight;
        a[at + DEPTH] = depth;
        System.arraycopy(stack, 0, a, at + FRAMES, depth);
        a[at + FRAMES + depth] = root;
        used += len;
        if (++count * 2 > table.length) {
            long[] old = table;
            table = new long[old.length * 2];
            mask = table.length - 1;
            for (long e : old) {
                if (e != 0) {
                    insert(e);
                }
            }
        }
        insert((long) h << 32 | (at + 1));
        return true;
    }

    private void insert(long e) {
        int slot = (int) (e >>> 32) & mask;
        while (table[slot] != 0) {
            slot = (slot + 1) & mask;
        }
        table[slot] = e;
    }

    /**
     * The stacks counted, as paths (root first: the root frame, where there is one, then the frames
     * outermost first) over this cache's arena; the cache is emptied and the arena handed over.
     */
    DistinctStacks stacks() {
        long[] paths = new long[count];
        int i = 0;
        for (int r = 0; r < used; r += FRAMES + arena[r + DEPTH] + 1) {
            int top = r + FRAMES + arena[r + DEPTH];
            paths[i++] = (long) (arena[top] < 0 ? top - 1 : top) << 32 | (r + FRAMES);
        }
        DistinctStacks s = new DistinctStacks(arena, paths);
        arena = new int[16];
        used = 0;
        count = 0;
        table = new long[1 << 12];
        mask = table.length - 1;
        return s;
    }

    /** Walks every stack into the tree ({@link DistinctStacks#addTo}); the cache is emptied. */
    void addTo(CallTree tree) {
        stacks().addTo(tree);
    }

    /** {@link #addTo(CallTree)} with a given sort budget (tests: 0 merge-sorts all). */
    void addTo(CallTree tree, int sortBudget) {
        stacks().addTo(tree, sortBudget);
    }
}
