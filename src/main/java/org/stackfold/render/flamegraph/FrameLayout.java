package org.stackfold.render.flamegraph;

import java.util.Arrays;
import java.util.function.IntUnaryOperator;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameTable;
import org.stackfold.model.WideNodes;

/**
 * The frames a flame graph draws: for each visible frame its frame id, depth, start and width in
 * samples, and for differential profiles its self delta and "before" total. Columns are primitive
 * arrays indexed by draw position; nothing is allocated per tree node.
 *
 * <p>Layout of a merged profile (flame graph): the tree's totals are computed in one pass; a node is
 * visible when its total reaches the minimum width (children are never wider than their parent, so
 * the visible set is closed towards the root and pruning costs no walk of the invisible part). Only
 * the children of visible nodes are ordered: by name as flamegraph.pl's sorted lines order them
 * (self samples first, then children, a name ending where the line has its ';'), or by weight. A
 * child starts at its parent's start plus the parent's self count plus the totals of the siblings
 * before it, invisible siblings included.
 *
 * <p>Layout of a flame chart: the {@link ChartTree} keeps input order, so start = first sample.
 */
final class FrameLayout {
    int count;
    int[] frame;      // frame id; -1 = the root ("all")
    int[] depth;      // 0 = root
    long[] start;
    long[] width;
    long[] delta;     // self delta (after - before), differential only
    long[] before;    // total in the "before" column, differential only
    boolean[] waker;  // below a "--" separator (chain palette)
    boolean differential;
    long samples;     // the real total
    long timeMax;     // the total the x axis spans (--total may widen it)
    long maxDelta = 1;
    int maxDepth;

    private FrameLayout(int capacity, boolean differential) {
        frame = new int[capacity];
        depth = new int[capacity];
        start = new long[capacity];
        width = new long[capacity];
        waker = new boolean[capacity];
        this.differential = differential;
        if (differential) {
            delta = new long[capacity];
            before = new long[capacity];
        }
    }

    /** Minimum width in samples for a frame to be drawn. */
    static double threshold(FlameGraphOptions o, long timeMax) {
        String mw = o.effectiveMinWidth();
        if (mw.endsWith("%")) {
            return timeMax * Double.parseDouble(mw.substring(0, mw.length() - 1)) / 100.0;
        }
        double widthPerTime = (o.width - 2.0 * SvgWriter.XPAD) / timeMax;
        return Double.parseDouble(mw) / widthPerTime;
    }

    static long timeMax(FlameGraphOptions o, long samples, java.util.function.Consumer<String> warn) {
        if (o.total > 0 && o.total < samples) {
            if ((double) o.total / samples > 0.02) {
                warn.accept("specified --total " + o.total + " is less than actual total " + samples + ", so ignored");
            }
            return samples;
        }
        return o.total > 0 ? o.total : samples;
    }

    /** Lays out a merged call tree. */
    static FrameLayout of(CallTree tree, FrameTable frames, FlameGraphOptions o,
                          java.util.function.Consumer<String> warn) {
        return of(tree, frames, o, warn, 0);
    }

