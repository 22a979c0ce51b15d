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

    private record Built(FrameTable frames, DistinctStacks stacks) {
    }

    /** Seeded stacks in DistinctStacks' layout: per stack two weight ints, then frames innermost first. */
    private static Built stacks(long seed, int count) {
        SplittableRandom r = new SplittableRandom(seed);
        FrameTable frames = new FrameTable();
        int[] ids = new int[NAMES.length * 2];
        for (int i = 0; i < NAMES.length; i++) {
            ids[2 * i] = frames.plain(NAMES[i]);
            ids[2 * i + 1] = frames.frame(NAMES[i], FrameKind.values()[1 + r.nextInt(FrameKind.values().length - 1)]);
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
                    path[d] = ids[r.nextInt(r.nextInt(3) == 0 ? ids.length : 12)];
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
        return new Built(frames, new DistinctStacks(arena, paths));
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
