package org.stackfold.render.flamegraph;

import java.util.Arrays;

/**
 * The tree of a flame chart: records are added in time order and a record shares only the leading
 * frames of the record before it (the same function called again later is a new node). Nodes are
 * created in preorder, so node ids are the drawing order and a node's start is the time its first
 * record began. Primitive columns only.
 */
final class ChartTree {
    final boolean differential;
    int size = 1;
    int[] parent = new int[1024];
    int[] frame = new int[1024];
    int[] depth = new int[1024];
    long[] start = new long[1024];
    long[] self0 = new long[1024];
    long[] self1 = new long[1024];
    private int[] path = new int[64];      // node per depth of the previous record (path[0] = root)
    private int[] pathFrames = new int[64];
    private int pathDepth;
    private long time;

    ChartTree(boolean differential) {
        this.differential = differential;
        frame[0] = -1;
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
            node = append(node, frames[from + i], i + 1);
            if (i + 1 >= path.length) {
                path = Arrays.copyOf(path, path.length * 2);
                pathFrames = Arrays.copyOf(pathFrames, pathFrames.length * 2);
            }
            path[i + 1] = node;
            pathFrames[i] = frames[from + i];
        }
        pathDepth = n;
        self0[node] += before;
        self1[node] += after;
        time += after;
    }

    private int append(int p, int f, int d) {
        if (size == parent.length) {
            int cap = size * 2;
            parent = Arrays.copyOf(parent, cap);
            frame = Arrays.copyOf(frame, cap);
            depth = Arrays.copyOf(depth, cap);
            start = Arrays.copyOf(start, cap);
            self0 = Arrays.copyOf(self0, cap);
            self1 = Arrays.copyOf(self1, cap);
        }
        int n = size++;
        parent[n] = p;
        frame[n] = f;
        depth[n] = d;
        start[n] = time;
        return n;
    }

    long[] totals(int column) {
        long[] self = column == 0 && differential ? self0 : self1;
        long[] t = new long[size];
        for (int n = size - 1; n > 0; n--) {
            t[n] += self[n];
            t[parent[n]] += t[n];
        }
        t[0] += self[0];
        return t;
    }
}