    /**
     * Lays out a merged call tree; {@code knownMaxDelta}, where positive, is the differential colour
     * scale's largest delta, taken over a bigger tree than this one ({@link VisibleTree}).
     */
    static FrameLayout of(CallTree tree, FrameTable frames, FlameGraphOptions o,
                          java.util.function.Consumer<String> warn, long knownMaxDelta) {
        boolean diff = tree.isDifferential();
        int col = diff ? 1 : 0;
        int size = tree.size();
        long[] total = tree.totals(col);
        long samples = total[0];
        long timeMax = timeMax(o, samples, warn);
        double threshold = threshold(o, Math.max(1, timeMax));
        long maxDelta = Math.max(1, knownMaxDelta);
        if (diff && knownMaxDelta <= 0) {
            for (int n = 1; n < size; n++) {
                long d = Math.abs(tree.self(n, 1) - tree.self(n, 0));
                if (d > maxDelta) {
                    maxDelta = d;
                }
            }
        }
        // Visible nodes, numbered in id order (so parents before children), and in the same pass the
        // children of visible nodes (visible or not: pruned siblings still take their width). A bit a
        // node marks the visible ones (an int a node would be 78 MB on a 20M-node tree, for some
        // thousands drawn); their numbers are their places in the id-ordered list of them.
        long[] visibleBits = new long[(size + 63) >>> 6];
        int[] visibleNodes = new int[1024];
        int visible = 1;
        visibleBits[0] = 1;
        int candidates = 0;
        int[] cand = new int[1024];
        for (int n = 1; n < size; n++) {
            int p = tree.parent(n);
            if ((visibleBits[p >>> 6] & (1L << p)) != 0) {
                if (candidates == cand.length) {
                    cand = Arrays.copyOf(cand, candidates * 2);
                }
                cand[candidates++] = n;
                if (total[n] >= threshold) {
                    visibleBits[n >>> 6] |= 1L << n;
                    if (visible == visibleNodes.length) {
                        visibleNodes = Arrays.copyOf(visibleNodes, visible * 2);
                    }
                    visibleNodes[visible++] = n;
                }
            }
        }
        final int[] drawn = Arrays.copyOf(visibleNodes, visible);
        IntUnaryOperator vis = n -> (visibleBits[n >>> 6] & (1L << n)) == 0 ? 0
                : Arrays.binarySearch(drawn, n) + 1; // visible index + 1, 0 = pruned
        cand = Arrays.copyOf(cand, candidates);
        int[] rank = o.sortByWeight ? null : nameRanks(tree, frames, cand);
        if (o.sortByWeight) {
            Integer[] boxed = new Integer[candidates];
            for (int i = 0; i < candidates; i++) {
                boxed[i] = cand[i];
            }
            int[] nameRank = nameRanks(tree, frames, cand);
            Arrays.sort(boxed, (a, b) -> {
                int pa = vis.applyAsInt(tree.parent(a)), pb = vis.applyAsInt(tree.parent(b));
                if (pa != pb) {
                    return Integer.compare(pa, pb);
                }
                int c = Long.compare(total[b], total[a]);
                return c != 0 ? c : Integer.compare(nameRank[tree.frame(a)], nameRank[tree.frame(b)]);
            });
            for (int i = 0; i < candidates; i++) {
                cand[i] = boxed[i];
            }
        } else {
            // key = parent's visible index (high) | frame rank (low): one primitive sort.
            long[] keys = new long[candidates];
            for (int i = 0; i < candidates; i++) {
                int n = cand[i];
                keys[i] = ((long) vis.applyAsInt(tree.parent(n)) << 32) | (rank[tree.frame(n)] & 0xFFFFFFFFL);
            }
            int[] idx = sortIndicesByKey(keys);
            int[] sorted = new int[candidates];
            for (int i = 0; i < candidates; i++) {
                sorted[i] = cand[idx[i]];
            }
            cand = sorted;
        }
        // Relative offsets of visible children, and children lists among visible nodes.
        long[] rel = new long[visible];
        int[] node = new int[visible];
        int[] firstChild = new int[visible];
        int[] nextSibling = new int[visible];
        Arrays.fill(firstChild, -1);
        Arrays.fill(nextSibling, -1);
        int[] lastChild = new int[visible];
        Arrays.fill(lastChild, -1);
        node[0] = 0;
        int i = 0;
        while (i < candidates) {
            int p = tree.parent(cand[i]);
            int pv = vis.applyAsInt(p) - 1;
            long offset = tree.self(p, col); // self samples sit left of the children, as in sorted lines
            for (; i < candidates && tree.parent(cand[i]) == p; i++) {
                int c = cand[i];
                int cv = vis.applyAsInt(c) - 1;
                if (cv >= 0) {
                    rel[cv] = offset;
                    node[cv] = c;
                    if (lastChild[pv] < 0) {
                        firstChild[pv] = cv;
                    } else {
                        nextSibling[lastChild[pv]] = cv;
                    }
                    lastChild[pv] = cv;
                }
                offset += total[c];
            }
        }
        long[] before = diff ? tree.totals(0) : null;
        // Preorder walk of visible nodes.
        FrameLayout l = new FrameLayout(visible, diff);
        l.samples = samples;
        l.timeMax = timeMax;
        l.maxDelta = maxDelta;
        boolean chain = o.palette == Palette.CHAIN;
        int sep = chain ? separatorFrame(frames) : -2;
        int at = 0;
        // Iterative depth-first walk; a child's start is its parent's plus its relative offset.
        int[] dfs = new int[visible];
        int[] dfsDepth = new int[visible];
        int top = 0;
        dfs[top] = 0;
        dfsDepth[top++] = 0;
        long[] startByVis = new long[visible];
        int[] drawOfVis = new int[visible];
        while (top > 0) {
            int v = dfs[--top];
            int d = dfsDepth[top];
            int n = node[v];
            int idx = at++;
            drawOfVis[v] = idx;
            l.frame[idx] = n == 0 ? -1 : tree.frame(n);
            l.depth[idx] = d;
            l.width[idx] = n == 0 ? timeMax : total[n];
            l.start[idx] = startByVis[v];
            if (diff) {
                l.delta[idx] = n == 0 ? 0 : tree.self(n, 1) - tree.self(n, 0);
                l.before[idx] = before[n];
            }
            if (chain && n != 0) {
                int pv = v == 0 ? -1 : vis.applyAsInt(tree.parent(n)) - 1;
                if (pv > 0) {
                    int pidx = drawOfVis[pv];
                    l.waker[idx] = l.waker[pidx] || l.frame[pidx] == sep;
                }
            }
            if (d > l.maxDepth) {
                l.maxDepth = d;
            }
            // push children in reverse so the first is popped first
            int cnt = 0;
            for (int c = firstChild[v]; c >= 0; c = nextSibling[c]) {
                startByVis[c] = startByVis[v] + rel[c];
                cnt++;
            }
            int base = top + cnt;
            int j = base;
            for (int c = firstChild[v]; c >= 0; c = nextSibling[c]) {
                j--;
                dfs[j] = c;
                dfsDepth[j] = d + 1;
            }
            top = base;
        }
        l.count = at;
        return l;
    }

