package org.stackfold.model;

import java.util.Arrays;
import java.util.stream.IntStream;

/**
 * The call tree of a profile as primitive columns: node {@code n} has a {@link #parent}, a
 * {@link #frame} and a self count per weight column. Node 0 is the virtual root above all root
 * frames (frame -1). A node is always created after its parent, so walking ids upwards visits
 * parents before children and walking downwards children before parents: totals and most
 * transforms are one linear pass.
 *
 * <p>Children are linked lists (first child, next sibling), so building a tree from sorted stacks
 * touches only the memory of the nodes it creates; the children of a node with many of them are
 * also entered in one open-addressing table keyed by (parent, frame), so no lookup walks a long
 * list. Columns are paged so that growing a tree of tens of millions of nodes never copies it
 * (25 bytes a node, plus the table for the few nodes with many children: 50M nodes in about 1.3 GiB).
 *
 * <p>A differential profile has two weight columns ({@code weights() == 2}): column 0 is the
 * "before" profile, column 1 the "after" one.
 */
public final class CallTree {
    public static final int ROOT = 0;
    /**
     * Pages of 64K nodes (1.9 MB over all columns): a tree grows by whole pages, never copied,
     * and holds at most one page of unused room. Java zeroes what it allocates and the kernel
     * faults each page in, so room is not free: with pages of 1M nodes a tree of 434K nodes
     * allocated 34 MB as its first page grew ({@code collapse perf} of the 400 MB benchmark).
     */
    private static final int PAGE_BITS = 16;
    private static final int PAGE = 1 << PAGE_BITS;
    private static final int PAGE_MASK = PAGE - 1;

    /** A node with this many children has them indexed in the hash table; fewer are found by a list walk. */
    private static final int INDEXED = 8;

    private final int weights;
    private int[][] parentPages = new int[16][];
    private int[][] framePages = new int[16][];
    private long[][][] selfPages;
    // Children as linked lists: the first child, and each node's next sibling; 0 ends a list (the root
    // is nobody's child). The count saturates at INDEXED, from where lookups go through the table.
    private int[][] firstChildPages = new int[16][];
    private int[][] nextSiblingPages = new int[16][];
    private byte[][] childCountPages = new byte[16][];
    private int size;
    private int indexedEntries;
    // Entries: the 32-bit hash of (parent, frame) above the node id; 0 = empty (the root is never a
    // child). Probing compares hashes held in the table itself, so a miss costs no read of the columns.
    private long[] table = new long[1 << 12];
    private int mask = table.length - 1;
    private int threshold = loadLimit(table.length);

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

    public int firstChild(int node) {
        return firstChildPages[node >>> PAGE_BITS][node & PAGE_MASK];
    }

    /** The next sibling, or 0 at the end of the list. */
    public int nextSibling(int node) {
        return nextSiblingPages[node >>> PAGE_BITS][node & PAGE_MASK];
    }

    private int childCount(int node) {
        return childCountPages[node >>> PAGE_BITS][node & PAGE_MASK];
    }

    /** The child of {@code parent} for {@code frame}, created (with zero counts) if absent. */
    public int child(int parent, int frame) {
        int found = find(parent, frame);
        return found >= 0 ? found : newChild(parent, frame);
    }

    /**
     * {@link #child(int, int)} for a walk that creates nodes as it goes: a parent numbered
     * {@code newFrom} or above was made by that walk (nodes are numbered in the order they are made)
     * and has no child for {@code frame} yet, so it gets one without a lookup.
     */
    public int child(int parent, int frame, int newFrom) {
        return parent >= newFrom ? newChild(parent, frame) : child(parent, frame);
    }

    /**
     * A new child of {@code parent} for {@code frame}, for a caller that knows there is none yet
     * (say, the parent was itself created a moment ago).
     */
    public int newChild(int parent, int frame) {
        int created = append(parent, frame);
        int pp = parent >>> PAGE_BITS;
        int pi = parent & PAGE_MASK;
        nextSiblingPages[created >>> PAGE_BITS][created & PAGE_MASK] = firstChildPages[pp][pi];
        firstChildPages[pp][pi] = created;
        byte[] counts = childCountPages[pp];
        int count = counts[pi];
        if (count < INDEXED) {
            counts[pi] = (byte) ++count;
            if (count == INDEXED) {
                for (int c = firstChild(parent); c != 0; c = nextSibling(c)) {
                    index(parent, frame(c), c);
                }
            }
        } else {
            index(parent, frame, created);
        }
        return created;
    }

