package org.stackfold.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.stackfold.format.folded.FoldedReader;
import org.stackfold.model.Profile;
import org.stackfold.testing.Folded;

/**
 * Golden tests against inferno-diff-folded / difffolded.pl (src/test/resources/diff-folded, see its
 * README). Their output is in hash order, so lines are compared as sorted multisets.
 */
class DiffCorpusTest {
    private static byte[] resource(String name) throws IOException {
        try (InputStream in = DiffCorpusTest.class.getResourceAsStream("/diff-folded/" + name)) {
            return in.readAllBytes();
        }
    }

    private static Profile read(String name, List<String> warnings) throws IOException {
        return Folded.read(resource(name), FoldedReader.Mode.PLAIN, true, 1, warnings).profile();
    }

    private static List<String> sortedLines(String text) {
        List<String> lines = new ArrayList<>(Arrays.asList(text.strip().split("\n")));
        lines.replaceAll(String::strip);
        lines.sort(null);
        return lines;
    }

    private void check(boolean normalize, String expected) throws IOException {
        Profile d = Diff.of(read("inferno__diff-folded__before.txt", new ArrayList<>()),
                read("inferno__diff-folded__after.txt", new ArrayList<>()), normalize, false);
        assertThat(sortedLines(Folded.write(d)))
                .isEqualTo(sortedLines(new String(resource(expected), StandardCharsets.UTF_8)));
    }

    @Test
    void defaultCase() throws IOException {
        check(false, "inferno__diff-folded__results__default.txt");
    }

    @Test
    void normalizeCase() throws IOException {
        check(true, "inferno__diff-folded__results__normalize.txt");
    }

    @Test
    void badLineIsReportedOnceAndSkippedWhenLenient() throws IOException {
        List<String> warnings = new ArrayList<>();
        Profile before = read("inferno__diff-folded__bad_before.txt", warnings);
        assertThat(warnings).hasSize(1);
        assertThat(warnings.getFirst()).contains("skipped 1 bad line").contains("line 3");
        assertThat(Diff.of(before, read("inferno__diff-folded__after.txt", new ArrayList<>()), false, false)
                .tree().totalSamples(1)).isPositive();
    }

    @Test
    void stripHexMergesAddresses() {
        Profile a = Folded.read("m;0x1234;f 2\nm;0xABCD;f 3\n").profile();
        Profile b = Folded.read("m;0xffff;f 7\n").profile();
        assertThat(Folded.stacks(Diff.of(a, b, false, true)))
                .containsExactly(Map.entry("m;0x...;f", List.of(5L, 7L)));
    }

    @Test
    void normalizeScalesBeforeToAfterTotalAndTruncates() {
        Profile a = Folded.read("x 3\ny 1\n").profile();
        Profile b = Folded.read("x 5\ny 5\n").profile();
        assertThat(Folded.stacks(Diff.of(a, b, true, false)))
                .containsExactly(Map.entry("x", List.of(7L, 5L)), Map.entry("y", List.of(2L, 5L)));
    }
}
