package org.stackfold.format.folded;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongToDoubleFunction;
import org.junit.jupiter.api.Test;
import org.stackfold.io.Input;
import org.stackfold.model.WideNodes;
import org.stackfold.render.flamegraph.FlameGraph;
import org.stackfold.render.flamegraph.FlameGraphOptions;
import org.stackfold.render.flamegraph.Palette;

/**
 * {@link FoldedReader#readWide} (a flame graph's wide nodes in one pass over byte-sorted stacks,
 * without a tree) drawn by {@link FlameGraph#renderWide}, against {@link FlameGraph#render} of the
 * tree {@link FoldedReader#read} builds from the same bytes: the same SVG, byte for byte, on seeded
 * random profiles read whole and cut into two and three ranges, over names that start with each other
 * and go on with bytes below and above ';' (the nodes a flame graph puts after their lines' order).
 */
class WideNodesTest {
    private static final String[] NAMES = {"b", "b x", "b.y", "b2", "bz", "b-c", "b+0x5d", "b!", "c", "c c", "cc",
        "b 1", "--", "[b]", "b::c"};
    private static final String[] ROOTS = {"r", "r2", "r!", "r-x", "s", "t"};

    private record Stack(String stack, long before, long after) {
    }

    private static List<Stack> stacks(SplittableRandom r, boolean differential) {
        List<Stack> out = new ArrayList<>();
        int n = r.nextInt(1, 300);
        int roots = r.nextInt(1, ROOTS.length + 1);
        for (int i = 0; i < n; i++) {
            StringBuilder sb = new StringBuilder(ROOTS[r.nextInt(roots)]);
            int depth = r.nextInt(0, 6);
            for (int d = 0; d < depth; d++) {
                sb.append(';').append(NAMES[r.nextInt(NAMES.length)]);
            }
            long after = r.nextInt(8) == 0 ? r.nextInt(1, 5000) : r.nextInt(0, 40);
            out.add(new Stack(sb.toString(), differential ? r.nextInt(0, 60) : 0, after));
        }
        return out;
    }

