package org.stackfold.collapse.perf;

import java.util.Arrays;
import org.stackfold.model.CallTree;

/**
 * The distinct sample stacks (root frame + frame ids) of a range and the weight of each, added to
 * the call tree once the range is read ({@link #addTo}). A stack seen before costs one hash, one
 * probe and one int-array comparison; a new one is appended, with no tree lookup. Profiles repeat
 * their stacks (the 400 MB benchmark: 222K samples, 56K distinct stacks under the counted event).
 *
 * <p>At the end the stacks are sorted root first by frame id, so those that share a path prefix are
 * neighbours: each is walked into the tree from where it leaves the previous one, and below that
 * point every node is new, so an empty tree is built without a single lookup (walking each new stack
 * in as it came cost 1.15M lookups through sibling lists spread over the tree's columns).
 *
 * <p>A stack is one record in an int arena: its hash, its weight (two ints), its depth, its frames
 * leaf first as the parser collects them, then the root frame (-1: none). The arena stops growing at
 * a cap; past it, {@link #put} refuses and the parser walks such stacks into the tree itself.
 */
final class StackCache {
    private static final int MAX_INTS = 8 << 20;
    private static final int HASH = 0;
    private static final int WEIGHT_HIGH = 1;
    private static final int WEIGHT_LOW = 2;
    private static final int DEPTH = 3;
    private static final int FRAMES = 4;

    private int[] arena = new int[1 << 14];
    private int used;
    private int count;
    private int[] table = new int[1 << 12]; // record offset + 1; 0 = empty
    private int mask = table.length - 1;

    static int hash(int root, int[] stack, int depth) {
        int h = root * 0x9E3779B9;
        for (int i = 0; i < depth; i++) {
            h = (h ^ stack[i]) * 0x01000193;
        }
        h ^= depth;
        return h ^ (h >>> 16);
    }

