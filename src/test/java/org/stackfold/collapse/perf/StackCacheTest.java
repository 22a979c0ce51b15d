package org.stackfold.collapse.perf;

import org.stackfold.perf.PerfOptions;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.stackfold.format.folded.FoldedWriter;
import org.stackfold.model.CallTree;
import org.stackfold.model.Profile;

/**
 * The stack cache weighs distinct stacks during the parse and walks them into the tree at the end,
 * sorted so that no lookup is needed. Seeded stacks over a few frames (so paths share prefixes), with
 * and without a root frame, empty ones, and roots that are also frames (a stack without root whose
 * outermost frame is a root frame reaches that root's node), must give the tree that walking every
 * sample in with lookups gives: the same nodes, none twice, the same weights.
 */
class StackCacheTest {
    private record Sample(int root, int[] stack, long weight) {
    }

    private static List<Sample> samples(long seed, int count) {
        SplittableRandom r = new SplittableRandom(seed);
        List<Sample> out = new ArrayList<>();
        List<Sample> seen = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            if (!seen.isEmpty() && r.nextInt(3) == 0) {
                Sample again = seen.get(r.nextInt(seen.size())); // a stack seen before
                out.add(new Sample(again.root(), again.stack(), 1 + r.nextInt(1000)));
                continue;
            }
            int root = r.nextInt(4) - 1; // -1: no root frame (frames past a --skip-after match)
            int[] stack = new int[r.nextInt(10) == 0 ? 0 : 1 + r.nextInt(14)];
            for (int d = 0; d < stack.length; d++) {
                stack[d] = r.nextInt(5);
            }
            Sample s = new Sample(root, stack, 1 + r.nextInt(1000));
            out.add(s);
            seen.add(s);
        }
        return out;
    }

    /** The tree of the samples walked in one by one, root first, with lookups. */
    private static CallTree walked(List<Sample> samples) {
        CallTree t = new CallTree();
        for (Sample s : samples) {
            int node = walk(t, s);
            if (node != CallTree.ROOT) {
                t.addSelf(node, s.weight());
            }
        }
        return t;
    }

    private static int walk(CallTree t, Sample s) {
        int node = s.root() < 0 ? CallTree.ROOT : t.child(CallTree.ROOT, s.root());
        for (int d = s.stack().length - 1; d >= 0; d--) {
            node = t.child(node, s.stack()[d]);
        }
        return node;
    }

    /** Every node as its path (frame ids, root first) and self weight; a node twice fails. */
    private static Map<List<Integer>, Long> contents(CallTree t) {
        Map<List<Integer>, Long> m = new HashMap<>();
        for (int n = 1; n < t.size(); n++) {
            List<Integer> path = new ArrayList<>();
            for (int f : t.stack(n)) {
                path.add(f);
            }
            assertThat(m.put(path, t.self(n))).as("node %s twice", path).isNull();
        }
        return m;
    }

    /** The samples through a cache of {@code maxInts}; those it refuses walked in at once. */
    private static CallTree cached(List<Sample> samples, int maxInts, int sortBudget) {
        StackCache cache = new StackCache(maxInts);
        CallTree t = new CallTree();
        for (Sample s : samples) {
            int h = StackCache.hash(s.root(), s.stack(), s.stack().length);
            int at = cache.find(h, s.root(), s.stack(), s.stack().length);
            if (at >= 0) {
                cache.add(at, s.weight());
            } else if (!cache.put(h, s.root(), s.stack(), s.stack().length, s.weight())) {
                int node = walk(t, s);
                if (node != CallTree.ROOT) {
                    t.addSelf(node, s.weight());
                }
            }
        }
        cache.addTo(t, sortBudget);
        return t;
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void buildsTheTreeOfTheSamplesWalkedOneByOne(long seed) {
        List<Sample> samples = samples(seed, 3000);
        Map<List<Integer>, Long> expected = contents(walked(samples));
        assertThat(contents(cached(samples, StackCache.MAX_INTS, 96))).isEqualTo(expected);
        // The merge sort alone (what the radix sort falls back to after bad pivots).
        assertThat(contents(cached(samples, StackCache.MAX_INTS, 0))).isEqualTo(expected);
        assertThat(contents(cached(samples, StackCache.MAX_INTS, 2))).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 5, 200, 5000})
    void stacksPastTheCapAreWalkedInAndTheRestJoinThem(int maxInts) {
        List<Sample> samples = samples(maxInts, 3000);
        assertThat(contents(cached(samples, maxInts, 96))).isEqualTo(contents(walked(samples)));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void aParserPastItsCapCollapsesAsOneWithout(int seed) throws IOException {
        SplittableRandom r = new SplittableRandom(seed);
        StringBuilder sb = new StringBuilder();
        for (int s = 0; s < 600; s++) {
            sb.append(r.nextBoolean() ? "java" : "app").append(' ').append(100 + r.nextInt(2))
                    .append(" [001] 1.").append(String.format("%06d", s)).append(": ")
                    .append(1 + r.nextInt(1000)).append(" cycles:\n");
            for (int d = r.nextInt(12); d > 0; d--) {
                int f = r.nextInt(6);
                sb.append("\t40").append(f).append(" fn").append(f).append(" (/usr/bin/app)\n");
            }
            sb.append('\n');
        }
        byte[] text = sb.toString().getBytes(StandardCharsets.UTF_8);
        assertThat(folded(text, 300)).isEqualTo(folded(text, StackCache.MAX_INTS));
    }

    private static String folded(byte[] text, int maxInts) throws IOException {
        PerfOptions opt = PerfTestSupport.options("--pid");
        PerfChunkParser p = new PerfChunkParser(new ByteArrayInputStream(text), opt);
        p.stacks = new StackCache(maxInts);
        p.run();
        assertThat(p.error).isNull();
        assertThat(p.samples).isEqualTo(600);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new FoldedWriter(false).write(p.profile(List.of(new Profile.ValueType("cycles", "events"))), out);
        return out.toString(StandardCharsets.UTF_8);
    }
}