    /** The child of {@code parent} for {@code frame}, or -1. */
    public int find(int parent, int frame) {
        if (childCount(parent) < INDEXED) {
            for (int c = firstChild(parent); c != 0; c = nextSibling(c)) {
                if (frame(c) == frame) {
                    return c;
                }
            }
            return -1;
        }
        int h = hash(parent, frame);
        long[] t = table;
        int m = mask;
        int slot = h & m;
        while (true) {
            long e = t[slot];
            if (e == 0) {
                return -1;
            }
            if ((int) (e >>> 32) == h) {
                int n = (int) e;
                if (frame(n) == frame && parent(n) == parent) {
                    return n;
                }
            }
            slot = (slot + 1) & m;
        }
    }

    private void index(int parent, int frame, int node) {
        int h = hash(parent, frame);
        int slot = h & mask;
        while (table[slot] != 0) {
            slot = (slot + 1) & mask;
        }
        table[slot] = ((long) h << 32) | node;
        if (++indexedEntries > threshold) {
            rehash();
        }
    }

    /**
     * Appends every node of {@code other} below this tree's root, renaming frames through
     * {@code frameMap}, where none of other's root frames is a root frame here (so no node is
     * shared: a parallel reader cut its input where the root frame changes). Node {@code n} of
     * other becomes {@code n + offset}, the offset returned; sibling lists keep other's order and
     * other's root frames come first, as a node-by-node merge would leave them. One pass, no lookups,
     * split over two cores where other is large (the readers are done by then, so both are free).
     * Other is consumed: each of its pages is dropped once copied (so the two trees are not held
     * twice at the peak), and it must not be used afterwards.
     */
    public int appendDisjoint(CallTree other, int[] frameMap) {
        if (other.weights != weights) {
            throw new IllegalArgumentException("trees with different weight columns");
        }
        int offset = size - 1;
        int ourFirstRoot = firstChild(ROOT);
        int ourRootCount = childCount(ROOT);
        int theirFirstRoot = other.firstChild(ROOT);
        int theirRootCount = other.childCount(ROOT);
        int newSize = Math.addExact(size, other.size - 1);
        grow(newSize);
        // Halves that end at a page of other's, so each copier drops only the pages it read.
        int pages = (other.size - 1) >>> PAGE_BITS;
        int cut = Math.max(1, (pages + 1) / 2 << PAGE_BITS);
        if (other.size > (2 << 20) && Runtime.getRuntime().availableProcessors() > 1) { // worth a second thread
            IntStream.of(1, cut).parallel().forEach(from ->
                    copyRun(other, frameMap, offset, ourFirstRoot, from, from == 1 ? cut : other.size));
        } else {
            copyRun(other, frameMap, offset, ourFirstRoot, 1, other.size);
        }
        // Children that other found through its table are entered in this one under their new ids
        // (after the copy: the table is not shared between copiers).
        for (int id = offset + 1; id < newSize; id++) {
            if (childCount(id) >= INDEXED) {
                for (int c = firstChild(id); c != 0; c = nextSibling(c)) {
                    index(id, frame(c), c);
                }
            }
        }
        size = newSize;
        if (theirFirstRoot != 0) {
            firstChildPages[0][ROOT] = theirFirstRoot + offset;
            int count = Math.min(INDEXED, ourRootCount + theirRootCount);
            childCountPages[0][ROOT] = (byte) count;
            if (count == INDEXED) {
                // Index what is not yet: their root frames, and ours if we had fewer than INDEXED.
                int stop = ourRootCount >= INDEXED ? ourFirstRoot : 0;
                for (int c = firstChild(ROOT); c != stop; c = nextSibling(c)) {
                    index(ROOT, frame(c), c);
                }
            }
        }
        return offset;
    }