    /** The stacks in byte order of the stack (so a stack comes before the ones going on from it). */
    private static byte[] sortedText(List<Stack> stacks, boolean differential) {
        List<Stack> sorted = new ArrayList<>(stacks);
        sorted.sort(Comparator.comparing(Stack::stack));
        StringBuilder sb = new StringBuilder();
        for (Stack s : sorted) {
            sb.append(s.stack).append(' ');
            if (differential) {
                sb.append(s.before).append(' ');
            }
            sb.append(s.after).append('\n');
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The same stacks in a shape only the general line loop reads: CRLF, a comment, a fraction, a blank line. */
    private static byte[] otherShape(byte[] data, SplittableRandom r) {
        String text = new String(data, StandardCharsets.UTF_8);
        String shaped = switch (r.nextInt(4)) {
            case 0 -> text.replace("\n", "\r\n");
            case 1 -> "# a comment\n" + text;
            case 2 -> text.replaceFirst(" (\\d+)\n", " $1.5\n");
            default -> text.replaceFirst("\n", "\n\n");
        };
        return shaped.getBytes(StandardCharsets.UTF_8);
    }

    private static FlameGraphOptions options(SplittableRandom r) {
        FlameGraphOptions o = new FlameGraphOptions();
        o.compat = r.nextBoolean() ? FlameGraphOptions.Compat.PERL : FlameGraphOptions.Compat.INFERNO;
        o.minWidth = switch (r.nextInt(4)) {
            case 0 -> null;
            case 1 -> "0.01";
            case 2 -> "3";
            default -> "0.5%";
        };
        o.inverted = r.nextInt(4) == 0;
        o.palette = r.nextInt(4) == 0 ? Palette.CHAIN : Palette.HOT;
        o.colorMode = r.nextBoolean() ? FlameGraphOptions.ColorMode.HASH : FlameGraphOptions.ColorMode.DEFAULT;
        o.total = r.nextInt(5) == 0 ? r.nextInt(1, 100_000) : 0;
        o.width = r.nextInt(300, 1500);
        return o;
    }

    /** The SVG drawn from the tree; null where the profile has no samples. */
    private static String viaTree(byte[] data, FoldedReader.Mode mode, FlameGraphOptions o) throws IOException {
        try (Input in = Input.ofBytes("t.folded", data)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            FlameGraph.render(new FoldedReader(mode, true, 1, w -> { }, 1).read(in).profile(), o, out, w -> { });
            return out.toString(StandardCharsets.UTF_8);
        } catch (FlameGraph.EmptyProfileException e) {
            return null;
        }
    }

    private static WideNodes wide(byte[] data, FoldedReader.Mode mode, int threads, LongToDoubleFunction minWidth)
            throws IOException {
        try (Input in = Input.ofBytes("t.folded", data)) {
            return new FoldedReader(mode, true, threads, w -> { }, 1).readWide(in, minWidth);
        }
    }

    private static String drawn(WideNodes nodes, FlameGraphOptions o) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        FlameGraph.renderWide(nodes, o, out, w -> { });
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void theSameSvgAsTheTree() throws IOException {
        int read = 0;
        int cut = 0;
        for (long seed = 0; seed < 300; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            boolean differential = seed % 3 == 0;
            FoldedReader.Mode mode = differential ? FoldedReader.Mode.DIFFERENTIAL : FoldedReader.Mode.PLAIN;
            byte[] data = sortedText(stacks(r, differential), differential);
            FlameGraphOptions o = options(r);
            String expected = viaTree(data, mode, o);
            if (expected == null) {
                continue; // no samples: nothing drawn either way
            }
            if (seed % 5 == 1) {
                data = otherShape(data, r); // the general line loop's to read
            }
            for (int threads = 1; threads <= 3; threads++) {
                WideNodes nodes = wide(data, mode, threads, FlameGraph.minWidth(o));
                if (threads == 1) {
                    assertThat(nodes).as("seed %d: sorted stacks are read without a tree", seed).isNotNull();
                    try (Input in = Input.ofBytes("t.folded", data)) {
                        boolean scanned = !differential && seed % 5 != 1;
                        WideNodes byScan = new FoldedReader(mode, true, 1, w -> { }, 1).scanWide(in, FlameGraph.minWidth(o));
                        assertThat(byScan != null).as("seed %d: read by the scan of plain lines", seed).isEqualTo(scanned);
                    }
                }
                if (nodes == null) {
                    continue; // ranges cut between a root and the one going on from it: read with trees
                }
                read++;
                cut += threads > 1 ? 1 : 0;
                assertThat(drawn(nodes, o)).as("seed %d, %d threads", seed, threads).isEqualTo(expected);
            }
        }
        // Most cuts of these small inputs fall inside a root frame's stacks (ranges that share a root
        // are read with trees); those that fall between roots are read without.
        assertThat(cut).as("cut inputs read without trees (of %d reads)", read).isGreaterThanOrEqualTo(15);
    }

    @Test
    void rangesCutInsideARootsStacksJoinWhereTheirNodesGoOn() throws IOException {
        // One root, distinct stacks, names that do not start with each other: wherever the ranges are
        // cut, the nodes open across the cut are one node each, summed.
        for (long seed = 0; seed < 100; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            boolean differential = seed % 2 == 0;
            FoldedReader.Mode mode = differential ? FoldedReader.Mode.DIFFERENTIAL : FoldedReader.Mode.PLAIN;
            java.util.TreeMap<String, Stack> stacks = new java.util.TreeMap<>();
            for (int i = r.nextInt(1, 400); i > 0; i--) {
                StringBuilder sb = new StringBuilder("main");
                for (int d = r.nextInt(1, 7); d > 0; d--) {
                    sb.append(";f").append((char) ('a' + r.nextInt(4)));
                }
                stacks.put(sb.toString(), new Stack(sb.toString(), r.nextInt(0, 30), r.nextInt(0, 30)));
            }
            byte[] data = sortedText(new ArrayList<>(stacks.values()), differential);
            FlameGraphOptions o = options(r);
            String expected = viaTree(data, mode, o);
            if (expected == null) {
                continue; // no samples: nothing drawn either way
            }
            for (int threads = 1; threads <= 3; threads++) {
                WideNodes nodes = wide(data, mode, threads, FlameGraph.minWidth(o));
                assertThat(nodes).as("seed %d, %d threads", seed, threads).isNotNull();
                assertThat(drawn(nodes, o)).as("seed %d, %d threads", seed, threads).isEqualTo(expected);
            }
        }
    }

    @Test
    void aFrameIsPlacedAfterTheNamesGoingOnFromIt() throws IOException {
        // flamegraph.pl sorts lines: "a;b2;x" before "a;b;c", so b2 is left of b, whose own 5 samples
        // sit left of its child c; kernel frames come so, after their offsets (f, f+0x5d;x, f;y).
        byte[] data = "a;b 5\na;b2;x 1\na;b;c 3\na;bb 2\n".getBytes(StandardCharsets.UTF_8);
        WideNodes w = wide(data, FoldedReader.Mode.PLAIN, 1, s -> 0.5);
        assertThat(w).isNotNull();
        List<String> nodes = new ArrayList<>();
        for (int i = 0; i < w.count; i++) {
            nodes.add(w.frames.name(w.frame[i]) + "@" + w.depth[i] + ":" + w.start[i] + "+" + w.total[i]);
        }
        assertThat(nodes).containsExactly("a@1:0+11", "b2@2:0+1", "x@3:0+1", "b@2:1+8", "c@3:6+3", "bb@2:9+2");
        // b never comes back: placed where its siblings go past its name, or at its parent's end.
        w = wide("a;b 5\na;b2;x 1\na;c 4\nz;y 1\nz;y-1 2\n".getBytes(StandardCharsets.UTF_8),
                FoldedReader.Mode.PLAIN, 1, s -> 0.5);
        nodes.clear();
        for (int i = 0; i < w.count; i++) {
            nodes.add(w.frames.name(w.frame[i]) + ":" + w.start[i] + "+" + w.total[i]);
        }
        assertThat(nodes).containsExactly("a:0+10", "b2:0+1", "x:0+1", "b:1+5", "c:6+4", "z:10+3", "y-1:10+2", "y:12+1");
    }

    @Test
    void inputOutOfByteOrderIsLeftToTheTree() throws IOException {
        LongToDoubleFunction any = s -> 0.5;
        assertThat(wide("a;c 1\na;b 1\n".getBytes(StandardCharsets.UTF_8), FoldedReader.Mode.PLAIN, 1, any)).isNull();
        assertThat(wide("a;b;c 1\na;b 1\n".getBytes(StandardCharsets.UTF_8), FoldedReader.Mode.PLAIN, 1, any)).isNull();
        // In order within each range, not across them.
        assertThat(wide("b 1\nb;x 1\na 1\n".getBytes(StandardCharsets.UTF_8), FoldedReader.Mode.PLAIN, 2, any)).isNull();
        // A root frame, then the roots going on from it in the next range.
        assertThat(wide("f 1000000000\nf+1 1\n".getBytes(StandardCharsets.UTF_8), FoldedReader.Mode.PLAIN, 2, any))
                .isNull();
        // Drawn nodes of any width (--minwidth 0) or by weight: no pass without a tree serves them.
        FlameGraphOptions o = new FlameGraphOptions();
        o.minWidth = "0";
        assertThat(FlameGraph.minWidth(o)).isNull();
        o.minWidth = null;
        o.sortByWeight = true;
        assertThat(FlameGraph.minWidth(o)).isNull();
    }
}
