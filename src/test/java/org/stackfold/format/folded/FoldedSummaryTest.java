package org.stackfold.format.folded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.stackfold.io.Input;
import org.stackfold.model.CallTree;

/**
 * {@link FoldedReader#summarize} (what {@code info} prints, counted per range without a merged tree)
 * against the same numbers taken from {@link FoldedReader#read}'s merged tree, on seeded random
 * profiles read whole and cut into two and three ranges: sorted (the ranges share no root) and
 * unsorted (they do, and are merged).
 */
class FoldedSummaryTest {
    private record Numbers(FoldedReader.Stats stats, List<Long> samples, int frames, long nodes) {
    }

    private static Numbers viaTree(byte[] data, FoldedReader.Mode mode, int threads, List<String> warnings)
            throws IOException {
        try (Input in = Input.ofBytes("t.folded", data)) {
            FoldedReader.Result r = new FoldedReader(mode, true, threads, warnings::add, 1).read(in);
            CallTree t = r.profile().tree();
            List<Long> samples = new ArrayList<>();
            for (int c = 0; c < t.weights(); c++) {
                samples.add(t.totalSamples(c));
            }
            return new Numbers(r.stats(), samples, r.profile().frames().names().size(), t.size() - 1L);
        }
    }

    private static Numbers summarized(byte[] data, FoldedReader.Mode mode, int threads, List<String> warnings)
            throws IOException {
        try (Input in = Input.ofBytes("t.folded", data)) {
            FoldedReader.Summary s = new FoldedReader(mode, true, threads, warnings::add, 1).summarize(in);
            List<Long> samples = new ArrayList<>();
            for (long v : s.samples()) {
                samples.add(v);
            }
            assertThat(s.differential()).isEqualTo(mode == FoldedReader.Mode.DIFFERENTIAL);
            return new Numbers(s.stats(), samples, s.distinctFrames(), s.nodes());
        }
    }

