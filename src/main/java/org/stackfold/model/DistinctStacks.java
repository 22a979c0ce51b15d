package org.stackfold.model;

import java.util.Arrays;

/**
 * Distinct stacks and their weights, not yet a call tree: what a collapser that counts whole
 * stacks has at the end of its input. {@link #addTo} builds them into a tree; a writer that needs
 * them only in some order ({@link #sort}) can skip the tree altogether (the folded writer does).
 *
 * <p>Layout, shared with the collapser that fills it: each stack is a path of frame ids in one int
 * arena, stored innermost first, and named by a descriptor {@code (outer << 32) | inner}: element
 * {@code d} of the path, outermost (root) first, is {@code arena[outer - d]}, down to
 * {@code arena[inner]}; an empty path has {@code outer == inner - 1}. The two ints before
 * {@code arena[inner]} hold the stack's weight (high, low). Paths and weights do not overlap.
 *
 * <p>{@link #sort} is a three-way radix quicksort of the paths root first, which reads each path
 * element once per partition at its depth instead of comparing whole shared prefixes again and
 * again, and learns on the way how many elements each path shares with the one before it: from
 * there on every node is new, so an empty tree is built without a single lookup (walking each stack
 * in as it came cost 1.15M lookups through sibling lists for perf-400mb's 56K stacks).
 */
public final class DistinctStacks {
    /** Nested partitions the sort allows before it merge-sorts the rest (about 2 log2 of 8M paths). */
    public static final int SORT_BUDGET = 96;

    private final int[] arena;
    private final long[] paths;
    // While sorting: the paths, a path element of each, how many elements each path shares with
    // the one before it, the merge sort's buffer (made when first needed), and the key maps.
    private long[] order;
    private int[] keys;
    private int[] shared;
    private long[] tmp;
    private int[] sortKeys; // the arena itself, or its elements mapped for the sort

    /** The paths {@code paths} (descriptors, see the class comment) of {@code arena}; both are kept, not copied. */
    public DistinctStacks(int[] arena, long[] paths) {
        this.arena = arena;
        this.paths = paths;
    }

    /** The number of stacks. */
    public int size() {
        return paths.length;
    }

    /** True where some stack has a frame (only such stacks reach a tree: an empty one is its root). */
    public boolean hasFrames() {
        for (long p : paths) {
            if (length(p) > 0) {
                return true;
            }
        }
        return false;
    }

    /** The descriptor of stack {@code i} (in the order they were given). */
    public long pathAt(int i) {
        return paths[i];
    }

    /** The number of frames of the path with descriptor {@code p}. */
    public static int length(long p) {
        return (int) (p >>> 32) - (int) p + 1;
    }

    /** Element {@code d} (root first) of the path with descriptor {@code p}. */
    public int frame(long p, int d) {
        return arena[(int) (p >>> 32) - d];
    }

    /** The weight of the stack with descriptor {@code p}. */
    public long weight(long p) {
        int at = (int) p;
        return ((long) arena[at - 2] << 32) | (arena[at - 1] & 0xFFFFFFFFL);
    }

    /** The paths sorted, and how many elements each shares with the one before it ({@code shared[0]} is 0). */
    public record Sorted(long[] paths, int[] shared) {
    }

    /**
     * The paths sorted root first by their elements mapped through {@code inner} (an element with
     * more after it) and {@code last} (a path's last element), a path before its extensions; both
     * null: by frame id. Where two frames map to the same value, their paths compare equal there.
     */
    public Sorted sort(int[] inner, int[] last) {
        return sort(inner, last, SORT_BUDGET);
    }

    /** {@link #sort(int[], int[])} with a given budget (tests: 0 merge-sorts all). */
    public Sorted sort(int[] inner, int[] last, int budget) {
        int n = paths.length;
        order = paths.clone();
        keys = new int[n];
        shared = new int[n];
        int[] back = inner == null ? null : inverse(inner, last);
        if (inner == null) {
            sortKeys = arena;
        } else if (back == null) {
            sortKeys = new int[arena.length];
            map(sortKeys, inner, last);
        } else {
            sortKeys = arena;
            map(arena, inner, last);
        }
        try {
            sort(0, n, 0, false, budget);
        } finally {
            if (back != null) {
                unmap(back);
            }
        }
        Sorted s = new Sorted(order, shared);
        order = tmp = null;
        keys = shared = null;
        sortKeys = null;
        return s;
    }