    /** The record of the stack, or -1. */
    int find(int h, int root, int[] stack, int depth) {
        int[] a = arena;
        int[] t = table;
        int m = mask;
        for (int slot = h & m; ; slot = (slot + 1) & m) {
            int at = t[slot] - 1;
            if (at < 0) {
                return -1;
            }
            if (a[at + HASH] == h && a[at + DEPTH] == depth && a[at + FRAMES + depth] == root
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
            if (used + (long) len > MAX_INTS) {
                return false;
            }
            arena = Arrays.copyOf(arena, (int) Math.min(MAX_INTS, Math.max(arena.length * 2L, used + len)));
        }
        int at = used;
        int[] a = arena;
        a[at + HASH] = h;
        a[at + WEIGHT_HIGH] = (int) (weight >>> 32);
        a[at + WEIGHT_LOW] = (int) weight;
        a[at + DEPTH] = depth;
        System.arraycopy(stack, 0, a, at + FRAMES, depth);
        a[at + FRAMES + depth] = root;
        used += len;
        if (++count * 2 > table.length) {
            table = new int[table.length * 2];
            mask = table.length - 1;
            for (int r = 0; r < used; r += FRAMES + a[r + DEPTH] + 1) {
                insert(r);
            }
        } else {
            insert(at);
        }
        return true;
    }

    private void insert(int at) {
        int slot = arena[at + HASH] & mask;
        while (table[slot] != 0) {
            slot = (slot + 1) & mask;
        }
        table[slot] = at + 1;
    }

    /**
     * Walks every stack into the tree, root first, and adds its weight to its node; a stack with
     * neither root nor frames is the tree's root and is not counted. Where the tree is empty, no
     * node is looked up; else (stacks the parser walked in past the cap) only where stacks part.
     * The cache is emptied.
     */
    void addTo(CallTree tree) {
        // Each stack as its path's outermost index in the arena (its root, else its last frame)
        // above the index of its first frame: the sort reads the path alone, from the top down.
        long[] order = new long[count];
        int n = 0;
        for (int r = 0; r < used; r += FRAMES + arena[r + DEPTH] + 1) {
            int top = r + FRAMES + arena[r + DEPTH];
            order[n++] = (long) (arena[top] < 0 ? top - 1 : top) << 32 | (r + FRAMES);
        }
        sort(order, new int[n], new long[n], 0, n, 0, false, 96);
        boolean fresh = tree.size() == 1;
        int[] a = arena;
        int[] path = new int[64]; // the previous stack's path (frame ids, root first) and its nodes
        int[] nodes = new int[64];
        int pathLen = 0;
        for (int i = 0; i < n; i++) {
            int top = (int) (order[i] >>> 32);
            int start = (int) order[i];
            int len = top - start + 1;
            if (len > path.length) {
                path = Arrays.copyOf(path, Math.max(len, path.length * 2));
                nodes = Arrays.copyOf(nodes, path.length);
            }
            int k = 0;
            int limit = Math.min(len, pathLen);
            while (k < limit && path[k] == a[top - k]) {
                k++;
            }
            int node = k == 0 ? CallTree.ROOT : nodes[k - 1];
            boolean created = fresh;
            for (int d = k; d < len; d++) {
                int f = a[top - d];
                int found = created ? -1 : tree.find(node, f);
                created = found < 0;
                node = created ? tree.newChild(node, f) : found;
                path[d] = f;
                nodes[d] = node;
            }
            pathLen = len;
            if (node != CallTree.ROOT) {
                int at = start - FRAMES;
                tree.addSelf(node, ((long) a[at + WEIGHT_HIGH] << 32) | (a[at + WEIGHT_LOW] & 0xFFFFFFFFL));
            }
        }
        arena = new int[16];
        used = 0;
        count = 0;
        table = new int[1 << 12];
        mask = table.length - 1;
    }

    /**
     * Sorts paths (see {@link #addTo}) root first, a path before its extensions: a three-way radix
     * quicksort, which reads each path element once per partition at its depth instead of comparing
     * whole shared prefixes again and again. Paths in [from, to) agree on their first {@code d}
     * elements; {@code keys} holds their element {@code d} where {@code keysRead}. Past {@code budget}
     * nested partitions (bad pivots), a merge sort takes over: no deep recursion, whatever the input.
     */
    private void sort(long[] x, int[] keys, long[] tmp, int from, int to, int d, boolean keysRead, int budget) {
        while (to - from > 1) {
            if (to - from <= 12 || budget == 0) {
                mergeSort(x, tmp, from, to, d);
                return;
            }
            if (!keysRead) {
                for (int i = from; i < to; i++) {
                    keys[i] = key(x[i], d);
                }
            }
            int p1 = keys[from];
            int p2 = keys[(from + to) >>> 1];
            int p3 = keys[to - 1];
            int v = Math.max(Math.min(p1, p2), Math.min(Math.max(p1, p2), p3));
            int lt = from;
            int gt = to;
            for (int i = from; i < gt; ) {
                int k = keys[i];
                if (k < v) {
                    swap(x, keys, lt++, i++);
                } else if (k > v) {
                    swap(x, keys, i, --gt);
                } else {
                    i++;
                }
            }
            sort(x, keys, tmp, from, lt, d, true, budget - 1);
            sort(x, keys, tmp, gt, to, d, true, budget - 1);
            if (v < 0) {
                return; // these paths end here: all equal
            }
            from = lt;
            to = gt;
            d++;
            keysRead = false;
        }
    }

    /** Element {@code d} of a path, root first; -1 past its end. */
    private int key(long p, int d) {
        int top = (int) (p >>> 32);
        return d <= top - (int) p ? arena[top - d] : -1;
    }

    private static void swap(long[] x, int[] keys, int i, int j) {
        long t = x[i];
        x[i] = x[j];
        x[j] = t;
        int k = keys[i];
        keys[i] = keys[j];
        keys[j] = k;
    }

    /** Merge sort of paths that agree on their first {@code d} elements. */
    private void mergeSort(long[] x, long[] tmp, int from, int to, int d) {
        if (to - from <= 12) {
            for (int i = from + 1; i < to; i++) {
                long v = x[i];
                int j = i - 1;
                while (j >= from && compare(x[j], v, d) > 0) {
                    x[j + 1] = x[j];
                    j--;
                }
                x[j + 1] = v;
            }
            return;
        }
        int mid = (from + to) >>> 1;
        mergeSort(x, tmp, from, mid, d);
        mergeSort(x, tmp, mid, to, d);
        if (compare(x[mid - 1], x[mid], d) <= 0) {
            return;
        }
        System.arraycopy(x, from, tmp, from, to - from);
        int i = from;
        int j = mid;
        for (int k = from; k < to; k++) {
            x[k] = j >= to || (i < mid && compare(tmp[i], tmp[j], d) <= 0) ? tmp[i++] : tmp[j++];
        }
    }

    /** Compares two paths from element {@code d} on. */
    private int compare(long p, long q, int d) {
        int[] a = arena;
        int tp = (int) (p >>> 32);
        int tq = (int) (q >>> 32);
        int lp = tp - (int) p;
        int lq = tq - (int) q;
        int n = Math.min(lp, lq);
        for (int i = d; i <= n; i++) {
            int fp = a[tp - i];
            int fq = a[tq - i];
            if (fp != fq) {
                return fp < fq ? -1 : 1;
            }
        }
        return lp - lq;
    }
}
