package org.stackfold.format.folded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.testing.Folded;

/** One test per reading rule of docs/formats/folded.md. */
class FoldedReaderTest {
    private static Map<String, Long> counts(String text) {
        return Folded.counts(Folded.read(text).profile());
    }

    @Test
    void readsStackAndCount() {
        assertThat(counts("main;foo;bar 42\n")).containsExactly(Map.entry("main;foo;bar", 42L));
    }

    @Test
    void whiteSpaceOfAnyKindAroundAndBetweenValues() {
        assertThat(counts(" \t main;foo \t  7 \t\n")).containsExactly(Map.entry("main;foo", 7L));
        assertThat(counts("a;b\t3\n")).containsExactly(Map.entry("a;b", 3L));
        assertThat(counts("a;b \u000b\f 3\n")).containsExactly(Map.entry("a;b", 3L));
    }

    @Test
    void spacesInsideFrameNamesAreKept() {
        assertThat(counts("main;bar baz 1\n")).containsExactly(Map.entry("main;bar baz", 1L));
        assertThat(counts("main;  two  spaces ;x 2\n")).containsExactly(Map.entry("main;  two  spaces ;x", 2L));
    }

    @Test
    void duplicatesAreSummed() {
        assertThat(counts("a;b 1\nc 5\na;b 2\n")).containsExactly(Map.entry("a;b", 3L), Map.entry("c", 5L));
    }

    @Test
    void crlfLineEndings() {
        assertThat(counts("a;b 1\r\nc 2\r\n")).containsExactly(Map.entry("a;b", 1L), Map.entry("c", 2L));
    }

    @Test
    void prefixesHaveTheirOwnRecords() {
        assertThat(counts("a 1\na;b 2\na;b;c 3\n"))
                .containsExactly(Map.entry("a", 1L), Map.entry("a;b", 2L), Map.entry("a;b;c", 3L));
    }

    @Test
    void blankLinesAndAustinHeadersAreSkipped() {
        FoldedReader.Result r = Folded.read("# austin: 3.3.0\n#\n\n  \t\na;b 1\n\n");
        assertThat(Folded.counts(r.profile())).containsExactly(Map.entry("a;b", 1L));
        assertThat(r.stats().records()).isEqualTo(1);
        assertThat(r.stats().skipped()).isZero();
    }

    @Test
    void hashWithoutSpaceIsAFrameName() {
        assertThat(counts("#main;x 4\n")).containsExactly(Map.entry("#main;x", 4L));
    }

    @Test
    void missingFinalNewline() {
        assertThat(counts("a 1\nb 2")).containsExactly(Map.entry("a", 1L), Map.entry("b", 2L));
    }

    @Test
    void emptyFramesAreKept() {
        assertThat(counts("a;;b 1\n")).containsExactly(Map.entry("a;;b", 1L));
    }

    @Test
    void nonUtf8BytesAreKeptByteForByte() throws IOException {
        byte[] in = {'a', ';', (byte) 0xff, (byte) 0xfe, ' ', '1', '\n'};
        FoldedReader.Result r = Folded.read(in, FoldedReader.Mode.PLAIN, false, 1, new ArrayList<>());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new FoldedWriter(false).write(r.profile(), out);
        assertThat(out.toByteArray()).isEqualTo(in);
    }

    @Test
    void fractionalCountsAreTruncatedWithOneWarning() {
        List<String> warnings = new ArrayList<>();
        FoldedReader.Result r = Folded.read("a 1.5\nb 2.99\nc 3\nd 4.00\n".getBytes(StandardCharsets.UTF_8),
                FoldedReader.Mode.PLAIN, false, 1, warnings);
        assertThat(Folded.counts(r.profile())).containsExactly(Map.entry("a", 1L), Map.entry("b", 2L),
                Map.entry("c", 3L), Map.entry("d", 4L));
        assertThat(warnings).hasSize(1);
        assertThat(warnings.getFirst()).contains("2 fractional sample counts were truncated");
    }

    @Test
    void lineWithoutCountIsAnErrorNamingTheLine() {
        assertThatThrownBy(() -> Folded.read("a 1\nb;c\nd 2\n"))
                .isInstanceOf(InputException.class)
                .hasMessage("test.folded:2: no count at the end of the line");
    }

