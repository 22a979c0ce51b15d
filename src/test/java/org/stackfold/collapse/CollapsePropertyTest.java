package org.stackfold.collapse;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Seeded random inputs: each collapser against a reference of its rules written independently. */
class CollapsePropertyTest {
    private static List<String> randomStack(SplittableRandom r, String prefix) {
        int depth = 1 + r.nextInt(8);
        List<String> s = new ArrayList<>();
        for (int i = 0; i < depth; i++) {
            s.add(prefix + "f" + r.nextInt(5));
        }
        return s;
    }

    private static List<String> lines(Map<String, Long> counts) {
        List<String> out = new ArrayList<>();
        counts.forEach((k, v) -> out.add(k + " " + v));
        return CollapseTesting.sortedLines(String.join("\n", out));
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 42, 1234})
    void dtraceAggregationsCollapseToTheirStacks(long seed) throws Exception {
        SplittableRandom r = new SplittableRandom(seed);
        StringBuilder in = new StringBuilder("CPU     ID                    FUNCTION:NAME\n  0  64091                        :tick-60s\n\n");
        Map<String, Long> expected = new TreeMap<>();
        for (int n = 0, stacks = 1 + r.nextInt(60); n < stacks; n++) {
            List<String> s = randomStack(r, "mod`");
            long count = 1 + r.nextInt(1000);
            for (int i = s.size() - 1; i >= 0; i--) { // dtrace lists the leaf first
                in.append(" ".repeat(1 + r.nextInt(20))).append(s.get(i));
                if (r.nextBoolean()) {
                    in.append("+0x").append(Integer.toHexString(r.nextInt(4096)));
                }
                in.append('\n');
            }
            in.append("        ").append(count).append("\n\n");
            expected.merge(String.join(";", s), count, Long::sum);
        }
        assertThat(CollapseTesting.collapse("dtrace", in.toString())).containsExactlyElementsOf(lines(expected));
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 42, 1234})
    void recursiveMergesRunsOfEqualFrames(long seed) throws Exception {
        SplittableRandom r = new SplittableRandom(seed);
        StringBuilder in = new StringBuilder();
        Map<String, Long> expected = new TreeMap<>();
        for (int n = 0, stacks = 1 + r.nextInt(80); n < stacks; n++) {
            List<String> s = randomStack(r, "");
            long count = 1 + r.nextInt(100);
            in.append(String.join(";", s)).append(' ').append(count).append('\n');
            List<String> merged = new ArrayList<>();
            for (String f : s) {
                if (merged.isEmpty() || !merged.getLast().equals(f)) {
                    merged.add(f);
                }
            }
            expected.merge(String.join(";", merged), count, Long::sum);
        }
        assertThat(CollapseTesting.collapse("recursive", in.toString())).containsExactlyElementsOf(lines(expected));
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 42, 1234})
    void bpftraceMapDumpsCollapseToCommUserKernel(long seed) throws Exception {
        SplittableRandom r = new SplittableRandom(seed);
        StringBuilder in = new StringBuilder("Attaching 2 probes...\n\n\n");
        Map<String, Long> expected = new TreeMap<>();
        for (int n = 0, entries = 1 + r.nextInt(50); n < entries; n++) {
            String comm = "comm" + r.nextInt(3);
            List<String> user = r.nextInt(5) == 0 ? List.of() : randomStack(r, "u");
            List<String> kernel = r.nextInt(3) == 0 ? List.of() : randomStack(r, "k");
            long count = 1 + r.nextInt(500);
            in.append("@[").append(comm).append(", ");
            appendStack(in, user, r);
            in.append(", ");
            appendStack(in, kernel, r);
            in.append("]: ").append(count).append('\n');
            List<String> all = new ArrayList<>(List.of(comm));
            all.addAll(user);
            all.addAll(kernel);
            expected.merge(String.join(";", all), count, Long::sum);
        }
        assertThat(CollapseTesting.collapse("bpftrace", in.toString())).containsExactlyElementsOf(lines(expected));
    }

    private static void appendStack(StringBuilder in, List<String> rootFirst, SplittableRandom r) {
        if (rootFirst.isEmpty()) {
            return;
        }
        in.append('\n');
        for (int i = rootFirst.size() - 1; i >= 0; i--) {
            in.append("    ").append(rootFirst.get(i)).append('+').append(r.nextInt(900)).append('\n');
        }
    }

    /** Returns at most a few bytes per read, so lines straddle every buffer boundary. */
    private static InputStream trickle(byte[] data, SplittableRandom r) {
        return new ByteArrayInputStream(data) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, 1 + r.nextInt(7000)));
            }
        };
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 42})
    void lineReaderYieldsEveryLineWhateverTheReadSizes(long seed) throws Exception {
        SplittableRandom r = new SplittableRandom(seed);
        List<String> lines = new ArrayList<>();
        for (int i = 0, n = 1 + r.nextInt(200); i < n; i++) {
            int len = r.nextInt(10) == 0 ? 60_000 + r.nextInt(100_000) : r.nextInt(80);
            StringBuilder sb = new StringBuilder();
            for (int k = 0; k < len; k++) {
                sb.append((char) ('a' + r.nextInt(26)));
            }
            lines.add(sb.toString());
        }
        boolean finalNewline = r.nextBoolean();
        String text = String.join("\n", lines) + (finalNewline ? "\n" : "");
        List<String> got = new ArrayList<>();
        try (LineReader lr = new LineReader(trickle(text.getBytes(StandardCharsets.ISO_8859_1), r))) {
            while (lr.next()) {
                got.add(lr.latin1());
                assertThat(lr.lineNumber()).isEqualTo(got.size());
            }
        }
        if (!finalNewline && lines.getLast().isEmpty()) {
            lines.removeLast(); // an empty last line without newline is no line
        }
        assertThat(got).containsExactlyElementsOf(lines);
    }
}
