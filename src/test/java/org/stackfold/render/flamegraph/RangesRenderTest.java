package org.stackfold.render.flamegraph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/**
 * {@link FlameGraph#renderRanges} (range trees that share no root, drawn without appending them)
 * against {@link FlameGraph#render} of the one tree holding the same stacks: the same SVG, byte for
 * byte, on seeded random profiles under options that change what is drawn and in which order.
 */
class RangesRenderTest {
    /** One random profile: its stacks as frame names, root first, with one or two counts. */
    private record Stack(String[] frames, long before, long after) {
    }

    private static List<Stack> stacks(SplittableRandom r, boolean differential) {
        List<Stack> out = new ArrayList<>();
        int roots = r.nextInt(1, 7);
        int n = r.nextInt(1, 400);
        for (int i = 0; i < n; i++) {
            int depth = r.nextInt(1, 9);
            String[] f = new String[depth];
            f[0] = "root" + r.nextInt(roots);
            for (int d = 1; d < depth; d++) {
                f[d] = r.nextInt(30) == 0 ? "--" : (r.nextBoolean() ? "f" : "g::h") + r.nextInt(10);
            }
            long after = r.nextInt(8) == 0 ? r.nextInt(1, 5000) : r.nextInt(1, 40);
            out.add(new Stack(f, differential ? r.nextInt(0, 60) : 0, after));
        }
        return out;
    }

    private static void add(CallTree t, FrameTable frames, Stack s) {
        int node = CallTree.ROOT;
        for (String f : s.frames) {
            node = t.child(node, frames.plain(f));
        }
        if (t.isDifferential()) {
            t.addSelf(node, 0, s.before);
            t.addSelf(node, 1, s.after);
        } else {
            t.addSelf(node, 0, s.after);
        }
    }

    private static String render(Profile p, FlameGraphOptions o, List<String> warnings) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        FlameGraph.render(p, o, out, warnings::add);
        return out.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    private static FlameGraphOptions options(SplittableRandom r) {
        FlameGraphOptions o = new FlameGraphOptions();
        o.compat = r.nextBoolean() ? FlameGraphOptions.Compat.PERL : FlameGraphOptions.Compat.INFERNO;
        o.minWidth = switch (r.nextInt(4)) {
            case 0 -> null;
            case 1 -> "0";
            case 2 -> "3";
            default -> "0.5%";
        };
        o.sortByWeight = r.nextInt(3) == 0;
        o.inverted = r.nextInt(4) == 0;
        o.palette = r.nextInt(4) == 0 ? Palette.CHAIN : Palette.HOT;
        o.colorMode = FlameGraphOptions.ColorMode.HASH;
        o.total = r.nextInt(5) == 0 ? r.nextInt(1, 100_000) : 0;
        o.width = r.nextInt(300, 1500);
        return o;
    }

    @Test
    void sameSvgAsTheAppendedTree() throws IOException {
        for (long seed = 0; seed < 150; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            boolean differential = seed % 4 == 1;
            List<Stack> stacks = stacks(r, differential);
            int weights = differential ? 2 : 1;
            // The whole profile in one tree, and the same stacks split by root frame into ranges.
            FrameTable frames = new FrameTable();
            CallTree whole = new CallTree(weights);
            int parts = r.nextInt(1, 4);
            List<CallTree> trees = new ArrayList<>();
            List<FrameTable> rangeFrames = new ArrayList<>();
            for (int i = 0; i < parts; i++) {
                trees.add(new CallTree(weights));
                rangeFrames.add(new FrameTable());
            }
            for (Stack s : stacks) {
                add(whole, frames, s);
                int part = Math.floorMod(s.frames[0].hashCode(), parts);
                add(trees.get(part), rangeFrames.get(part), s);
            }
            List<int[]> maps = new ArrayList<>();
            for (FrameTable ft : rangeFrames) {
                int[] map = new int[ft.size()];
                for (int f = 0; f < map.length; f++) {
                    map[f] = frames.plain(ft.name(f));
                }
                maps.add(map);
            }
            List<Profile.ValueType> types = differential
                    ? List.of(Profile.ValueType.SAMPLES, Profile.ValueType.SAMPLES) : List.of(Profile.ValueType.SAMPLES);
            FlameGraphOptions o = options(r);
            List<String> expectedWarnings = new ArrayList<>();
            String expected = render(new Profile(frames, whole, types), o, expectedWarnings);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            List<String> warnings = new ArrayList<>();
            FlameGraph.renderRanges(frames, trees, maps, o, out, warnings::add);
            assertThat(out.toString(java.nio.charset.StandardCharsets.UTF_8)).as("seed %d", seed).isEqualTo(expected);
            assertThat(warnings).as("seed %d", seed).isEqualTo(expectedWarnings);
        }
    }

    @Test
    void emptyRangesDrawTheEmptyPicture() throws IOException {
        FlameGraphOptions o = new FlameGraphOptions();
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        assertThatThrownBy(() -> FlameGraph.render(new Profile(), o, expected, w -> { }))
                .isInstanceOf(FlameGraph.EmptyProfileException.class);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThatThrownBy(() -> FlameGraph.renderRanges(new FrameTable(), List.of(new CallTree(1)),
                List.of(new int[0]), o, out, w -> { })).isInstanceOf(FlameGraph.EmptyProfileException.class);
        assertThat(out.toByteArray()).isEqualTo(expected.toByteArray());
    }
}