    @Test
    void leadingPlusIsNotACount() {
        assertThatThrownBy(() -> Folded.read("a +1\n")).isInstanceOf(InputException.class)
                .hasMessageContaining(":1: no count");
    }

    @Test
    void negativeCountIsNotACount() {
        assertThatThrownBy(() -> Folded.read("a -1\n")).isInstanceOf(InputException.class)
                .hasMessageContaining(":1: no count");
    }

    @Test
    void countOnlyIsAnError() {
        assertThatThrownBy(() -> Folded.read("a 1\n   42\n")).isInstanceOf(InputException.class)
                .hasMessage("test.folded:2: no stack before the count");
    }

    @Test
    void countsOver63BitsAreAnError() {
        assertThatThrownBy(() -> Folded.read("a 9223372036854775808\n")).isInstanceOf(InputException.class)
                .hasMessage("test.folded:1: count does not fit in 64 bits");
        assertThat(counts("a 9223372036854775807\n")).containsExactly(Map.entry("a", Long.MAX_VALUE));
    }

    @Test
    void sumsOver63BitsAreAnErrorNotAWrap() {
        assertThatThrownBy(() -> Folded.read("a 9223372036854775807\na 1\n")).isInstanceOf(InputException.class)
                .hasMessage("test.folded:2: the counts of this stack add up to more than 2^63-1");
    }

    @Test
    void lenientSkipsAndCountsBadLines() {
        List<String> warnings = new ArrayList<>();
        FoldedReader.Result r = Folded.read("a 1\nbad\nb 2\nalso bad x\n".getBytes(StandardCharsets.UTF_8),
                FoldedReader.Mode.PLAIN, true, 1, warnings);
        assertThat(Folded.counts(r.profile())).containsExactly(Map.entry("a", 1L), Map.entry("b", 2L));
        assertThat(r.stats().skipped()).isEqualTo(2);
        assertThat(warnings).containsExactly(
                "test.folded: skipped 2 bad lines (first at line 2: no count at the end of the line)");
    }

    @Test
    void emptyInputIsAnEmptyProfile() {
        FoldedReader.Result r = Folded.read("");
        assertThat(r.stats().records()).isZero();
        assertThat(r.profile().tree().totalSamples()).isZero();
    }

    @Test
    void binaryGarbageIsAnErrorNotACrash() {
        byte[] garbage = new byte[100_000];
        new java.util.Random(1).nextBytes(garbage);
        assertThatThrownBy(() -> Folded.read(garbage, FoldedReader.Mode.PLAIN, false, 2, new ArrayList<>()))
                .isInstanceOf(InputException.class).hasMessageStartingWith("test.folded:");
        FoldedReader.Result lenient = Folded.read(garbage, FoldedReader.Mode.PLAIN, true, 2, new ArrayList<>());
        assertThat(lenient.stats().skipped()).isPositive();
    }

    @Test
    void hundredMegabyteLine() {
        byte[] line = new byte[100 << 20];
        Arrays.fill(line, (byte) 'x');
        for (int i = 1000; i < line.length - 10; i += 1000) {
            line[i] = ';';
        }
        byte[] tail = " 7\n".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(tail, 0, line, line.length - tail.length, tail.length);
        FoldedReader.Result r = Folded.read(line, FoldedReader.Mode.PLAIN, false, 1, new ArrayList<>());
        assertThat(r.profile().tree().totalSamples()).isEqualTo(7);
        assertThat(r.stats().maxDepth()).isEqualTo((line.length - 10) / 1000 + 1);
        // With no count it is the same clear error as any short line.
        line[line.length - 2] = 'x';
        assertThatThrownBy(() -> Folded.read(line, FoldedReader.Mode.PLAIN, false, 1, new ArrayList<>()))
                .hasMessage("test.folded:1: no count at the end of the line");
    }