    /**
     * Lays out the wide nodes of a merged profile, already placed and in preorder: the ones that
     * reach the minimum width are drawn as they come.
     */
    static FrameLayout of(WideNodes w, FlameGraphOptions o, java.util.function.Consumer<String> warn) {
        boolean diff = w.isDifferential();
        long samples = w.samples[w.samples.length - 1];
        long timeMax = timeMax(o, samples, warn);
        double threshold = threshold(o, Math.max(1, timeMax));
        int visible = 1;
        int deepest = 0;
        for (int i = 0; i < w.count; i++) {
            if (w.total[i] >= threshold) {
                visible++;
                deepest = Math.max(deepest, w.depth[i]);
            }
        }
        FrameLayout l = new FrameLayout(visible, diff);
        l.samples = samples;
        l.timeMax = timeMax;
        l.maxDelta = diff ? w.maxDelta : 1;
        l.frame[0] = -1;
        l.width[0] = timeMax;
        if (diff) {
            l.before[0] = w.samples[0];
        }
        int sep = o.palette == Palette.CHAIN ? separatorFrame(w.frames) : -2;
        int[] lastAt = new int[deepest + 1]; // the last drawn frame at each depth: the parent of the next one deeper
        int at = 1;
        for (int i = 0; i < w.count; i++) {
            if (w.total[i] < threshold) {
                continue;
            }
            int d = w.depth[i];
            l.frame[at] = w.frame[i];
            l.depth[at] = d;
            l.start[at] = w.start[i];
            l.width[at] = w.total[i];
            if (diff) {
                l.delta[at] = w.delta[i];
                l.before[at] = w.before[i];
            }
            int parent = lastAt[d - 1];
            l.waker[at] = parent != 0 && (l.waker[parent] || l.frame[parent] == sep);
            lastAt[d] = at;
            l.maxDepth = Math.max(l.maxDepth, d);
            at++;
        }
        l.count = at;
        return l;
    }

    private static int separatorFrame(FrameTable frames) {
        for (int f = 0; f < frames.size(); f++) {
            if (frames.names().length(frames.nameId(f)) == 2 && "--".equals(frames.name(f))) {
                return f;
            }
        }
        return -2;
    }

    /** Indices 0..n-1 sorted by keys (stable). */
    private static int[] sortIndicesByKey(long[] keys) {
        int n = keys.length;
        // A stable merge sort of an index array: no boxing, no object per node.
        int[] idx = new int[n];
        for (int i = 0; i < n; i++) {
            idx[i] = i;
        }
        int[] tmp = new int[n];
        mergeSort(idx, tmp, 0, n, keys);
        return idx;
    }

    private static void mergeSort(int[] a, int[] tmp, int lo, int hi, long[] keys) {
        if (hi - lo < 24) {
            for (int i = lo + 1; i < hi; i++) {
                int x = a[i];
                long kx = keys[x];
                int j = i - 1;
                while (j >= lo && keys[a[j]] > kx) {
                    a[j + 1] = a[j];
                    j--;
                }
                a[j + 1] = x;
            }
            return;
        }
        int mid = (lo + hi) >>> 1;
        mergeSort(a, tmp, lo, mid, keys);
        mergeSort(a, tmp, mid, hi, keys);
        if (keys[a[mid - 1]] <= keys[a[mid]]) {
            return;
        }
        System.arraycopy(a, lo, tmp, lo, hi - lo);
        int i = lo, j = mid, k = lo;
        while (i < mid && j < hi) {
            a[k++] = keys[tmp[j]] < keys[tmp[i]] ? tmp[j++] : tmp[i++];
        }
        while (i < mid) {
            a[k++] = tmp[i++];
        }
        while (j < hi) {
            a[k++] = tmp[j++];
        }
    }

