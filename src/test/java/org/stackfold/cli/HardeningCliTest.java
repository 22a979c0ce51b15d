package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The CLI's contract on mistakes and on what it writes: exit codes, one-line errors naming the file, outputs. */
class HardeningCliTest {
    @TempDir
    Path dir;

    record Run(int code, byte[] out, String err) {
        String text() {
            return new String(out, StandardCharsets.UTF_8);
        }

        long errLines() {
            return err.lines().count();
        }
    }

    static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringWriter err = new StringWriter();
        int code = Main.run(args, out, new PrintWriter(err, true));
        return new Run(code, out.toByteArray(), err.toString());
    }

    private Path file(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    private String folded() throws IOException {
        return file("p.folded", "main;a 2\nmain;b 3\n").toString();
    }

    private static String res(String path) {
        return Path.of("src/test/resources", path).toString();
    }

    @ParameterizedTest
    @ValueSource(strings = {"convert --from bogus IN", "convert --to bogus IN", "convert --compression x IN -o x.bin",
            "convert --tachyon-stacks sideways TACHYON", "convert --tachyon-status nonsense TACHYON",
            "convert --tachyon-from soon TACHYON", "collapse bogus IN", "top -n -1 IN", "top --threads 2147483647 IN",
            "info --threads 0 IN", "fold --max-input lots IN", "flamegraph --encoding= IN", "flamegraph --encoding=UTF-16 IN",
            "fold IN - -"})
    void usageErrorsExitTwoWithOneLine(String command) throws IOException {
        String in = folded();
        String[] args = command.replace("TACHYON", res("tachyon/real/a_none.bin")).replace("IN", in)
                .replace("x.bin", dir.resolve("x.bin").toString()).split(" ");
        Run r = run(args);
        assertThat(r.code()).as(command + ": " + r.err()).isEqualTo(2);
        assertThat(r.errLines()).as(r.err()).isEqualTo(1);
        assertThat(r.err()).doesNotContain("internal error").doesNotContain("Exception");
    }

    @Test
    void gzOutputsAreGzipAndZstOutputsAreZstdAndBothReadBack() throws IOException {
        String in = folded();
        for (String cmd : new String[] {"fold", "convert"}) {
            Path gz = dir.resolve(cmd + ".folded.gz");
            assertThat(run(cmd, in, "-o", gz.toString()).code()).isZero();
            try (var s = new GZIPInputStream(Files.newInputStream(gz))) {
                assertThat(new String(s.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("main;a 2\nmain;b 3\n");
            }
            Path zst = dir.resolve(cmd + ".folded.zst");
            assertThat(run(cmd, in, "-o", zst.toString()).code()).isZero();
            byte[] magic = Arrays4.head(zst);
            assertThat(magic).containsExactly(0x28, 0xB5, 0x2F, 0xFD);
            Run back = run("fold", zst.toString());
            assertThat(back.text()).isEqualTo("main;a 2\nmain;b 3\n");
            assertThat(run("info", zst.toString()).text()).contains("folded (zstd)");
        }
        Path svgz = dir.resolve("g.svg.gz");
        assertThat(run("flamegraph", in, "-o", svgz.toString()).code()).isZero();
        try (var s = new GZIPInputStream(Files.newInputStream(svgz))) {
            assertThat(new String(s.readAllBytes(), StandardCharsets.UTF_8)).contains("<svg");
        }
        Path speedscope = dir.resolve("s.speedscope.json.gz");
        assertThat(run("convert", in, "-o", speedscope.toString()).code()).isZero();
        assertThat(run("fold", speedscope.toString()).text()).isEqualTo("main;a 2\nmain;b 3\n");
        Path pprof = dir.resolve("p.pb.gz"); // gzip by the format itself, not twice
        assertThat(run("convert", in, "-o", pprof.toString()).code()).isZero();
        try (var s = new GZIPInputStream(Files.newInputStream(pprof))) {
            byte[] proto = s.readAllBytes();
            assertThat(proto[0] & 0xff).isNotEqualTo(0x1f);
        }
        assertThat(run("fold", pprof.toString()).text()).isEqualTo("main;a 2\nmain;b 3\n");
    }

    /** Reads the first four bytes as unsigned values. */
    static final class Arrays4 {
        static byte[] head(Path p) throws IOException {
            byte[] b = Files.readAllBytes(p);
            return java.util.Arrays.copyOf(b, 4);
        }
    }

    @Test
    void outputNamesThatCannotBeFilesAreRefusedAndLongNamesWork() throws IOException {
        String in = folded();
        Run slash = run("fold", in, "-o", dir.resolve("newdir").toString() + "/");
        assertThat(slash.code()).isEqualTo(1);
        assertThat(slash.err()).contains("newdir/: names a directory");
        assertThat(dir.resolve("newdir")).doesNotExist();
        String longName = "p".repeat(240) + ".folded";
        Run longRun = run("fold", in, "-o", dir.resolve(longName).toString());
        assertThat(longRun.code()).as(longRun.err()).isZero();
        assertThat(dir.resolve(longName)).hasContent("main;a 2\nmain;b 3");
        Run missing = run("fold", in, "-o", dir.resolve("no/such/dir/x.folded").toString());
        assertThat(missing.code()).isEqualTo(1);
        assertThat(missing.err()).contains("does not exist");
    }

    @Test
    void singleByteEncodingsKeepTheSvgWellFormed() throws Exception {
        Run r = run("flamegraph", "--encoding=ISO-8859-1", folded());
        assertThat(r.code()).isZero();
        javax.xml.parsers.DocumentBuilderFactory f = javax.xml.parsers.DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        f.newDocumentBuilder().parse(new java.io.ByteArrayInputStream(r.out()));
    }

    @Test
    void optionFilesWithBadBytesOrThatAreDirectoriesAreNamed() throws IOException {
        Path attrs = dir.resolve("attrs.txt");
        Files.write(attrs, new byte[] {'m', 'a', 'i', 'n', '\t', 'x', '=', '1', '\n', 'a', (byte) 0xff, '\n'});
        Run bad = run("flamegraph", "--nameattr", attrs.toString(), folded());
        assertThat(bad.code()).isEqualTo(1);
        assertThat(bad.err()).isEqualTo("stackfold: " + attrs + ":2: not valid UTF-8 text\n");
        Run directory = run("flamegraph", "--nameattr", dir.toString(), folded());
        assertThat(directory.err()).isEqualTo("stackfold: " + dir + ": is a directory\n");
        Path palette = dir.resolve("palette.map");
        Files.write(palette, new byte[] {(byte) 0xc3, '\n'});
        Run pal = run("flamegraph", "--palette-file", palette.toString(), folded());
        assertThat(pal.err()).endsWith("stackfold: " + palette + ":1: not valid UTF-8 text\n");
    }

    @Test
    void everyCommandReadsAProfilersTextOutputDirectly() throws IOException {
        String perf = res("collapse/perf/inputs/fg__test__perf-funcab-cmd-01.txt");
        Run collapsed = run("collapse", "perf", perf);
        assertThat(collapsed.code()).isZero();
        assertThat(run("fold", perf).text()).isEqualTo(collapsed.text());
        assertThat(run("info", perf).text()).contains("format             perf");
        assertThat(run("top", perf).code()).isZero();
        Run svg = run("flamegraph", perf);
        assertThat(svg.code()).as(svg.err()).isZero();
        assertThat(svg.text()).contains("<svg");
        String dtrace = res("collapse/dtrace/inferno__collapse-dtrace__java.txt");
        assertThat(run("fold", dtrace).text()).isEqualTo(run("collapse", "dtrace", dtrace).text());
        assertThat(run("fold", "--from", "perf", perf).text()).isEqualTo(collapsed.text());
    }

    @Test
    void differentialFoldedTextIsKnownByItsFirstRecordWhateverItsName() throws IOException {
        String diff = "a;b 3 0\na;c 0 5\na;d 2 2\n";
        for (String name : new String[] {"d.txt", "d.folded", "noext"}) {
            Path p = file(name, diff);
            assertThat(run("fold", p.toString()).text()).as(name).isEqualTo(diff);
            assertThat(run("info", p.toString()).text()).as(name).contains("samples (before)   5")
                    .contains("samples (after)    7");
        }
        Path p = dir.resolve("noext");
        assertThat(run("fold", "--from", "folded", p.toString()).text()).as("forced plain: a;b 3 has no samples")
                .isEqualTo("a;c 0 5\na;d 2 2\n");
        assertThat(run("fold", file("plain.txt", "a;b 3\nx;y 1 2\n").toString()).text()).isEqualTo("a;b 3\nx;y 1 2\n");
    }

    @Test
    void whatNoReaderRecognisesIsDescribed() throws IOException {
        Path html = file("page.html", "<html><body>not a profile</body></html>\n");
        Run r = run("info", html.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).startsWith("stackfold: " + html + ": not a profile Stackfold recognises (its first line is '<html>")
                .contains("stackfold collapse");
        assertThat(r.errLines()).isEqualTo(1);
    }

    @Test
    void topAndInfoTakeTheReadingOptionsOfConvert() throws IOException {
        String heap = res("formats/go/go119-heap.pb.gz");
        Run top = run("top", "--sample-type", "alloc_space", heap);
        assertThat(top.code()).as(top.err()).isZero();
        assertThat(top.text()).contains("main.alloc");
        Run folded = run("convert", "--sample-type", "alloc_space", heap);
        Run info = run("info", "--sample-type", "alloc_space", heap);
        assertThat(info.code()).as(info.err()).isZero();
        assertThat(run("fold", "--sample-type", "alloc_space", heap).text()).isEqualTo(folded.text());
        Run threads = run("top", "--thread-frames", res("formats/jfr-heavy.jfr"));
        assertThat(threads.code()).as(threads.err()).isZero();
    }

    @Test
    void jsonPastTheParsersLimitsIsNamedWithItsOffset() throws IOException {
        Path deep = file("deep.speedscope.json", "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"x\":"
                + "[".repeat(5000) + "]".repeat(5000) + "}");
        Run r = run("convert", deep.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).startsWith("stackfold: " + deep + ": at byte offset ").contains("nesting depth");
        assertThat(r.errLines()).isEqualTo(1);
    }
}