    /** Copies other's nodes [from, to) to ids shifted by offset, column by column, dropping other's pages as it goes. */
    private void copyRun(CallTree other, int[] frameMap, int offset, int ourFirstRoot, int from, int to) {
        // Column by column over runs that stay within one page of each tree: plain array loops.
        for (int n = from; n < to; ) {
            int id = n + offset;
            int si = n & PAGE_MASK;
            int di = id & PAGE_MASK;
            int len = Math.min(to - n, Math.min(PAGE - si, PAGE - di));
            int[] sParent = other.parentPages[n >>> PAGE_BITS];
            int[] sFrame = other.framePages[n >>> PAGE_BITS];
            int[] sFirst = other.firstChildPages[n >>> PAGE_BITS];
            int[] sNext = other.nextSiblingPages[n >>> PAGE_BITS];
            int dp = id >>> PAGE_BITS;
            if (dp > 0) {
                ensurePage(dp); // page by page, as other's are dropped: the peak holds one tree and a page
            }
            int[] dParent = parentPages[dp];
            int[] dFrame = framePages[dp];
            int[] dFirst = firstChildPages[dp];
            int[] dNext = nextSiblingPages[dp];
            for (int j = 0; j < len; j++) {
                int p = sParent[si + j];
                dParent[di + j] = p == ROOT ? ROOT : p + offset;
                dFrame[di + j] = frameMap[sFrame[si + j]];
                int fc = sFirst[si + j];
                dFirst[di + j] = fc == 0 ? 0 : fc + offset;
                int ns = sNext[si + j];
                dNext[di + j] = ns != 0 ? ns + offset : p == ROOT ? ourFirstRoot : 0;
            }
            System.arraycopy(other.childCountPages[n >>> PAGE_BITS], si, childCountPages[dp], di, len);
            for (int c = 0; c < weights; c++) {
                System.arraycopy(other.selfPages[c][n >>> PAGE_BITS], si, selfPages[c][dp], di, len);
            }
            n += len;
            if ((n & PAGE_MASK) == 0 || n == to) {
                other.dropPage((n - 1) >>> PAGE_BITS);
            }
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

    /**
     * This tree with frames renamed through {@code frameMap}, where siblings whose frames become one
     * are merged and their counts summed (every column in one pass; a parent always has a lower id
     * than its children). This tree is left as it is.
     */
    public CallTree renamed(int[] frameMap) {
        return renamed(frameMap, false);
    }

    /**
     * {@link #renamed}, consuming this tree: each page is dropped once its nodes are copied, so the
     * peak holds the new tree, what is left of this one and an int a node, not two whole trees. This
     * tree is left empty.
     */
    public CallTree renamedConsuming(int[] frameMap) {
        return renamed(frameMap, true);
    }

    private CallTree renamed(int[] frameMap, boolean consume) {
        CallTree dst = new CallTree(weights);
        int[] to = new int[size];
        if (consume) {
            clearIndex(); // the copy reads columns only
        }
        for (int n = 1; n < size; n++) {
            int node = dst.child(to[parent(n)], frameMap[frame(n)]);
            to[n] = node;
            for (int c = 0; c < weights; c++) {
                long s = self(n, c);
                if (s != 0) {
                    dst.addSelf(node, c, s);
                }
            }
            if (consume && ((n + 1) & PAGE_MASK) == 0) {
                dropPage(n >>> PAGE_BITS);
            }
        }
        if (consume) {
            for (int p = 0; p < parentPages.length; p++) {
                dropPage(p);
            }
            size = 0;
            append(-1, -1); // an empty tree is left, not dropped pages
        }
        return dst;
    }

    private void clearIndex() {
        table = new long[1 << 12];
        mask = table.length - 1;
        threshold = loadLimit(table.length);
        indexedEntries = 0;
    }

    private void dropPage(int p) {
        parentPages[p] = null;
        framePages[p] = null;
        firstChildPages[p] = null;
        nextSiblingPages[p] = null;
        childCountPages[p] = null;
        for (int c = 0; c < weights; c++) {
            selfPages[c][p] = null;
        }
    }

    /**
     * Makes room for {@code more} nodes ahead of creating them one by one, so that the first page
     * is not regrown (copied) on the way nor allocated far larger than needed.
     */
    public void reserve(int more) {
        grow(Math.addExact(size, more));
    }

    /**
     * Makes room for nodes up to {@code newSize} (exclusive) ahead of filling them in bulk: the page
     * table, and the first page at its full length; later pages come with {@link #ensurePage}.
     */
    private void grow(int newSize) {
        int lastPage = (newSize - 1) >>> PAGE_BITS;
        if (lastPage >= parentPages.length) {
            growPageTables(Math.max(parentPages.length * 2, lastPage + 1));
        }
        int page0 = lastPage == 0 ? newSize : PAGE;
        if (parentPages[0].length < page0) {
            growFirstPage(Math.min(PAGE, Math.max(page0, parentPages[0].length * 4)));
        }
    }

    /** Room for {@code cap} pages in every column's page table. */
    private void growPageTables(int cap) {
        parentPages = Arrays.copyOf(parentPages, cap);
        framePages = Arrays.copyOf(framePages, cap);
        firstChildPages = Arrays.copyOf(firstChildPages, cap);
        nextSiblingPages = Arrays.copyOf(nextSiblingPages, cap);
        childCountPages = Arrays.copyOf(childCountPages, cap);
        for (int c = 0; c < weights; c++) {
            selfPages[c] = Arrays.copyOf(selfPages[c], cap);
        }
    }

    /** The first page of every column, which starts small, grown to {@code len} nodes. */
    private void growFirstPage(int len) {
        parentPages[0] = Arrays.copyOf(parentPages[0], len);
        framePages[0] = Arrays.copyOf(framePages[0], len);
        firstChildPages[0] = Arrays.copyOf(firstChildPages[0], len);
        nextSiblingPages[0] = Arrays.copyOf(nextSiblingPages[0], len);
        childCountPages[0] = Arrays.copyOf(childCountPages[0], len);
        for (int c = 0; c < weights; c++) {
            selfPages[c][0] = Arrays.copyOf(selfPages[c][0], len);
        }
    }

    /** Page {@code p} of every column, new and {@code len} nodes long. */
    private void newPage(int p, int len) {
        parentPages[p] = new int[len];
        framePages[p] = new int[len];
        firstChildPages[p] = new int[len];
        nextSiblingPages[p] = new int[len];
        childCountPages[p] = new byte[len];
        for (int c = 0; c < weights; c++) {
            selfPages[c][p] = new long[len];
        }
    }

    /** Allocates page {@code p} (past the first) if it is not yet; two copiers may share a page. */
    private synchronized void ensurePage(int p) {
        if (parentPages[p] == null) {
            newPage(p, PAGE);
        }
    }

    private int append(int parent, int frame) {
        int n = size;
        int p = n >>> PAGE_BITS;
        if ((n & PAGE_MASK) == 0) {
            if (p == parentPages.length) {
                growPageTables(p * 2);
            }
            // The first page starts small and grows to a whole page: most profiles are small.
            newPage(p, p == 0 ? 1 << 10 : PAGE);
        } else if (p == 0 && n == parentPages[0].length) {
            growFirstPage(Math.min(PAGE, n * 4));
        }
        parentPages[p][n & PAGE_MASK] = parent;
        framePages[p][n & PAGE_MASK] = frame;
        size = n + 1;
        return n;
    }

    private static int loadLimit(int capacity) {
        return (int) (capacity * 0.62);
    }

    private void rehash() {
        long[] t = new long[table.length * 2];
        int m = t.length - 1;
        for (long e : table) {
            if (e != 0) {
                int slot = (int) (e >>> 32) & m;
                while (t[slot] != 0) {
                    slot = (slot + 1) & m;
                }
                t[slot] = e;
            }
        }
        table = t;
        mask = m;
        threshold = loadLimit(t.length);
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
     * Sorts every sibling list by {@code rank[frame]} (then by node id), in place. Lookups don't
     * depend on list order; walks after this visit siblings in rank order.
     */
    public void sortChildren(int[] rank) {
        sortChildren(rank, null);
    }

    /** What a caller sees of each list of two or more siblings once it is sorted. */
    @FunctionalInterface
    public interface SortedSiblings {
        /** {@code children[0, count)}: the children of {@code parent} in their new order (the array is reused). */
        void sorted(int parent, int[] children, int count);
    }

    /**
     * Sorts keys[from, to) (distinct values) by quicksort, short ranges by insertion: Stackfold's own
     * code, compiled early, where the JDK's sort ran interpreted for the first thousand sibling lists
     * of a run that sorts them once.
     */
    private static void sort(long[] keys, int from, int to) {
        while (to - from > 24) {
            int mid = (from + to) >>> 1;
            // Median of three as the pivot, so sorted and reversed lists split evenly.
            long a = keys[from];
            long b = keys[mid];
            long c = keys[to - 1];
            long pivot = a < b ? (b < c ? b : Math.max(a, c)) : (a < c ? a : Math.max(b, c));
            int i = from;
            int j = to - 1;
            while (i <= j) {
                while (keys[i] < pivot) {
                    i++;
                }
                while (keys[j] > pivot) {
                    j--;
                }
                if (i <= j) {
                    long t = keys[i];
                    keys[i++] = keys[j];
                    keys[j--] = t;
                }
            }
            // Recurse into the smaller part, loop on the larger: the stack stays logarithmic.
            if (j + 1 - from < to - i) {
                sort(keys, from, j + 1);
                from = i;
            } else {
                sort(keys, i, to);
                to = j + 1;
            }
        }
        for (int i = from + 1; i < to; i++) {
            long x = keys[i];
            int j = i - 1;
            while (j >= from && keys[j] > x) {
                keys[j + 1] = keys[j];
                j--;
            }
            keys[j + 1] = x;
        }
    }

    /**
     * {@link #sortChildren(int[])}, showing each sorted list of two or more siblings to
     * {@code then} (null: to nobody) in the same pass, so a caller that checks neighbouring
     * siblings needs no second walk of a big tree's lists.
     */
    public void sortChildren(int[] rank, SortedSiblings then) {
        long[] keys = new long[16];
        int[] children = then == null ? null : new int[16];
        for (int p = 0; p < size; p++) {
            int c = firstChild(p);
            if (c == 0 || nextSibling(c) == 0) {
                continue;
            }
            int k = 0;
            boolean sorted = true;
            long prevKey = Long.MIN_VALUE;
            for (; c != 0; c = nextSibling(c)) {
                if (k == keys.length) {
                    keys = Arrays.copyOf(keys, k * 2);
                }
                long key = ((long) rank[frame(c)] << 32) | c;
                sorted &= key > prevKey;
                prevKey = key;
                keys[k++] = key;
            }
            if (!sorted) {
                sort(keys, 0, k);
                firstChildPages[p >>> PAGE_BITS][p & PAGE_MASK] = (int) keys[0];
                for (int i = 0; i < k; i++) {
                    int n = (int) keys[i];
                    nextSiblingPages[n >>> PAGE_BITS][n & PAGE_MASK] = i + 1 < k ? (int) keys[i + 1] : 0;
                }
            }
            if (then != null) {
                if (children.length < k) {
                    children = new int[keys.length];
                }
                for (int i = 0; i < k; i++) {
                    children[i] = (int) keys[i];
                }
                then.sorted(p, children, k);
            }
        }
    }

    /** Sorts siblings by frame name bytes ({@link FrameTable#compare}). */
    public void sortChildren(FrameTable frames) {
        sortChildren(frames.ranks(frames::compare));
    }

    /** Visits nodes depth first (preorder), siblings in list order; see {@link #sortChildren}. */
    public void walk(Visitor visitor) {
        int[] stack = new int[64];
        int depth = 0;
        int n = firstChild(ROOT);
        while (n != 0) {
            if (depth + 1 >= stack.length) {
                stack = Arrays.copyOf(stack, stack.length * 2);
            }
            stack[++depth] = n;
            visitor.enter(n, depth);
            int c = firstChild(n);
            if (c != 0) {
                n = c;
                continue;
            }
            // Climb until a node with a next sibling.
            n = 0;
            while (depth > 0) {
                int top = stack[depth];
                visitor.exit(top, depth);
                depth--;
                int s = nextSibling(top);
                if (s != 0) {
                    n = s;
                    break;
                }
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