    @Test
    void gzipInputIsRecognisedByMagicBytes(@TempDir Path dir) throws IOException {
        Path p = dir.resolve("profile.txt");
        try (GZIPOutputStream gz = new GZIPOutputStream(Files.newOutputStream(p))) {
            gz.write("a;b 2\nc 3\n".getBytes(StandardCharsets.UTF_8));
        }
        try (Input in = Input.open(p.toString())) {
            assertThat(in.isGzip()).isTrue();
            assertThat(Folded.counts(FoldedReader.plain().read(in).profile()))
                    .containsExactly(Map.entry("a;b", 2L), Map.entry("c", 3L));
        }
    }

    @Test
    void truncatedGzipIsAClearError(@TempDir Path dir) throws IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(bytes)) {
            gz.write("a;b 2\nc 3\n".repeat(1000).getBytes(StandardCharsets.UTF_8));
        }
        Path p = dir.resolve("cut.folded.gz");
        Files.write(p, Arrays.copyOf(bytes.toByteArray(), bytes.size() / 2));
        try (Input in = Input.open(p.toString())) {
            assertThatThrownBy(() -> FoldedReader.plain().read(in)).isInstanceOf(InputException.class)
                    .hasMessageStartingWith(p + ": truncated or corrupt gzip data");
        }
    }

    @Test
    void standardInput() throws IOException {
        try (Input in = Input.open("-", new java.io.ByteArrayInputStream("x;y 4\n".getBytes(StandardCharsets.UTF_8)))) {
            assertThat(in.name()).isEqualTo("<stdin>");
            assertThat(Folded.counts(FoldedReader.plain().read(in).profile())).containsExactly(Map.entry("x;y", 4L));
        }
    }

    @Test
    void missingFileIsAClearError() {
        assertThatThrownBy(() -> Input.open("/nonexistent/x.folded")).isInstanceOf(InputException.class)
                .hasMessage("/nonexistent/x.folded: no such file");
    }

    @Test
    void differentialRecordsHaveTwoCounts() {
        FoldedReader.Result r = Folded.read("main;foo 10 14\nmain;bar baz 0 3\n".getBytes(StandardCharsets.UTF_8),
                FoldedReader.Mode.DIFFERENTIAL, false, 1, new ArrayList<>());
        assertThat(Folded.stacks(r.profile())).containsExactly(
                Map.entry("main;bar baz", List.of(0L, 3L)), Map.entry("main;foo", List.of(10L, 14L)));
    }

    @Test
    void differentialRecordWithOneCountIsAnError() {
        assertThatThrownBy(() -> Folded.read("a;b 5\n".getBytes(StandardCharsets.UTF_8),
                FoldedReader.Mode.DIFFERENTIAL, false, 1, new ArrayList<>()))
                .hasMessage("test.folded:1: differential record needs two counts");
    }

    @Test
    void sameLineIsAStackWithANumberInPlainMode() {
        assertThat(counts("a;b 5 7\n")).containsExactly(Map.entry("a;b 5", 7L));
    }

    @Test
    void autoModeDecidesByTheFirstRecord() {
        FoldedReader.Result diff = Folded.read("# hdr\na;b 5 7\n".getBytes(StandardCharsets.UTF_8),
                FoldedReader.Mode.AUTO, false, 1, new ArrayList<>());
        assertThat(diff.profile().tree().isDifferential()).isTrue();
        FoldedReader.Result plain = Folded.read("a;b 7\na;c 1 2\n".getBytes(StandardCharsets.UTF_8),
                FoldedReader.Mode.AUTO, false, 1, new ArrayList<>());
        assertThat(plain.profile().tree().isDifferential()).isFalse();
    }

    @Test
    void statsCountLinesRecordsAndDepth() {
        FoldedReader.Stats s = Folded.read("a 1\n\na;b;c 2\na;b 3\na 4\n").stats();
        assertThat(s.lines()).isEqualTo(5);
        assertThat(s.records()).isEqualTo(4);
        assertThat(s.distinctStacks()).isEqualTo(3);
        assertThat(s.maxDepth()).isEqualTo(3);
        assertThat(s.meanDepth()).isEqualTo(7 / 4.0);
    }

    @Test
    void parallelRangesGiveTheSameProfileAndLineNumbers() {
        StringBuilder sb = new StringBuilder();
        java.util.SplittableRandom r = new java.util.SplittableRandom(3);
        for (int i = 0; i < 400_000; i++) {
            sb.append("root").append(r.nextInt(5)).append(";org.example.SomeLongerClassName.method").append(";f").append(r.nextInt(50)).append(";g")
                    .append(r.nextInt(50)).append(' ').append(r.nextInt(1, 100)).append('\n');
        }
        byte[] data = sb.toString().getBytes(StandardCharsets.UTF_8);
        assertThat(data.length).isGreaterThan(16 << 20);
        var one = Folded.read(data, FoldedReader.Mode.PLAIN, false, 1, new ArrayList<>());
        var two = Folded.read(data, FoldedReader.Mode.PLAIN, false, 2, new ArrayList<>());
        assertThat(Folded.counts(two.profile())).isEqualTo(Folded.counts(one.profile()));
        assertThat(two.stats().distinctStacks()).isEqualTo(one.stats().distinctStacks());
        assertThat(two.stats().lines()).isEqualTo(400_000);
        // An error in the second half still names its line in the whole file.
        byte[] bad = Arrays.copyOf(data, data.length + 4);
        System.arraycopy("bad\n".getBytes(StandardCharsets.UTF_8), 0, bad, data.length, 4);
        assertThatThrownBy(() -> Folded.read(bad, FoldedReader.Mode.PLAIN, false, 2, new ArrayList<>()))
                .hasMessage("test.folded:400001: no count at the end of the line");
    }
    @Test
    void sortedInputIsCutWhereTheRootChangesAndGivesTheSameProfile(@TempDir Path dir) throws IOException {
        // Sorted lines: the parallel reader cuts where the root frame changes and appends the
        // second range's tree whole; the result must equal a one-thread read, frame order included.
        StringBuilder sb = new StringBuilder();
        java.util.SplittableRandom r = new java.util.SplittableRandom(9);
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 300_000; i++) {
            lines.add("root" + r.nextInt(4) + ";org.example.SomeLongerClassName.method;f" + r.nextInt(60) + ";g"
                    + r.nextInt(60) + ";h" + r.nextInt(9) + " " + r.nextInt(1, 100));
        }
        lines.sort(null);
        for (String l : lines) {
            sb.append(l).append('\n');
        }
        byte[] data = sb.toString().getBytes(StandardCharsets.UTF_8);
        assertThat(data.length).isGreaterThan(16 << 20);
        Path file = dir.resolve("sorted.folded");
        Files.write(file, data);
        var one = Folded.read(data, FoldedReader.Mode.PLAIN, false, 1, new ArrayList<>());
        FoldedReader.Result two;
        try (Input in = Input.open(file.toString())) { // a file: read through mapped windows
            two = new FoldedReader(FoldedReader.Mode.PLAIN, false, 2, w -> { }).read(in);
        }
        assertThat(Folded.write(two.profile())).isEqualTo(Folded.write(one.profile()));
        assertThat(two.stats()).isEqualTo(one.stats());
        assertThat(two.profile().tree().size()).isEqualTo(one.profile().tree().size());
    }
    @Test
    void cutsMoveToTheNearestRootChangeEitherWay() {
        // 3000 lines of 8 bytes: the middle is line 1501, and a change is looked for within 187 lines.
        assertThat(FoldedReader.cutAtLines(sortedRoots(1400, 1560), 2)).containsExactly(0, 1560 * 8, 24000);
        assertThat(FoldedReader.cutAtLines(sortedRoots(1450, 1700), 2)).containsExactly(0, 1450 * 8, 24000);
        // No change within reach: the cut stays at the line start after the middle.
        assertThat(FoldedReader.cutAtLines(sortedRoots(1000, 2200), 2)).containsExactly(0, 1501 * 8, 24000);
    }

    /** 3000 lines "R;x;y 1": root a before line {@code b}, b before line {@code c}, then c. */
    private static org.stackfold.io.ByteView sortedRoots(int b, int c) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 3000; i++) {
            sb.append(i < b ? "a" : i < c ? "b" : "c").append(";x;y 1\n");
        }
        return org.stackfold.io.ByteView.of(sb.toString().getBytes(StandardCharsets.UTF_8));
    }
}
