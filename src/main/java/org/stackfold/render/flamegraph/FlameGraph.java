package org.stackfold.render.flamegraph;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
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
        render(profile, o, out, warn, false);
    }

    /**
     * Renders a profile; {@code rewritten}: the stacks already went through --base/--reverse (see
     * {@link StackTransforms#readFolded}).
     */
    public static void render(Profile profile, FlameGraphOptions o, OutputStream out, Consumer<String> warn,
                              boolean rewritten) throws IOException {
        o.validate();
        CallTree tree = profile.tree();
        if (!rewritten && StackTransforms.needed(o)) {
            tree = StackTransforms.apply(tree, profile.frames(), o);
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
        ChartTree[] chart = {null};
        int[][] buf = {new int[64]};
        boolean reverse = o.reverse;
        // inferno draws the last line leftmost, so it needs all records before building; flamegraph.pl
        // draws the first leftmost and the chart is built while reading.
        RecordList records = o.inferno() ? new RecordList() : null;
        OrderedFoldedReader.Stats stats = OrderedFoldedReader.read(in, frames, (ids, depth, count, count2) -> {
            if (records != null) {
                records.add(ids, depth, count, count2);
                return;
            }
            if (chart[0] == null) {
                chart[0] = new ChartTree(count2 >= 0);
            }
            add(chart[0], ids, 0, depth, reverse, buf, count2 >= 0 ? count : 0, count2 >= 0 ? count2 : count);
        });
        if (stats.skipped() > 0) {
            warn.accept(in.name() + ": ignored " + stats.skipped() + " lines with invalid format");
        }
        if (stats.fractional() > 0) {
            warn.accept(in.name() + ": fractional sample counts were truncated to integers"
                    + " (scale the counts up and use --factor to keep the precision)");
        }
        if (records != null) {
            chart[0] = new ChartTree(stats.differential());
            for (int r = records.size - 1; r >= 0; r--) {
                add(chart[0], records.frames, records.offset[r], records.offset[r + 1], reverse, buf, records.before[r],
                        records.after[r]);
            }
        }
        if (chart[0] == null) {
            chart[0] = new ChartTree(false);
        }
        ChartTree tree = chart[0];
        long samples = tree.totals(tree.differential ? 1 : 0)[0];
        if (samples == 0) {
            new SvgWriter(o, out).writeEmpty();
            throw new EmptyProfileException();
        }
        FrameLayout layout = FrameLayout.of(tree, frames, o, warn);
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

    /** Adds one record to the chart, its frames reversed for --reverse. */
    private static void add(ChartTree chart, int[] ids, int from, int to, boolean reverse, int[][] buf, long before,
                            long after) {
        int n = to - from;
        if (buf[0].length < n) {
            buf[0] = new int[n * 2];
        }
        int[] b = buf[0];
        for (int j = 0; j < n; j++) {
            b[j] = ids[reverse ? to - 1 - j : from + j];
        }
        chart.add(b, 0, n, before, after);
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
