package org.stackfold.model;

import java.util.Arrays;

/**
 * The call tree of a profile as primitive columns: node {@code n} has a {@link #parent}, a
 * {@link #frame} and a self count per weight column. Node 0 is the virtual root above all root
 * frames (frame -1). A node is always created after its parent, so walking ids upwards visits
 * parents before children and walking downwards children before parents: totals and most
 * transforms are one linear pass.
 *
 * <p>Child lookup by (parent, frame) goes through one open-addressing table of node ids for the
 * whole tree. Columns are paged so that growing a tree of tens of millions of nodes never copies
 * it (about 16 bytes a node plus 4 to 8 for the lookup table; 50M nodes fit in about 1.2 GiB).
 *
 * <p>A differential profile has two weight columns ({@code weights() == 2}): column 0 is the
 * "before" profile, column 1 the "after" one.
 */
public final class CallTree {
    public static final int ROOT = 0;
    private static final int PAGE_BITS = 20;
    private static final int PAGE = 1 << PAGE_BITS;
    private static final int PAGE_MASK = PAGE - 1;

    private final int weights;
    private int[][] parentPages = new int[16][];
    private int[][] framePages = new int[16][];
    private long[][][] selfPages;
    private int size;
    private int[] table = new int[1 << 12]; // node id; 0 = empty (the root is never a child)
    private int mask = table.length - 1;

    public CallTree() {
        this(1);
    }

    public CallTree(int weights) {
        if (weights < 1 || weights > 2) {
            throw new IllegalArgumentException("weights must be 1 or 2");
        }
        this.weights = weights;
        this.selfPages = new long[weights][16][];
        size = 0;
        append(-1, -1);
    }

    public int weights() {
        return weights;
    }

    public boolean isDifferential() {
        return weights == 2;
    }

    /** Number of nodes, the virtual root included. */
    public int size() {
        return size;
    }

    public int parent(int node) {
        return parentPages[node >>> PAGE_BITS][node & PAGE_MASK];
    }

    public int frame(int node) {
        return framePages[node >>> PAGE_BITS][node & PAGE_MASK];
    }

    public long self(int node) {
        return selfPages[0][node >>> PAGE_BITS][node & PAGE_MASK];
    }

    public long self(int node, int column) {
        return selfPages[column][node >>> PAGE_BITS][node & PAGE_MASK];
    }

    /** Adds to the self count of column 0; overflow past 2^63-1 is an error, never a wrap. */
    public void addSelf(int node, long count) {
        addSelf(node, 0, count);
    }

    public void addSelf(int node, int column, long count) {
        long[] page = selfPages[column][node >>> PAGE_BITS];
        int i = node & PAGE_MASK;
        page[i] = Math.addExact(page[i], count);
    }

    public void setSelf(int node, int column, long count) {
        selfPages[column][node >>> PAGE_BITS][node & PAGE_MASK] = count;
    }

    private static int hash(int parent, int frame) {
        long k = ((long) parent << 32) ^ (frame & 0xFFFFFFFFL);
        k *= 0x9E3779B97F4A7C15L;
        return (int) (k >>> 32) ^ (int) k;
    }

    /** The child of {@code parent} for {@code frame}, created (with zero counts) if absent. */
    public int child(int parent, int frame) {
        int slot = hash(parent, frame) & mask;
        int[] t = table;
        while (true) {
            int n = t[slot];
            if (n == 0) {
                int created = append(parent, frame);
                t[slot] = created;
                if (size > (mask >>> 1) + (mask >>> 3)) { // load above ~0.62
                    rehash();
                }
                return created;
            }
            if (frame(n) == frame && parent(n) == parent) {
                return n;
            }
            slot = (slot + 1) & mask;
        }
    }

    /** The child of {@code parent} for {@code frame}, or -1. */
    public int find(int parent, int frame) {
        int slot = hash(parent, frame) & mask;
        while (true) {
            int n = table[slot];
            if (n == 0) {
                return -1;
            }
            if (frame(n) == frame && parent(n) == parent) {
                return n;
            }
            slot = (slot + 1) & mask;
        }
    }

    /** The node for a whole stack of frame ids, root first, created if absent. */
    public int path(int[] frames, int from, int to) {
        int node = ROOT;
        for (int i = from; i < to; i++) {
            node = child(node, frames[i]);
        }
        return node;
    }

    private int append(int parent, int frame) {
        int n = size;
        int p = n >>> PAGE_BITS;
        if ((n & PAGE_MASK) == 0) {
            if (p == parentPages.length) {
                int cap = p * 2;
                parentPages = Arrays.copyOf(parentPages, cap);
                framePages = Arrays.copyOf(framePages, cap);
                for (int c = 0; c < weights; c++) {
                    selfPages[c] = Arrays.copyOf(selfPages[c], cap);
                }
            }
            // The first page starts small: most profiles are far below a million nodes.
            int len = p == 0 ? 1 << 10 : PAGE;
            parentPages[p] = new int[len];
            framePages[p] = new int[len];
            for (int c = 0; c < weights; c++) {
                selfPages[c][p] = new long[len];
            }
        } else if (p == 0 && n == parentPages[0].length) {
            int len = Math.min(PAGE, n * 4);
            parentPages[0] = Arrays.copyOf(parentPages[0], len);
            framePages[0] = Arrays.copyOf(framePages[0], len);
            for (int c = 0; c < weights; c++) {
                selfPages[c][0] = Arrays.copyOf(selfPages[c][0], len);
            }
        }
        parentPages[p][n & PAGE_MASK] = parent;
        framePages[p][n & PAGE_MASK] = frame;
        size = n + 1;
        return n;
    }

