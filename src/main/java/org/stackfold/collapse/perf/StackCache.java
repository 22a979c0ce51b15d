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
 * <p>A stack is one record in an int arena: its weight (two ints), its depth, its frames
 * leaf first as the parser collects them, then the root frame (-1: none). The arena stops growing at
 * a cap; past it, {@link #put} refuses and the parser walks such stacks into the tree itself.
 */
final class StackCache {
    static final int MAX_INTS = 8 << 20;
    /** Nested partitions the sort allows before it merge-sorts the rest (about 2 log2 of 8M paths). */
    private static final int SORT_BUDGET = 96;
    private static final int WEIGHT_HIGH = 0;
    private static final int WEIGHT_LOW = 1;
    private static final int DEPTH = 2;
    private static final int FRAMES = 3;

    private final int maxInts;
    private int[] arena;
    private int used;
    private int count;
    // Slots: the stack's hash above its record's offset + 1; 0 = empty. Probing compares hashes in
    // the table itself, so only the record of a likely match is read.
    private long[] table = new long[1 << 12];
    private int mask = table.length - 1;
    // While addTo sorts: the stacks as paths, a path element of each, how many elements each path
    // shares with the one before it, and the merge sort's buffer (made when first needed).
    private long[] order;
    private int[] keys;
    private int[] shared;
    private long[] tmp;

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
     * Walks every stack into the tree, root first, and adds its weight to its node; a stack with
     * neither root nor frames is the tree's root and is not counted. Where the tree is empty, no
     * node is looked up; else (stacks the parser walked in past the cap) only where stacks part.
     * The cache is emptied.
     */
    void addTo(CallTree tree) {
        addTo(tree, SORT_BUDGET);
    }

    /** {@link #addTo(CallTree)} with a given sort budget (tests: 0 merge-sorts all). */
    void addTo(CallTree tree, int sortBudget) {
        // Each stack as its path's outermost index in the arena (its root, else its last frame)
        // above the index of its first frame: the sort reads the path alone, from the top down.
        int n = count;
        order = new long[n];
        keys = new int[n];
        shared = new int[n];
        int i = 0;
        for (int r = 0; r < used; r += FRAMES + arena[r + DEPTH] + 1) {
            int top = r + FRAMES + arena[r + DEPTH];
            order[i++] = (long) (arena[top] < 0 ? top - 1 : top) << 32 | (r + FRAMES);
        }
        sort(0, n, 0, false, sortBudget);
        long[] x = order;
        int[] lcp = shared;
        int[] a = arena;
        boolean fresh = tree.size() == 1;
        if (fresh) {
            long nodes = 0;
            for (i = 0; i < n; i++) {
                nodes += (int) (x[i] >>> 32) - (int) x[i] + 1 - lcp[i];
            }
            tree.reserve((int) Math.min(nodes, Integer.MAX_VALUE));
        }
        int[] path = new int[64]; // the nodes of the previous stack's path, root first
        for (i = 0; i < n; i++) {
            int top = (int) (x[i] >>> 32);
            int start = (int) x[i];
            int len = top - start + 1;
            if (len > path.length) {
                path = Arrays.copyOf(path, Math.max(len, path.length * 2));
            }
            int k = lcp[i];
            int node = k == 0 ? CallTree.ROOT : path[k - 1];
            boolean created = fresh;
            for (int d = k; d < len; d++) {
                int f = a[top - d];
                int found = created ? -1 : tree.find(node, f);
                created = found < 0;
                node = created ? tree.newChild(node, f) : found;
                path[d] = node;
            }
            if (node != CallTree.ROOT) {
                int at = start - FRAMES;
                tree.addSelf(node, ((long) a[at + WEIGHT_HIGH] << 32) | (a[at + WEIGHT_LOW] & 0xFFFFFFFFL));
            }
        }
        order = tmp = null;
        keys = shared = null;
        arena = new int[16];
        used = 0;
        count = 0;
        table = new long[1 << 12];
        mask = table.length - 1;
    }

    /**
     * Sorts {@link #order}'s paths root first, a path before its extensions, and notes in
     * {@link #shared} how many elements each shares with the one before: a three-way radix
     * quicksort, which reads each path element once per partition at its depth instead of comparing
     * whole shared prefixes again and again, and learns the shared lengths on the way. Paths in
     * [from, to) agree on their first {@code d} elements; {@link #keys} holds their element
     * {@code d} where {@code keysRead}. Past {@code budget} nested partitions (bad pivots), a merge
     * sort takes over: no deep recursion, whatever the input.
     */
    private void sort(int from, int to, int d, boolean keysRead, int budget) {
        long[] x = order;
        int[] k = keys;
        while (to - from > 1) {
            if (to - from <= 12 || budget == 0) {
                mergeSort(from, to, d);
                for (int i = from + 1; i < to; i++) {
                    shared[i] = common(x[i - 1], x[i], d);
                }
                return;
            }
            if (!keysRead) {
                for (int i = from; i < to; i++) {
                    k[i] = key(x[i], d);
                }
            }
            int p1 = k[from];
            int p2 = k[(from + to) >>> 1];
            int p3 = k[to - 1];
            int v = Math.max(Math.min(p1, p2), Math.min(Math.max(p1, p2), p3));
            int lt = from;
            int gt = to;
            for (int i = from; i < gt; ) {
                int key = k[i];
                if (key < v) {
                    swap(x, k, lt++, i++);
                } else if (key > v) {
                    swap(x, k, i, --gt);
                } else {
                    i++;
                }
            }
            if (lt > from) {
                shared[lt] = d;
            }
            if (gt < to) {
                shared[gt] = d;
            }
            sort(from, lt, d, true, budget - 1);
            sort(gt, to, d, true, budget - 1);
            if (v < 0) {
                // These paths end here: equal (a stack without root frame whose outermost frame
                // has the name of a root frame, and that root's stack).
                for (int i = lt + 1; i < gt; i++) {
                    shared[i] = d;
                }
                return;
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
    private void mergeSort(int from, int to, int d) {
        long[] x = order;
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
        mergeSort(from, mid, d);
        mergeSort(mid, to, d);
        if (compare(x[mid - 1], x[mid], d) <= 0) {
            return;
        }
        if (tmp == null) {
            tmp = new long[order.length]; // only past the sort's budget: most sorts never merge
        }
        long[] t = tmp;
        System.arraycopy(x, from, t, from, to - from);
        int i = from;
        int j = mid;
        for (int k = from; k < to; k++) {
            x[k] = j >= to || (i < mid && compare(t[i], t[j], d) <= 0) ? t[i++] : t[j++];
        }
    }

    /** Compares two paths from element {@code d} on. */
    private int compare(long p, long q, int d) {
        int tp = (int) (p >>> 32);
        int tq = (int) (q >>> 32);
        int c = common(p, q, d);
        int lp = tp - (int) p + 1;
        int lq = tq - (int) q + 1;
        if (c == lp || c == lq) {
            return lp - lq;
        }
        return arena[tp - c] < arena[tq - c] ? -1 : 1;
    }

    /** How many elements two paths share, given that they share the first {@code d}. */
    private int common(long p, long q, int d) {
        int[] a = arena;
        int tp = (int) (p >>> 32);
        int tq = (int) (q >>> 32);
        int n = Math.min(tp - (int) p, tq - (int) q) + 1;
        int i = d;
        while (i < n && a[tp - i] == a[tq - i]) {
            i++;
        }
        return i;
    }
}