    /**
     * Writes the paths' elements mapped into {@code k} at their own places (the arena itself where
     * the mapping can be undone), so the sort reads keys as plainly as frame ids (a mapping per read
     * made the key function too big for C1 to inline).
     */
    private void map(int[] k, int[] inner, int[] last) {
        int[] a = arena;
        for (long p : paths) {
            int first = (int) p;
            int top = (int) (p >>> 32);
            for (int i = first + 1; i <= top; i++) {
                k[i] = inner[a[i]];
            }
            if (top >= first) {
                k[first] = last[a[first]];
            }
        }
    }

    /**
     * The frame of each mapped value where no two frames, inner or last, map alike (then the
     * arena is mapped in place and {@link #unmap undone} after the sort: no copy of it, which
     * costs as much memory again, 7 MB zeroed and faulted in for perf-400mb's 56K stacks); null
     * where two do (frames renamed alike: the mapping cannot be undone, so it goes to a copy).
     */
    private static int[] inverse(int[] inner, int[] last) {
        int max = -1;
        for (int f = 0; f < inner.length; f++) {
            max = Math.max(max, Math.max(inner[f], last[f]));
        }
        int[] back = new int[max + 1];
        Arrays.fill(back, -1);
        for (int f = 0; f < inner.length; f++) {
            int i = inner[f];
            int l = last[f];
            if (i < 0 || l < 0 || i == l || back[i] >= 0 || back[l] >= 0) {
                return null;
            }
            back[i] = f;
            back[l] = f;
        }
        return back;
    }

    /** Puts the frame ids back where {@link #map} wrote their mapped values into the arena. */
    private void unmap(int[] back) {
        int[] a = arena;
        for (long p : paths) {
            int first = (int) p;
            int top = (int) (p >>> 32);
            for (int i = first; i <= top; i++) {
                a[i] = back[a[i]];
            }
        }
    }

    /** Walks every stack into the tree, root first, and adds its weight to its node ({@link #SORT_BUDGET}). */
    public void addTo(CallTree tree) {
        addTo(tree, SORT_BUDGET);
    }

    /**
     * {@link #addTo(CallTree)} with a given sort budget. A stack with no frames is the tree's root
     * and is not counted. Only nodes the tree had before are looked up: none where it was empty.
     */
    public void addTo(CallTree tree, int budget) {
        Sorted s = sort(null, null, budget);
        long[] x = s.paths();
        int[] lcp = s.shared();
        int n = x.length;
        int[] a = arena;
        boolean fresh = tree.size() == 1;
        if (fresh) {
            long nodes = 0;
            for (int i = 0; i < n; i++) {
                nodes += length(x[i]) - lcp[i];
            }
            tree.reserve((int) Math.min(nodes, Integer.MAX_VALUE));
        }
        // Below a node this walk created there is nothing to look up: stacks are sorted, so one that
        // shares a node's parent and frame shares the path down to it with the stack before. An
        // empty tree so gets no lookup at all.
        int newFrom = fresh ? 0 : tree.size();
        int[] path = new int[64]; // the nodes of the previous stack's path, root first
        for (int i = 0; i < n; i++) {
            int top = (int) (x[i] >>> 32);
            int len = length(x[i]);
            if (len > path.length) {
                path = Arrays.copyOf(path, Math.max(len, path.length * 2));
            }
            int k = lcp[i];
            int node = k == 0 ? CallTree.ROOT : path[k - 1];
            for (int d = k; d < len; d++) {
                node = tree.child(node, a[top - d], newFrom);
                path[d] = node;
            }
            if (node != CallTree.ROOT) {
                tree.addSelf(node, weight(x[i]));
            }
        }
    }

    /**
     * Sorts {@link #order}'s paths [from, to), which agree on their first {@code d} elements;
     * {@link #keys} holds their element {@code d} where {@code keysRead}. Past {@code budget}
     * nested partitions (bad pivots), a merge sort takes over: no deep recursion, whatever the input.
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
                // has the name of a root frame, and that root's stack; or frames mapped alike).
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

    /** Element {@code d} of a path, root first (mapped where the sort maps); -1 past its end. */
    private int key(long p, int d) {
        int top = (int) (p >>> 32);
        return d <= top - (int) p ? sortKeys[top - d] : -1;
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
        int c = common(p, q, d);
        int kp = key(p, c);
        int kq = key(q, c);
        return Integer.compare(kp, kq); // -1 past an end: a path before its extensions
    }

    /** How many elements two paths share, given that they share the first {@code d}. */
    private int common(long p, long q, int d) {
        int[] a = sortKeys;
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
