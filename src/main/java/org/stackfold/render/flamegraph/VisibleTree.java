package org.stackfold.render.flamegraph;

import java.util.List;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.stackfold.model.CallTree;

/**
 * What a flame graph's layout reads of a big call tree, cut from the trees of a parallel read
 * (ranges that share no root frame) without first appending them into one: the visible nodes and
 * their children, in one small tree whose totals equal the originals at every node it keeps.
 *
 * <p>A node is drawn when its total reaches the minimum width and its parent is drawn; totals never
 * grow from parent to child (counts are not negative), so "drawn" is just "total reaches the width".
 * The layout also reads the children of drawn nodes (their totals place the siblings after them), so
 * those are kept too, each undrawn one as a leaf whose own count is its total. Every range's totals
 * are summed on its own core; the kept part is some thousands of nodes where the ranges hold
 * millions.
 */
final class VisibleTree {
    final CallTree tree;
    /** Differential: the largest |after - before| own count over all nodes of the ranges (at least 1). */
    final long maxDelta;
    /** The sum of each column over the ranges. */
    final long[] samples;

    private VisibleTree(CallTree tree, long maxDelta, long[] samples) {
        this.tree = tree;
        this.maxDelta = maxDelta;
        this.samples = samples;
    }

    /** One range's totals: of the drawn column, of column 0 where differential, and its largest delta. */
    private record Totals(long[] drawn, long[] before, long maxDelta) {
    }

    /** {@code frameMaps.get(i)} maps range i's frame ids to the ones of the profile's frame table. */
    static VisibleTree of(List<CallTree> ranges, List<int[]> frameMaps, FlameGraphOptions o) {
        int weights = ranges.getFirst().weights();
        int col = weights - 1;
        Totals[] totals = new Totals[ranges.size()];
        IntStream.range(0, ranges.size()).parallel().forEach(i -> totals[i] = totals(ranges.get(i), col));
        long[] samples = new long[weights];
        long maxDelta = 1;
        for (Totals t : totals) {
            samples[col] = Math.addExact(samples[col], t.drawn[0]);
            if (col == 1) {
                samples[0] = Math.addExact(samples[0], t.before[0]);
            }
            maxDelta = Math.max(maxDelta, t.maxDelta);
        }
        Consumer<String> quiet = w -> { }; // the layout says what timeMax has to say, once
        double threshold = FrameLayout.threshold(o, Math.max(1, FrameLayout.timeMax(o, samples[col], quiet)));
        int[][] drawn = new int[ranges.size()][];
        IntStream.range(0, ranges.size()).parallel().forEach(i -> drawn[i] = drawn(totals[i].drawn, threshold));
        CallTree out = new CallTree(weights);
        for (int c = 0; c < weights; c++) {
            long self = 0;
            for (CallTree r : ranges) {
                self = Math.addExact(self, r.self(CallTree.ROOT, c));
            }
            out.setSelf(CallTree.ROOT, c, self);
        }
        for (int i = 0; i < ranges.size(); i++) {
            keep(ranges.get(i), frameMaps.get(i), totals[i], drawn[i], threshold, out);
        }
        return new VisibleTree(out, maxDelta, samples);
    }

    private static Totals totals(CallTree t, int col) {
        int size = t.size();
        long[] total = new long[size];
        long[] before = col == 1 ? new long[size] : null;
        long maxDelta = 1;
        for (int n = size - 1; n > 0; n--) {
            long s = t.self(n, col);
            long tn = Math.addExact(total[n], s);
            total[n] = tn;
            int p = t.parent(n);
            total[p] = Math.addExact(total[p], tn);
            if (before != null) {
                long s0 = t.self(n, 0);
                maxDelta = Math.max(maxDelta, Math.abs(s - s0));
                long bn = Math.addExact(before[n], s0);
                before[n] = bn;
                before[p] = Math.addExact(before[p], bn);
            }
        }
        total[0] = Math.addExact(total[0], t.self(0, col));
        if (before != null) {
            before[0] = Math.addExact(before[0], t.self(0, 0));
        }
        return new Totals(total, before, maxDelta);
    }

    /** The nodes past the root whose total reaches the threshold, in id order. */
    private static int[] drawn(long[] total, double threshold) {
        int[] nodes = new int[1024];
        int k = 0;
        for (int n = 1; n < total.length; n++) {
            if (total[n] >= threshold) {
                if (k == nodes.length) {
                    nodes = java.util.Arrays.copyOf(nodes, k * 2);
                }
                nodes[k++] = n;
            }
        }
        return java.util.Arrays.copyOf(nodes, k);
    }

    /**
     * Copies the range's root frames and the children of its drawn nodes into {@code out}: drawn ones
     * with their own counts, the others as leaves carrying their totals. Drawn nodes come in id order,
     * so each is in {@code out} (as its parent's child) before its own children are copied.
     */
    private static void keep(CallTree t, int[] frameMap, Totals totals, int[] drawn, double threshold, CallTree out) {
        int[] copyOf = new int[drawn.length]; // out's id of each drawn node
        copyChildren(t, frameMap, totals, CallTree.ROOT, CallTree.ROOT, drawn, copyOf, threshold, out);
        for (int i = 0; i < drawn.length; i++) {
            copyChildren(t, frameMap, totals, drawn[i], copyOf[i], drawn, copyOf, threshold, out);
        }
    }

    private static void copyChildren(CallTree t, int[] frameMap, Totals totals, int node, int copy, int[] drawn,
                                     int[] copyOf, double threshold, CallTree out) {
        for (int c = t.firstChild(node); c != 0; c = t.nextSibling(c)) {
            int k = out.newChild(copy, frameMap[t.frame(c)]);
            if (totals.drawn[c] >= threshold) {
                copyOf[java.util.Arrays.binarySearch(drawn, c)] = k;
                for (int w = 0; w < t.weights(); w++) {
                    out.setSelf(k, w, t.self(c, w));
                }
            } else {
                out.setSelf(k, t.weights() - 1, totals.drawn[c]);
                if (totals.before != null) {
                    out.setSelf(k, 0, totals.before[c]);
                }
            }
        }
    }
}
