package org.stackfold.format.folded;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.stackfold.model.DistinctStacks;
import org.stackfold.model.FrameKind;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/**
 * The folded writer writes distinct stacks that are not yet a call tree (a perf collapse's) without
 * building one: it must give the very bytes of the tree walk. Seeded stacks over names chosen to
 * hit every ordering rule: names that are prefixes of others followed by a tab, a space, {@code !},
 * letters; names folded text cannot carry ({@code ;}, control bytes, spaces at the ends) that become
 * equal to others once made safe; the same name under several frame kinds; repeated stacks, empty
 * stacks, zero weights, and stacks that are prefixes of others.
 */
class FoldedWriterStacksTest {
    private static final String[] NAMES = {
        "a", "a!", "a\tb", "a b", "a 1x", "ab", "a;b", "a:b", "b", "b ", " b", "b\u0001", "b\\x01",
        "main", "main2", "#x", "x", "x!", "x!!", "xy", "xy\tz", "é", "e", "z;", "z:",
    };

    private record Built(FrameTable frames, DistinctStacks stacks, int[] arena) {
    }

    /** Seeded stacks in DistinctStacks' layout: per stack two weight ints, then frames innermost first. */
    private static Built stacks(long seed, int count) {
        return stacks(seed, count, NAMES, true);
    }

    /** The same over {@code names}, each also under another frame kind where {@code kinds}. */
    private static Built stacks(long seed, int count, String[] names, boolean kinds) {
        SplittableRandom r = new SplittableRandom(seed);
        FrameTable frames = new FrameTable();
        int[] ids = new int[names.length * (kinds ? 2 : 1)];
        for (int i = 0; i < names.length; i++) {
            if (kinds) {
                ids[2 * i] = frames.plain(names[i]);
                ids[2 * i + 1] = frames.frame(names[i], FrameKind.values()[1 + r.nextInt(FrameKind.values().length - 1)]);
            } else {
                ids[i] = frames.plain(names[i]);
            }
        }
        int[] arena = new int[count * 40];
        long[] paths = new long[count];
        int used = 0;
        List<int[]> seen = new ArrayList<>();
        for (int s = 0; s < count; s++) {
            int[] path; // root first
            if (!seen.isEmpty() && r.nextInt(4) == 0) {
                int[] again = seen.get(r.nextInt(seen.size()));
                path = r.nextBoolean() ? again : Arrays.copyOf(again, r.nextInt(again.length + 1)); // or a prefix
            } else {
                path = new int[r.nextInt(12) == 0 ? 0 : 1 + r.nextInt(6)];
                for (int d = 0; d < path.length; d++) {
                    path[d] = ids[r.nextInt(r.nextInt(3) == 0 ? ids.length : Math.min(12, ids.length))];
                }
                seen.add(path);
            }
            long weight = r.nextInt(10) == 0 ? 0 : 1 + r.nextInt(1000);
            arena[used++] = (int) (weight >>> 32);
            arena[used++] = (int) weight;
            int inner = used;
            for (int d = path.length - 1; d >= 0; d--) {
                arena[used++] = path[d];
            }
            paths[s] = (long) (used - 1) << 32 | inner;
        }
        return new Built(frames, new DistinctStacks(arena, paths), arena);
    }

    private static String write(Profile p, boolean trim, boolean annotate) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new FoldedWriter(false, trim).annotatingKinds(annotate).write(p, out);
        return out.toString(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
    void stacksGiveTheBytesOfTheTreeWalk(long seed) throws IOException {
        Built b = stacks(seed, 40 + (int) seed * 60);
        for (boolean trim : new boolean[] {true, false}) {
            for (boolean annotate : new boolean[] {false, true}) {
                Profile direct = Profile.ofStacks(b.frames(), b.stacks(), List.of(Profile.ValueType.SAMPLES));
                Profile viaTree = Profile.ofStacks(b.frames(), b.stacks(), List.of(Profile.ValueType.SAMPLES));
                viaTree.tree(); // builds the tree: the writer walks it
                assertThat(direct.pendingStacks()).isNotNull();
                assertThat(viaTree.pendingStacks()).isNull();
                String expected = write(viaTree, trim, annotate);
                assertThat(expected).isNotEmpty();
                assertThat(write(direct, trim, annotate)).as("trim %s, annotate %s", trim, annotate).isEqualTo(expected);
            }
        }
    }

    /**
     * Where every frame has a name of its own, the writer sorts the stacks with their frame ids
     * mapped in place (no copy of the arena) and puts the ids back: the stacks stay as they were,
     * for a tree built afterwards or a second writing. (Names shared by several frames take a
     * copy instead: {@link #stacksGiveTheBytesOfTheTreeWalk}.)
     */
    @ParameterizedTest
    @ValueSource(longs = {21, 22, 23, 24})
    void writingLeavesTheStacksAsTheyWere(long seed) throws IOException {
        String[] names = Arrays.stream(NAMES).filter(n -> !n.contains(";") && n.strip().equals(n)
                && n.chars().allMatch(c -> c >= ' ')).toArray(String[]::new); // none made safe into another
        Built b = stacks(seed, 300, names, false);
        int[] before = b.arena().clone();
        Profile direct = Profile.ofStacks(b.frames(), b.stacks(), List.of(Profile.ValueType.SAMPLES));
        String first = write(direct, true, false);
        assertThat(b.arena()).isEqualTo(before);
        assertThat(write(direct, true, false)).isEqualTo(first);
        Profile viaTree = Profile.ofStacks(b.frames(), b.stacks(), List.of(Profile.ValueType.SAMPLES));
        viaTree.tree();
        assertThat(write(viaTree, true, false)).isEqualTo(first);
        assertThat(b.arena()).isEqualTo(before);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 96})
    void everySortBudgetGivesTheSameTree(int budget) throws IOException {
        Built b = stacks(99, 600);
        Profile reference = Profile.ofStacks(b.frames(), b.stacks(), List.of(Profile.ValueType.SAMPLES));
        reference.tree();
        Profile p = new Profile(b.frames(), new org.stackfold.model.CallTree(), List.of(Profile.ValueType.SAMPLES));
        b.stacks().addTo(p.tree(), budget);
        assertThat(write(p, true, false)).isEqualTo(write(reference, true, false));
    }
}
