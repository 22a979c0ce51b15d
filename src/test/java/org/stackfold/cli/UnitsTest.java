package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Values are shown in the unit of the profile's value type: a Go CPU profile's nanoseconds are ms,
 * heap bytes KiB, plain counts samples; and {@code collapse perf} says when its counts are periods.
 */
class UnitsTest {
    @TempDir
    Path dir;

    @Test
    void topAndInfoShowCpuTimeInMilliseconds() throws Exception {
        String top = run("top", res("/formats/go/go119-cpu.pb.gz"));
        assertThat(top.lines().findFirst().orElseThrow()).contains("SELF ms").contains("TOTAL ms");
        assertThat(top).endsWith("370.00 ms, 36 functions\n").doesNotContain("samples");
    }

    @Test
    void flameGraphTooltipsNameTheUnit() throws Exception {
        assertThat(run("flamegraph", res("/formats/go/go119-cpu.pb.gz")))
                .contains("<title>all (370,000,000 nanoseconds, 100%)</title>");
        assertThat(run("flamegraph", res("/formats/go/go119-heap.pb.gz"))).contains(" bytes, 100%)</title>");
        Path f = Files.writeString(dir.resolve("a.folded"), "a;b 3\na 2\n");
        assertThat(run("flamegraph", f.toString())).contains("<title>all (5 samples, 100%)</title>");
        assertThat(run("flamegraph", "--countname", "ticks", res("/formats/go/go119-cpu.pb.gz")))
                .contains("(370,000,000 ticks, 100%)");
    }

    @Test
    void topShowsBytesInKibibytes() throws Exception {
        String top = run("top", res("/formats/go/go119-heap.pb.gz"));
        assertThat(top.lines().findFirst().orElseThrow()).contains("SELF KiB");
        assertThat(top).contains(" KiB, ").doesNotContain("samples");
    }

    @Test
    void plainCountsStaySamples() throws Exception {
        Path f = Files.writeString(dir.resolve("a.folded"), "a;b 3\na 2\n");
        assertThat(run("top", f.toString())).startsWith("        SELF   SELF%        TOTAL  TOTAL%  FUNCTION\n")
                .endsWith("5 samples, 2 functions\n");
        assertThat(run("info", f.toString())).contains("total samples      5");
    }

    @Test
    void perfCollapseSaysItWeighsByPeriodAndCanCountSamples() throws Exception {
        Path in = Files.writeString(dir.resolve("perf.txt"), """
                java 1 1.0: 1000 cycles:
                \t    7f10c6a2 main+0x1 (/usr/bin/java)

                java 1 1.1: 3000 cycles:
                \t    7f10c6a2 main+0x1 (/usr/bin/java)

                """);
        StringWriter err = new StringWriter();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(Main.run(new String[] {"collapse", "perf", in.toString()}, out, new PrintWriter(err, true))).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("java;main 4000\n");
        assertThat(err.toString().lines().toList()).singleElement().asString()
                .contains("counts are cycles").contains("--count-samples");
        err.getBuffer().setLength(0);
        out.reset();
        assertThat(Main.run(new String[] {"collapse", "perf", "--count-samples", in.toString()}, out,
                new PrintWriter(err, true))).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("java;main 2\n");
        assertThat(err.toString()).isEmpty();
        assertThat(run("collapse", "--help")).contains("--count-samples").contains("period");
    }

    private static String res(String name) throws URISyntaxException {
        return Path.of(UnitsTest.class.getResource(name).toURI()).toString();
    }

    private static String run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringWriter err = new StringWriter();
        assertThat(Main.run(args, out, new PrintWriter(err, true))).as(err.toString()).isZero();
        return out.toString(StandardCharsets.UTF_8);
    }
}
