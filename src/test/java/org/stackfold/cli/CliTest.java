package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stackfold.cli.CliRun.run;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** End-to-end tests of the CLI through {@link Main#run}: arguments in, exit code and output out. */
class CliTest {
    @TempDir
    Path dir;

    private Path file(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    @Test
    void foldMergesNormalisesAndSorts() throws IOException {
        Path a = file("a.folded", "b;x 1\r\na;y\t2\n");
        Path b = file("b.folded", "  b;x   4 \n");
        Path out = dir.resolve("out.folded");
        CliRun r = run("fold", a.toString(), b.toString(), "-o", out.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(Files.readString(out)).isEqualTo("a;y 2\nb;x 5\n");
    }

    @Test
    void foldReadsGzip() throws IOException {
        Path gz = dir.resolve("p.folded.gz");
        try (GZIPOutputStream o = new GZIPOutputStream(Files.newOutputStream(gz))) {
            o.write("z 1\nz 2\n".getBytes(StandardCharsets.UTF_8));
        }
        Path out = dir.resolve("o.folded");
        assertThat(run("fold", gz.toString(), "-o", out.toString()).code()).isZero();
        assertThat(Files.readString(out)).isEqualTo("z 3\n");
    }

    @Test
    void badInputExitsOneWithOneLineAndLeavesNoOutput() throws IOException {
        Path bad = file("bad.folded", "a 1\nno count here\n");
        Path out = dir.resolve("out.folded");
        Files.writeString(out, "previous content\n");
        CliRun r = run("fold", bad.toString(), "-o", out.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).isEqualTo("stackfold: " + bad + ":2: no count at the end of the line"
                + System.lineSeparator());
        assertThat(Files.readString(out)).isEqualTo("previous content\n");
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
        }
    }

    @Test
    void lenientSkipsAndSaysHowMany() throws IOException {
        Path bad = file("bad.folded", "a 1\nno count here\n");
        Path out = dir.resolve("out.folded");
        CliRun r = run("fold", "--lenient", bad.toString(), "-o", out.toString());
        assertThat(r.code()).isZero();
        assertThat(Files.readString(out)).isEqualTo("a 1\n");
    }

    @Test
    void usageErrorsExitTwo() {
        assertThat(run("fold").code()).isEqualTo(2);
        assertThat(run("nonsense").code()).isEqualTo(2);
        assertThat(run("top", "--sort", "sideways", "x").code()).isEqualTo(2);
        assertThat(run().code()).isEqualTo(2);
    }

    @Test
    void missingFileExitsOne() {
        CliRun r = run("info", dir.resolve("nope.folded").toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).contains("nope.folded: no such file");
    }

    @Test
    void everyCommandHasHelpWithExamples() {
        for (String cmd : new String[] {"fold", "diff", "top", "info", "convert", "collapse", "demo"}) {
            CliRun r = run(cmd, "--help");
            assertThat(r.code()).as(cmd).isZero();
            assertThat(r.out()).as(cmd).contains("Usage: stackfold " + cmd).contains("Example");
        }
        assertThat(run("--help").out()).contains("fold").contains("diff").contains("top").contains("info");
    }

    @Test
    void topShowsSelfAndTotalWithPercentages() throws IOException {
        Path p = file("p.folded", "main;fib;fib 6\nmain;io 2\nmain 2\n");
        CliRun r = run("top", p.toString());
        assertThat(r.code()).isZero();
        String[] lines = r.out().split("\n");
        assertThat(lines[0]).contains("SELF").contains("TOTAL").contains("FUNCTION");
        assertThat(lines[1]).matches("\\s+6\\s+60\\.00%\\s+6\\s+60\\.00%\\s+fib");
        assertThat(lines[lines.length - 1]).isEqualTo("10 samples, 3 functions");
        CliRun byTotal = run("top", "--sort", "total", "-n", "1", p.toString());
        assertThat(byTotal.out().split("\n")[1]).endsWith("main").contains("100.00%");
    }

    @Test
    void infoSummarises() throws IOException {
        Path p = file("p.folded", "a;b;c 2\na 1\na;b;c 3\n\n");
        CliRun r = run("info", p.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).containsPattern("records\\s+3\n").containsPattern("distinct stacks\\s+2\n")
                .containsPattern("total samples\\s+6\n").containsPattern("distinct frames\\s+3\n")
                .containsPattern("max depth\\s+3\n").containsPattern("mean depth\\s+2\\.33\n");
    }

    @Test
    void diffMakesADifferentialFile() throws IOException {
        Path a = file("before.folded", "m;x 10\nm;y 5\n");
        Path b = file("after.folded", "m;x 20\nm;z 5\n");
        Path out = dir.resolve("d.diff.folded");
        CliRun r = run("diff", a.toString(), b.toString(), "-o", out.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(Files.readString(out)).isEqualTo("m;x 10 20\nm;y 5 0\nm;z 0 5\n");
        CliRun n = run("diff", "--normalize", a.toString(), b.toString());
        assertThat(n.out()).isEqualTo("m;x 16 20\nm;y 8 0\nm;z 0 5\n");
        // A differential file is recognised by its name and kept differential by fold and info.
        assertThat(run("fold", out.toString()).out()).isEqualTo("m;x 10 20\nm;y 5 0\nm;z 0 5\n");
        assertThat(run("info", out.toString()).out()).containsPattern("samples \\(after\\)\\s+25");
    }

    @Test
    void convertByExtension() throws IOException {
        Path p = file("p.folded", "a;b 1\na;b 2\n");
        Path out = dir.resolve("q.folded");
        assertThat(run("convert", p.toString(), "-o", out.toString()).code()).isZero();
        assertThat(Files.readString(out)).isEqualTo("a;b 3\n");
        assertThat(run("convert", "--to", "nonsense", p.toString()).err()).contains("unknown format 'nonsense'");
    }

    @Test
    void demoRunsOnTheBundledExample() {
        Path svg = dir.resolve("demo.svg");
        CliRun r = run("demo", "--bundled", "-o", svg.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("FUNCTION").contains("samples");
    }
}
