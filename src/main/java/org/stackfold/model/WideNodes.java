package org.stackfold.model;

/**
 * The wide nodes of a merged call tree, placed as a flame graph places them, without the tree: what
 * a reader of byte-sorted stacks can hand a flame graph after one pass, keeping only the nodes whose
 * total reached a lower bound of the minimum width (a few hundred thousand where the tree has
 * millions).
 *
 * <p>Nodes come in preorder with children in flamegraph.pl's order (byte order of the name followed
 * by ';', self samples first); {@code start} is the x position in samples (the totals of everything
 * drawn to the left, at every depth), {@code total} the width. Columns are indexed by node, the first
 * {@code count} entries (the arrays may be longer); depth 1 is a root frame (depth 0, the "all" node,
 * is not listed).
 */
public final class WideNodes {
    public final FrameTable frames;
    public final int count;
    public final int[] frame;
    public final int[] depth;
    public final long[] start;
    /** Totals of the drawn column (the last: "after" where differential). */
    public final long[] total;
    /** Differential only: totals of the "before" column; otherwise null. */
    public final long[] before;
    /** Differential only: own count after minus own count before; otherwise null. */
    public final long[] delta;
    /** The sum of each column over the whole input. */
    public final long[] samples;
    /** Differential only: the largest |delta| over every node of the tree, listed or not (at least 1). */
    public final long maxDelta;

    public WideNodes(FrameTable frames, int count, int[] frame, int[] depth, long[] start, long[] total,
                     long[] before, long[] delta, long[] samples, long maxDelta) {
        this.frames = frames;
        this.count = count;
        this.frame = frame;
        this.depth = depth;
        this.start = start;
        this.total = total;
        this.before = before;
        this.delta = delta;
        this.samples = samples;
        this.maxDelta = maxDelta;
    }

    public boolean isDifferential() {
        return before != null;
    }
}