    private void rehash() {
        int[] t = new int[table.length * 2];
        int m = t.length - 1;
        for (int n = 1; n < size; n++) {
            int slot = hash(parent(n), frame(n)) & m;
            while (t[slot] != 0) {
                slot = (slot + 1) & m;
            }
            t[slot] = n;
        }
        table = t;
        mask = m;
    }

    /** Sum of self counts of a column over the whole tree. */
    public long totalSamples(int column) {
        long sum = 0;
        for (int n = 0; n < size; n++) {
            sum = Math.addExact(sum, self(n, column));
        }
        return sum;
    }

    public long totalSamples() {
        return totalSamples(0);
    }

    /** Total (inclusive) counts of a column for every node: self plus all descendants. */
    public long[] totals(int column) {
        long[] total = new long[size];
        for (int n = size - 1; n > 0; n--) {
            total[n] = Math.addExact(total[n], self(n, column));
            int p = parent(n);
            total[p] = Math.addExact(total[p], total[n]);
        }
        total[0] += self(0, column);
        return total;
    }

    public long[] totals() {
        return totals(0);
    }

    /** Depth of every node: the root 0, a root frame 1. */
    public int[] depths() {
        int[] d = new int[size];
        for (int n = 1; n < size; n++) {
            d[n] = d[parent(n)] + 1;
        }
        return d;
    }

    /** True where the node or a descendant has a non-zero count in any column. */
    public boolean[] live() {
        boolean[] live = new boolean[size];
        for (int n = size - 1; n >= 0; n--) {
            if (!live[n]) {
                for (int c = 0; c < weights; c++) {
                    if (self(n, c) != 0) {
                        live[n] = true;
                        break;
                    }
                }
            }
            if (live[n] && n > 0) {
                live[parent(n)] = true;
            }
        }
        return live;
    }

    /** Frame ids of the path from a root frame down to {@code node}. */
    public int[] stack(int node) {
        int depth = 0;
        for (int n = node; n != ROOT; n = parent(n)) {
            depth++;
        }
        int[] frames = new int[depth];
        for (int n = node; n != ROOT; n = parent(n)) {
            frames[--depth] = frame(n);
        }
        return frames;
    }

    /**
     * Children lists, built on demand: {@code first[n]} is n's first child and {@code next[c]} its
     * next sibling (-1 ends). With a frame table the siblings are sorted by {@link FrameTable#compare}.
     */
    public Children children(FrameTable frames) {
        int[] first = new int[size];
        int[] next = new int[size];
        Arrays.fill(first, -1);
        // Descending ids and pushing at the head leaves every list in creation order.
        for (int n = size - 1; n > 0; n--) {
            int p = parent(n);
            next[n] = first[p];
            first[p] = n;
        }
        if (frames != null) {
            sortSiblings(first, next, frames);
        }
        return new Children(first, next);
    }

    private void sortSiblings(int[] first, int[] next, FrameTable frames) {
        // Sort each list by frame once per distinct frame: rank frames first, then sort node ids by rank.
        int[] rank = frameRanks(frames);
        int[] buf = new int[16];
        long[] keys = new long[16];
        for (int p = 0; p < size; p++) {
            int c = first[p];
            if (c < 0 || next[c] < 0) {
                continue;
            }
            int k = 0;
            boolean sorted = true;
            int prevRank = Integer.MIN_VALUE;
            for (; c >= 0; c = next[c]) {
                if (k == buf.length) {
                    buf = Arrays.copyOf(buf, k * 2);
                    keys = Arrays.copyOf(keys, k * 2);
                }
                int r = rank[frame(c)];
                sorted &= r >= prevRank;
                prevRank = r;
                keys[k] = ((long) r << 32) | c;
                buf[k++] = c;
            }
            if (sorted) {
                continue;
            }
            Arrays.sort(keys, 0, k);
            first[p] = (int) keys[0];
            for (int i = 0; i < k - 1; i++) {
                next[(int) keys[i]] = (int) keys[i + 1];
            }
            next[(int) keys[k - 1]] = -1;
        }
    }

    private static int[] frameRanks(FrameTable frames) {
        int n = frames.size();
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, frames::compare);
        int[] rank = new int[n];
        for (int i = 0; i < n; i++) {
            rank[order[i]] = i;
        }
        return rank;
    }

    /** Children lists of a tree; see {@link CallTree#children}. */
    public record Children(int[] first, int[] next) {
    }

    /** Visits nodes depth first (preorder), in children-list order. */
    public void walk(Children children, Visitor visitor) {
        int[] first = children.first();
        int[] next = children.next();
        int[] stack = new int[64];
        int depth = 0;
        int n = first[ROOT];
        while (n >= 0) {
            if (depth + 1 >= stack.length) {
                stack = Arrays.copyOf(stack, stack.length * 2);
            }
            stack[++depth] = n;
            visitor.enter(n, depth);
            int c = first[n];
            if (c >= 0) {
                n = c;
                continue;
            }
            // Climb until a node with a next sibling.
            while (depth > 0) {
                int top = stack[depth];
                visitor.exit(top, depth);
                depth--;
                int s = next[top];
                if (s >= 0) {
                    n = s;
                    break;
                }
                n = -1;
            }
        }
    }

    /** Callbacks of a depth-first walk; depth 1 is a root frame. */
    public interface Visitor {
        void enter(int node, int depth);

        default void exit(int node, int depth) {
        }
    }
}
