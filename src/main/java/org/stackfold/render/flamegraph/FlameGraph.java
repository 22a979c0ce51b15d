package org.stackfold.render.flamegraph;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongToDoubleFunction;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;
import org.stackfold.model.Timeline;
import org.stackfold.model.WideNodes;

/**
 * Renders flame graphs (merged, sorted stacks) and flame charts (input order) as interactive SVG.
 * Data flow: profile (its stacks already rewritten for --reverse/--base by the caller: {@code transform.Reverse},
 * {@code transform.BaseSymbols}) → {@link FrameLayout} (only visible frames) → {@link SvgWriter} with
 * {@link FrameColors}.
 */
public final class FlameGraph {
    private FlameGraph() {
    }

    /** Thrown after the "no stack counts" SVG has been written. */
    public static final class EmptyProfileException extends RuntimeException {
        public EmptyProfileException() {
            super("no stack counts found");
        }
    }

    /**
     * Renders a merged profile as it is; a differential profile (two columns) is drawn as a differential
     * graph. {@code --reverse} and {@code --base} are the caller's: apply {@code transform.Reverse} and
     * {@code transform.BaseSymbols} first (the options' flags only name them here).
     */
    public static void render(Profile profile, FlameGraphOptions o, OutputStream out, Consumer<String> warn)
            throws IOException {
        o.validate();
        CallTree tree = profile.tree();
        long samples = tree.totalSamples(tree.weights() - 1);
        checkSamples(samples, o, out, warn);
        FrameLayout layout = FrameLayout.of(tree, profile.frames(), o, warn);
        write(layout, profile.frames(), o, out, warn);
    }

    /**
     * Renders the trees of a parallel read that share no root frame, as {@link #render} renders the
     * tree they would make appended (same SVG), without appending them: only what the layout reads is
     * taken from them ({@link VisibleTree}). {@code frameMaps.get(i)} maps tree i's frame ids to
     * {@code frames}'. No stack rewrites: with --base or --reverse use {@link #render}.
     */
    public static void renderRanges(FrameTable frames, List<CallTree> trees, List<int[]> frameMaps,
                                    FlameGraphOptions o, OutputStream out, Consumer<String> warn) throws IOException {
        o.validate();
        if (StackTransforms.needed(o)) {
            throw new IllegalArgumentException("stack rewrites need one tree: use render");
        }
        VisibleTree visible = VisibleTree.of(trees, frameMaps, o);
        long samples = visible.samples[visible.samples.length - 1];
        checkSamples(samples, o, out, warn);
        FrameLayout layout = FrameLayout.of(visible.tree, frames, o, warn, visible.maxDelta);
        write(layout, frames, o, out, warn);
    }

    /**
     * The least total a node needs to be drawn on a flame graph of {@code samples} samples (or more):
     * what a reader of sorted stacks keeps ({@code FoldedReader.readWide}). Null where nodes of any width are drawn
     * (a minimum width of 0), which no reading without a tree can serve.
     */
    public static LongToDoubleFunction minWidth(FlameGraphOptions o) {
        o.validate();
        if (o.sortByWeight || StackTransforms.needed(o) || !(FrameLayout.threshold(o, 1) > 0)) {
            return null;
        }
        return samples -> FrameLayout.threshold(o, Math.max(1, samples));
    }

    /**
     * Renders wide nodes read without a tree (see {@link #minWidth}): the same SVG as {@link #render}
     * of the profile they were read from.
     */
    public static void renderWide(WideNodes nodes, FlameGraphOptions o, OutputStream out, Consumer<String> warn)
            throws IOException {
        o.validate();
        long samples = nodes.samples[nodes.samples.length - 1];
        checkSamples(samples, o, out, warn);
        write(FrameLayout.of(nodes, o, warn), nodes.frames, o, out, warn);
    }

    /**
     * Renders a flame chart: the x axis is the profile's {@link Timeline} (sample order), thread by
     * thread; neighbouring samples share their common leading frames. flamegraph.pl draws the first
     * sample leftmost, inferno the last.
     */
    public static void renderChart(Profile profile, FlameGraphOptions o, OutputStream out, Consumer<String> warn)
            throws IOException {
        o.validate();
        Timeline tl = profile.timeline();
        if (tl == null) {
            throw new IllegalArgumentException("a flame chart needs a profile with a timeline");
        }
        CallTree tree = profile.tree();
        ChartTree chart = new ChartTree(tl.isDifferential());
        int[] order = byThread(tl);
        int[] buf = new int[64];
        for (int k = 0; k < order.length; k++) {
            int i = order[o.inferno() ? order.length - 1 - k : k];
            int n = 0;
            for (int m = tl.node(i); m != CallTree.ROOT; m = tree.parent(m)) {
                n++;
            }
            if (buf.length < n) {
                buf = new int[n * 2];
            }
            int d = n;
            for (int m = tl.node(i); m != CallTree.ROOT; m = tree.parent(m)) {
                buf[o.reverse ? n - d : d - 1] = tree.frame(m);
                d--;
            }
            chart.add(buf, 0, n, tl.before(i), tl.weight(i));
        }
        long samples = chart.totals(chart.differential ? 1 : 0)[0];
        if (samples == 0) {
            new SvgWriter(o, out).writeEmpty();
            throw new EmptyProfileException();
        }
        FrameLayout layout = FrameLayout.of(chart, profile.frames(), o, warn);
        write(layout, profile.frames(), o, out, warn);
    }

    /** Sample indices grouped by thread (threads in order of first appearance), in order within each. */
    private static int[] byThread(Timeline tl) {
        java.util.Map<Long, Integer> rank = new java.util.HashMap<>();
        long[] keys = new long[tl.size()];
        for (int i = 0; i < keys.length; i++) {
            int r = rank.computeIfAbsent(tl.threadId(i), t -> rank.size());
            keys[i] = ((long) r << 32) | i;
        }
        java.util.Arrays.sort(keys);
        int[] order = new int[keys.length];
        for (int i = 0; i < keys.length; i++) {
            order[i] = (int) keys[i];
        }
        return order;
    }

    /**
     * A graph of no samples is the small error picture both peers draw (then {@link EmptyProfileException});
     * few samples get flamegraph.pl's warning.
     */
    private static void checkSamples(long samples, FlameGraphOptions o, OutputStream out, Consumer<String> warn)
            throws IOException {
        if (samples == 0) {
            new SvgWriter(o, out).writeEmpty();
            throw new EmptyProfileException();
        }
        if (o.countName.equals("samples") && samples < 100 && !o.inferno()) {
            warn.accept("stack count is low (" + samples + "); did something go wrong?");
        }
    }

    private static void write(FrameLayout layout, FrameTable frames, FlameGraphOptions o, OutputStream out,
                              Consumer<String> warn) throws IOException {
        PaletteMap map = o.paletteFile == null ? null : PaletteMap.load(Path.of(o.paletteFile), warn);
        new SvgWriter(o, out).write(layout, frames, new FrameColors(o), map);
        if (map != null) {
            map.save(Path.of(o.paletteFile));
        }
    }
}
