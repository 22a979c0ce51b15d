package org.stackfold.render.flamegraph;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.function.Consumer;
import org.stackfold.format.folded.OrderedFoldedReader;
import org.stackfold.io.Input;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/**
 * Renders flame graphs (merged, sorted stacks) and flame charts (input order) as interactive SVG.
 * Data flow: profile → optional stack rewrites ({@link StackTransforms}) → {@link FrameLayout} (only
 * visible frames) → {@link SvgWriter} with {@link FrameColors}.
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

    /** Renders a merged profile; a differential profile (two columns) is drawn as a differential graph. */
    public static void render(Profile profile, FlameGraphOptions o, OutputStream out, Consumer<String> warn)
            throws IOException {
        o.validate();
        CallTree tree = profile.tree();
        if (!o.base.isEmpty()) {
            tree = StackTransforms.base(tree, profile.frames(), new HashSet<>(o.base), o.inferno());
        }
        if (o.reverse) {
            tree = StackTransforms.reverse(tree, profile.frames());
        }
        long samples = tree.totalSamples(tree.weights() - 1);
        if (samples == 0) {
            new SvgWriter(o, out).writeEmpty();
            throw new EmptyProfileException();
        }
        if (o.countName.equals("samples") && samples < 100 && !o.inferno()) {
            warn.accept("stack count is low (" + samples + "); did something go wrong?");
        }
        FrameLayout layout = FrameLayout.of(tree, profile.frames(), o, warn);
        write(layout, profile.frames(), o, out, warn);
    }

    /** Renders a flame chart from folded input read in order (the x axis is input order, i.e. time). */
    public static void renderChart(Input in, FlameGraphOptions o, OutputStream out, Consumer<String> warn)
            throws IOException {
        o.validate();
        FrameTable frames = new FrameTable();
        RecordList records = new RecordList();
        OrderedFoldedReader.Stats stats = OrderedFoldedReader.read(in, frames, records::add);
        if (stats.skipped() > 0) {
            warn.accept(in.name() + ": ignored " + stats.skipped() + " lines with invalid format");
        }
        if (stats.fractional() > 0) {
            warn.accept(in.name() + ": fractional sample counts were truncated to integers"
                    + " (scale the counts up and use --factor to keep the precision)");
        }
        ChartTree chart = new ChartTree(stats.differential());
        // inferno draws the last line leftmost; flamegraph.pl the first.
        boolean backwards = o.inferno();
        int[] buf = new int[64];
        for (int k = 0; k < records.size; k++) {
            int r = backwards ? records.size - 1 - k : k;
            int from = records.offset[r];
            int to = records.offset[r + 1];
            int n = to - from;
            if (buf.length < n) {
                buf = new int[n * 2];
            }
            for (int j = 0; j < n; j++) {
                buf[j] = records.frames[o.reverse ? to - 1 - j : from + j];
            }
            chart.add(buf, 0, n, records.before[r], records.after[r]);
        }
        long samples = chart.totals(stats.differential() ? 1 : 0)[0];
        if (samples == 0) {
            new SvgWriter(o, out).writeEmpty();
            throw new EmptyProfileException();
        }
        FrameLayout layout = FrameLayout.of(chart, frames, o, warn);
        write(layout, frames, o, out, warn);
    }

    private static void write(FrameLayout layout, FrameTable frames, FlameGraphOptions o, OutputStream out,
                              Consumer<String> warn) throws IOException {
        PaletteMap map = o.paletteFile == null ? null : PaletteMap.load(Path.of(o.paletteFile), warn);
        new SvgWriter(o, out).write(layout, frames, new FrameColors(o), map);
        if (map != null) {
            map.save(Path.of(o.paletteFile));
        }
    }

    /** Records of an ordered read, flattened. */
    private static final class RecordList {
        int size;
        int[] offset = new int[1025];
        int[] frames = new int[4096];
        long[] before = new long[1024];
        long[] after = new long[1024];

        void add(int[] ids, int depth, long count, long count2) {
            if (size + 1 >= offset.length) {
                offset = java.util.Arrays.copyOf(offset, offset.length * 2);
                before = java.util.Arrays.copyOf(before, offset.length);
                after = java.util.Arrays.copyOf(after, offset.length);
            }
            int at = offset[size];
            if (at + depth > frames.length) {
                frames = java.util.Arrays.copyOf(frames, Math.max(at + depth, frames.length * 2));
            }
            System.arraycopy(ids, 0, frames, at, depth);
            // A plain record has one count: it is both the width and (unused) "before".
            before[size] = count2 >= 0 ? count : 0;
            after[size] = count2 >= 0 ? count2 : count;
            size++;
            offset[size] = at + depth;
        }
    }
}
