package org.stackfold.collapse.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Golden tests: every collapse-perf pair of the corpus ({@code src/test/resources/collapse/perf},
 * see its README). {@code fg-*} pairs record stackcollapse-perf.pl and run with
 * {@code --perl-compat}; {@code inferno-*} pairs record inferno and run with the defaults.
 */
class PerfCorpusTest {
    record Case(String id, String kind, String options, String input, String expected) {
        boolean perl() {
            return id.startsWith("fg-");
        }

        String cli() {
            return (perl() ? "--perl-compat " : "") + (options.equals("-") ? "" : options);
        }

        @Override
        public String toString() {
            return id;
        }
    }

    static List<Case> all() {
        List<Case> cases = new ArrayList<>();
        for (String line : text("cases.tsv").split("\n")) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            String[] f = line.split("\t");
            cases.add(new Case(f[0], f[1], f[2], f[3], f[4]));
        }
        return cases;
    }

    static Stream<Case> exact() {
        return all().stream().filter(c -> c.kind().equals("exact"));
    }

    static Stream<Case> perlExact() {
        return exact().filter(Case::perl);
    }

    static byte[] bytes(String name) {
        try (InputStream in = PerfCorpusTest.class.getResourceAsStream("/collapse/perf/" + name)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + name);
            }
            byte[] b = in.readAllBytes();
            if (name.endsWith(".gz")) {
                try (InputStream gz = new GZIPInputStream(new ByteArrayInputStream(b))) {
                    return gz.readAllBytes();
                }
            }
            return b;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String text(String name) {
        return new String(bytes(name), StandardCharsets.UTF_8);
    }

    static List<String> expected(Case c) {
        return PerfTestSupport.sortedLines(text("expected/" + c.expected()));
    }

    /** perl drops a final sample that no blank line closes: cut the input after its last blank line. */
    static byte[] asPerlSees(byte[] in) {
        if (endsWithBlankLine(in)) {
            return in;
        }
        int end = in.length;
        while (end > 0 && in[end - 1] == '\n') {
            end--;
        }
        for (int i = end - 1; i > 0; i--) {
            if (in[i] == '\n' && in[i - 1] == '\n') {
                return Arrays.copyOf(in, i + 1);
            }
        }
        return in;
    }

    static boolean endsWithBlankLine(byte[] in) {
        return in.length >= 2 && in[in.length - 1] == '\n' && in[in.length - 2] == '\n';
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("exact")
    void matchesThePeer(Case c) {
        byte[] in = bytes("inputs/" + c.input());
        if (c.perl()) {
            in = asPerlSees(in);
        }
        List<String> got = PerfTestSupport.collapse(in, PerfTestSupport.options(c.cli()), new ArrayList<>());
        assertThat(got).containsExactlyElementsOf(expected(c));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("exact")
    void sameResultWhenSplitAcrossThreads(Case c) {
        byte[] in = bytes("inputs/" + c.input());
        List<String> one = PerfTestSupport.collapse(in, PerfTestSupport.options(c.cli(), 1, 1 << 20), new ArrayList<>());
        List<String> many = PerfTestSupport.collapse(in, PerfTestSupport.options(c.cli(), 4, 1024), new ArrayList<>());
        assertThat(many).containsExactlyElementsOf(one);
    }

    /** Deliberate difference from perl: the final sample counts even without a closing blank line. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("perlExact")
    void neverDropsTheFinalSample(Case c) {
        byte[] full = bytes("inputs/" + c.input());
        Map<String, Long> got = PerfTestSupport.counts(
                PerfTestSupport.collapse(full, PerfTestSupport.options(c.cli()), new ArrayList<>()));
        Map<String, Long> perl = PerfTestSupport.counts(expected(c));
        Map<String, Long> extra = new HashMap<>(got);
        perl.forEach((k, v) -> extra.merge(k, -v, Long::sum));
        extra.values().removeIf(v -> v == 0);
        if (endsWithBlankLine(full)) {
            assertThat(extra).isEmpty();
        } else {
            // Exactly one stack more (or heavier): the final sample's, rooted at its process.
            assertThat(extra).hasSize(1);
            assertThat(extra.values().iterator().next()).isPositive();
        }
    }

    @Test
    void emptyLineInsideASampleWarnsOnce() {
        List<String> warnings = new ArrayList<>();
        List<String> got = PerfTestSupport.collapse(bytes("inputs/inferno__collapse-perf__empty-line.txt"),
                PerfTestSupport.options(""), warnings);
        assertThat(warnings).hasSize(1);
        assertThat(warnings.getFirst()).contains("line 6").contains("401b94 main+0x1c");
        // The first sample has its frame; the second's frame was cut off by the blank line.
        assertThat(got).containsExactly("inline-counter 250000", "inline-counter;main 250000");
    }

    static Stream<String> inputs() {
        return all().stream().map(Case::input).distinct();
    }

    /** {@code collapse guess} looks at the first 64 KiB: every corpus input with a sample is perf. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("inputs")
    void detectsEveryCorpusInput(String input) {
        byte[] all = bytes("inputs/" + input);
        byte[] head = Arrays.copyOf(all, Math.min(all.length, 64 << 10));
        assertThat(new PerfCollapser().detect(head, head.length)).isEqualTo(all.length > 0);
    }

    @Test
    void everyCorpusPairIsCovered() {
        assertThat(all()).hasSize(61);
        assertThat(exact().count()).isEqualTo(60);
    }
}