    /** Random stacks over a few roots and a shared frame vocabulary; some bad lines and repeats. */
    private static byte[] profile(long seed, boolean sorted, boolean differential) {
        SplittableRandom r = new SplittableRandom(seed);
        List<String> lines = new ArrayList<>();
        int n = r.nextInt(1, 600);
        int roots = r.nextInt(1, 6);
        for (int i = 0; i < n; i++) {
            StringBuilder sb = new StringBuilder("r").append(r.nextInt(roots));
            int depth = r.nextInt(0, 8);
            for (int d = 0; d < depth; d++) {
                sb.append(';').append(r.nextBoolean() ? "f" : "g").append(r.nextInt(12));
            }
            sb.append(' ').append(r.nextInt(1, 1000));
            if (differential) {
                sb.append(' ').append(r.nextInt(0, 1000));
            }
            lines.add(r.nextInt(50) == 0 ? "bad line" : sb.toString());
        }
        if (sorted) {
            lines.sort(null);
        }
        return (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void sameNumbersAsTheMergedTree() throws IOException {
        for (long seed = 0; seed < 120; seed++) {
            boolean sorted = seed % 2 == 0;
            boolean differential = seed % 3 == 0;
            FoldedReader.Mode mode = differential ? FoldedReader.Mode.DIFFERENTIAL : FoldedReader.Mode.PLAIN;
            byte[] data = profile(seed, sorted, differential);
            List<String> expectedWarnings = new ArrayList<>();
            Numbers expected = viaTree(data, mode, 1, expectedWarnings);
            for (int threads = 1; threads <= 3; threads++) {
                List<String> warnings = new ArrayList<>();
                assertThat(summarized(data, mode, threads, warnings))
                        .as("seed %d, %d threads", seed, threads).isEqualTo(expected);
                assertThat(warnings).isEqualTo(expectedWarnings);
            }
        }
    }

    @Test
    void rangesHoldTheSameStacksAsTheMergedTree() throws IOException {
        for (long seed = 0; seed < 60; seed++) {
            FoldedReader.Mode mode = seed % 3 == 0 ? FoldedReader.Mode.DIFFERENTIAL : FoldedReader.Mode.PLAIN;
            byte[] data = profile(seed, seed % 2 == 0, mode == FoldedReader.Mode.DIFFERENTIAL);
            FoldedReader.Result whole;
            try (Input in = Input.ofBytes("t.folded", data)) {
                whole = new FoldedReader(mode, true, 1, w -> { }, 1).read(in);
            }
            for (int threads = 1; threads <= 3; threads++) {
                FoldedReader.Ranges r;
                try (Input in = Input.ofBytes("t.folded", data)) {
                    r = new FoldedReader(mode, true, threads, w -> { }, 1).readRanges(in);
                }
                assertThat(r.stats()).isEqualTo(whole.stats());
                // Each range's stacks, named through its frame map, are the whole tree's stacks.
                java.util.Map<String, Long> stacks = new java.util.TreeMap<>();
                for (int i = 0; i < r.trees().size(); i++) {
                    CallTree t = r.trees().get(i);
                    int[] map = r.frameMaps().get(i);
                    for (int n = 1; n < t.size(); n++) {
                        StringBuilder sb = new StringBuilder();
                        for (int f : t.stack(n)) {
                            sb.append(r.frames().name(map[f])).append(';');
                        }
                        stacks.merge(sb.toString(), t.self(n, t.weights() - 1), Long::sum);
                    }
                }
                java.util.Map<String, Long> expected = new java.util.TreeMap<>();
                CallTree t = whole.profile().tree();
                for (int n = 1; n < t.size(); n++) {
                    StringBuilder sb = new StringBuilder();
                    for (int f : t.stack(n)) {
                        sb.append(whole.profile().frames().name(f)).append(';');
                    }
                    expected.merge(sb.toString(), t.self(n, t.weights() - 1), Long::sum);
                }
                assertThat(stacks).as("seed %d, %d threads", seed, threads).isEqualTo(expected);
            }
        }
    }

    /** Sorted stacks over names that start with each other and go on with bytes below and above ';'. */
    private static byte[] prefixProfile(long seed) {
        String[] names = {"b", "b x", "b.y", "b2", "bz", "b;c", "c", "c c", "cc", "x y", "b 1"};
        SplittableRandom r = new SplittableRandom(seed);
        List<String> lines = new ArrayList<>();
        int n = r.nextInt(1, 80);
        for (int i = 0; i < n; i++) {
            StringBuilder sb = new StringBuilder(r.nextBoolean() ? "r" : "r2");
            int depth = r.nextInt(0, 5);
            for (int d = 0; d < depth; d++) {
                sb.append(';').append(names[r.nextInt(names.length)]);
            }
            lines.add(sb.append(' ').append(r.nextInt(1, 50)).toString());
        }
        lines.sort(null);
        return (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void namesThatStartWithEachOtherCountAsTheTreeDoes() throws IOException {
        for (long seed = 0; seed < 400; seed++) {
            byte[] data = prefixProfile(seed);
            Numbers expected = viaTree(data, FoldedReader.Mode.PLAIN, 1, new ArrayList<>());
            for (int threads = 1; threads <= 2; threads++) {
                assertThat(summarized(data, FoldedReader.Mode.PLAIN, threads, new ArrayList<>()))
                        .as("seed %d, %d threads", seed, threads).isEqualTo(expected);
            }
        }
    }

    private static FoldedReader.Summary countedWithoutTrees(String text, int threads) throws IOException {
        try (Input in = Input.ofBytes("t.folded", text.getBytes(StandardCharsets.UTF_8))) {
            return new FoldedReader(FoldedReader.Mode.PLAIN, true, threads, w -> { }, 1).countWithoutTrees(in);
        }
    }

    @Test
    void theCountWithoutTreesIsUsedWhereTheInputIsInByteOrder() throws IOException {
        // Sorted, duplicates adjacent, names that go on with bytes above ';': counted without trees.
        FoldedReader.Summary s = countedWithoutTrees("a;b 1\na;b 2\na;b;c 3\na;bz;d 4\nq;r 5\n", 1);
        assertThat(s).isNotNull();
        assertThat(s.nodes()).isEqualTo(7);
        assertThat(s.stats().distinctStacks()).isEqualTo(4);
        assertThat(s.samples()).containsExactly(15);
        assertThat(s.distinctFrames()).isEqualTo(7);
        // Byte order, and a;b comes back after a;b2 (its node counted once), as kernel frames do after
        // their offsets (f, f+0x5d;x, f;y).
        assertThat(countedWithoutTrees("a;b 5\na;b2;x 1\na;b;c 3\n", 1).nodes()).isEqualTo(5);
        assertThat(countedWithoutTrees("a;b 5\na;b x 1\na;b x;y 1\na;b;c 3\na;b;d 1\n", 1).nodes()).isEqualTo(6);
        // Out of byte order: read with trees.
        assertThat(countedWithoutTrees("a;c 1\na;b 1\n", 1)).isNull();
        assertThat(countedWithoutTrees("a;b;c 1\na;b 1\n", 1)).isNull();
        // An error after the range's count was given up is the tree reading's to report, in file order.
        assertThatThrownBy(() -> {
            try (Input in = Input.ofBytes("t.folded", "b 1\na 1\nc 1\nno count\nz 1\n".getBytes(StandardCharsets.UTF_8))) {
                new FoldedReader(FoldedReader.Mode.PLAIN, false, 2, w -> { }, 1).summarize(in);
            }
        }).hasMessage("t.folded:4: no count at the end of the line");
        // Two ranges with the same root: read with trees.
        assertThat(countedWithoutTrees("a;b 1\nz 1\na;c 1\n", 2)).isNull();
    }

    @Test
    void samplesPastTwoToTheSixtyThreeAreAnOverflowAsTheTreeSumIs() {
        byte[] data = "a;x 9223372036854775807\nb;y 1\n".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> summarized(data, FoldedReader.Mode.PLAIN, 2, new ArrayList<>()))
                .isInstanceOf(ArithmeticException.class);
        assertThatThrownBy(() -> viaTree(data, FoldedReader.Mode.PLAIN, 2, new ArrayList<>()))
                .isInstanceOf(ArithmeticException.class);
    }
}
