package org.stackfold.render.flamegraph;

import java.util.Arrays;

/**
 * The tree of a flame chart: records are added in time order and a record shares only the leading
 * frames of the record before it (the same function called again later is a new node). Nodes are
 * created in preorder, so node ids are the drawing order and a node's start is the time its first
 * record began. Primitive columns in pages (no copying of big arrays as the chart grows).
 */
final class ChartTree {
    private static final int PAGE_BITS = 16;
    private static final int PAGE = 1 << PAGE_BITS;
    private static final int MASK = PAGE - 1;

    final boolean differential;
    int size;
    private int[][] parent = new int[16][];
    private int[][] frame = new int[16][];
    private long[][] start = new long[16][];
    private long[][] self0; // "before", differential only
    private long[][] self1 = new long[16][];
    private int[] path = new int[64];      // node per depth of the previous record (path[0] = root)
    private int[] pathFrames = new int[64];
    private int pathDepth;
    private long time;

    ChartTree(boolean differential) {
        this.differential = differential;
        if (differential) {
            self0 = new long[16][];
        }
        append(-1, -1);
    }

    int parent(int n) {
        return parent[n >>> PAGE_BITS][n & MASK];
    }

    int frame(int n) {
        return frame[n >>> PAGE_BITS][n & MASK];
    }

    long start(int n) {
        return start[n >>> PAGE_BITS][n & MASK];
    }

    /** Self count of a column: 0 = before (differential only), 1 = the drawn one. */
    long self(int n, int column) {
        long[][] s = column == 0 && differential ? self0 : self1;
        return s[n >>> PAGE_BITS][n & MASK];
    }

    /** Adds a record; {@code after} is the width (the only count for plain profiles). */
    void add(int[] frames, int from, int to, long before, long after) {
        int d = 0;
        int n = to - from;
        while (d < pathDepth && d < n && pathFrames[d] == frames[from + d]) {
            d++;
        }
        int node = path[d];
        for (int i = d; i < n; i++) {
            node = append(node, frames[from + i]);
            if (i + 1 >= path.length) {
                path = Arrays.copyOf(path, path.length * 2);
                pathFrames = Arrays.copyOf(pathFrames, pathFrames.length * 2);
            }
            path[i + 1] = node;
            pathFrames[i] = frames[from + i];
        }
        pathDepth = n;
        if (differential) {
            self0[node >>> PAGE_BITS][node & MASK] += before;
        }
        self1[node >>> PAGE_BITS][node & MASK] += after;
        time += after;
    }

    private int append(int p, int f) {
        int n = size++;
        int pg = n >>> PAGE_BITS;
        if ((n & MASK) == 0) {
            if (pg == parent.length) {
                int cap = pg * 2;
                parent = Arrays.copyOf(parent, cap);
                frame = Arrays.copyOf(frame, cap);
                start = Arrays.copyOf(start, cap);
                self1 = Arrays.copyOf(self1, cap);
                if (differential) {
                    self0 = Arrays.copyOf(self0, cap);
                }
            }
            parent[pg] = new int[PAGE];
            frame[pg] = new int[PAGE];
            start[pg] = new long[PAGE];
            self1[pg] = new long[PAGE];
            if (differential) {
                self0[pg] = new long[PAGE];
            }
        }
        parent[pg][n & MASK] = p;
        frame[pg][n & MASK] = f;
        start[pg][n & MASK] = time;
        return n;
    }

    long[] totals(int column) {
        long[] t = new long[size];
        for (int n = size - 1; n > 0; n--) {
            t[n] += self(n, column);
            t[parent(n)] += t[n];
        }
        t[0] += self(0, column);
        return t;
    }
}