    /**
     * Ranks of the frames used by {@code nodes}, in the order flamegraph.pl's sorted lines put them:
     * byte order of the name followed by ';' (so "foo::bar" sorts before "foo", whose lines continue
     * with ';' — 0x3B — and ':' is 0x3A).
     */
    static int[] nameRanks(CallTree tree, FrameTable frames, int[] nodes) {
        int nf = frames.size();
        boolean[] used = new boolean[nf];
        int distinct = 0;
        for (int n : nodes) {
            int f = tree.frame(n);
            if (!used[f]) {
                used[f] = true;
                distinct++;
            }
        }
        byte[][] names = new byte[nf][];
        Integer[] order = new Integer[distinct];
        int k = 0;
        for (int f = 0; f < nf; f++) {
            if (used[f]) {
                names[f] = frames.nameBytes(f);
                order[k++] = f;
            }
        }
        Arrays.sort(order, (a, b) -> compareAsLine(names[a], names[b]));
        int[] rank = new int[nf];
        for (int i = 0; i < distinct; i++) {
            rank[order[i]] = i;
        }
        return rank;
    }

    static int compareAsLine(byte[] a, byte[] b) {
        int m = Arrays.mismatch(a, b);
        if (m < 0) {
            return 0;
        }
        int ca = m < a.length ? a[m] & 0xFF : ';';
        int cb = m < b.length ? b[m] & 0xFF : ';';
        if (ca != cb) {
            return Integer.compare(ca, cb);
        }
        return Integer.compare(a.length, b.length);
    }

    /** Lays out a flame chart: nodes already in time order, children in creation order. */
    static FrameLayout of(ChartTree t, FrameTable frames, FlameGraphOptions o, java.util.function.Consumer<String> warn) {
        boolean diff = t.differential;
        long[] total = t.totals(diff ? 1 : 0);
        long samples = total[0];
        long timeMax = timeMax(o, samples, warn);
        double threshold = threshold(o, Math.max(1, timeMax));
        long maxDelta = 1;
        if (diff) {
            for (int n = 1; n < t.size; n++) {
                maxDelta = Math.max(maxDelta, Math.abs(t.self(n, 1) - t.self(n, 0)));
            }
        }
        // Drawn nodes: the draw index + 1 of each (parents come first, so one pass).
        int[] drawOf = new int[t.size];
        drawOf[0] = 1;
        int visible = 1;
        for (int n = 1; n < t.size; n++) {
            if (drawOf[t.parent(n)] != 0 && total[n] >= threshold) {
                drawOf[n] = ++visible;
            }
        }
        long[] before = diff ? t.totals(0) : null;
        FrameLayout l = new FrameLayout(visible, diff);
        l.samples = samples;
        l.timeMax = timeMax;
        l.maxDelta = maxDelta;
        int sep = o.palette == Palette.CHAIN ? separatorFrame(frames) : -2;
        for (int n = 0; n < t.size; n++) {
            if (drawOf[n] == 0) {
                continue;
            }
            int idx = drawOf[n] - 1;
            l.frame[idx] = n == 0 ? -1 : t.frame(n);
            l.start[idx] = t.start(n);
            l.width[idx] = n == 0 ? timeMax : total[n];
            if (diff) {
                l.delta[idx] = n == 0 ? 0 : t.self(n, 1) - t.self(n, 0);
                l.before[idx] = before[n];
            }
            if (n != 0) {
                int pidx = drawOf[t.parent(n)] - 1;
                l.depth[idx] = l.depth[pidx] + 1;
                l.waker[idx] = pidx != 0 && (l.waker[pidx] || l.frame[pidx] == sep);
            }
            l.maxDepth = Math.max(l.maxDepth, l.depth[idx]);
        }
        l.count = visible;
        return l;
    }

    /**
     * inferno's drawing order (it matters only for inferno's default colours, which are drawn from
     * one random sequence in that order): a frame is emitted when the line after its last line
     * arrives; frames closing together come out shallowest first; the root and the last open path
     * close at the end.
     */
    int[] infernoOrder() {
        int[] out = new int[count];
        int k = 0;
        int[] open = new int[maxDepth + 2];
        int sp = 0;
        for (int i = 0; i < count; i++) {
            int d = depth[i];
            // nodes with depth >= d close now, shallowest first
            int from = sp;
            while (from > 0 && depth[open[from - 1]] >= d) {
                from--;
            }
            for (int j = from; j < sp; j++) {
                out[k++] = open[j];
            }
            sp = from;
            open[sp++] = i;
        }
        for (int j = 0; j < sp; j++) {
            out[k++] = open[j];
        }
        return out;
    }
}
