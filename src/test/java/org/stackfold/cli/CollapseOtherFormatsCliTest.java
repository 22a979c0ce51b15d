package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** End to end: {@code stackfold collapse FORMAT} for the formats other than perf, with their options. */
class CollapseOtherFormatsCliTest {
    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
    }

    private static String res(String rel) throws URISyntaxException {
        return Path.of(CollapseOtherFormatsCliTest.class.getResource("/collapse/" + rel).toURI()).toString();
    }

    private List<String> outputLines(Path p) throws Exception {
        return Files.readAllLines(p);
    }

    @Test
    void dtraceWithIncludeOffsetWritesSortedFoldedStacks() throws Exception {
        Path o = dir.resolve("out.folded");
        assertThat(run("collapse", "dtrace", "--includeoffset", res("dtrace/fg__example-dtrace-stacks.txt.gz"),
                "-o", o.toString())).isEqualTo(0);
        List<String> lines = outputLines(o);
        List<String> expected = Files.readAllLines(
                Path.of(res("dtrace/inferno__collapse-dtrace__results__dtrace-example-offsets.txt")));
        assertThat(lines).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void ghcprofTicksAndBytesAreExclusive() throws Exception {
        assertThat(run("collapse", "ghcprof", "--ticks", "--bytes",
                res("ghcprof/inferno__collapse-ghcprof__ticks.prof"))).isEqualTo(2);
        assertThat(err.toString()).contains("mutually exclusive");
    }

    @Test
    void ghcprofTicks() throws Exception {
        Path o = dir.resolve("t.folded");
        assertThat(run("collapse", "ghcprof", "--ticks", res("ghcprof/inferno__collapse-ghcprof__ticks.prof"),
                "-o", o.toString())).isEqualTo(0);
        List<String> expected = Files.readAllLines(
                Path.of(res("ghcprof/inferno__collapse-ghcprof__results__ticks_ticks.txt"))).stream()
                .filter(l -> !l.endsWith(" 0")).toList();
        assertThat(outputLines(o)).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void sampleNoModules() throws Exception {
        Path o = dir.resolve("s.folded");
        assertThat(run("collapse", "sample", "--no-modules", res("sample/inferno__collapse-sample__sample.txt"),
                "-o", o.toString())).isEqualTo(0);
        assertThat(outputLines(o)).isNotEmpty().allSatisfy(l -> assertThat(l).doesNotContain("`"));
    }

    @Test
    void badInputIsOneLineWithFileAndLineAndExitOne() throws Exception {
        Path o = dir.resolve("never.folded");
        String in = res("vtune/inferno__collapse-vtune__skipped-indentation.csv");
        assertThat(run("collapse", "vtune", in, "-o", o.toString())).isEqualTo(1);
        assertThat(err.toString()).isEqualTo("stackfold: " + in + ":7: indentation skips a level (depth 7 after 5)"
                + System.lineSeparator());
        assertThat(Files.exists(o)).isFalse();
    }

    @Test
    void guessPicksTheFormat() throws Exception {
        Path o = dir.resolve("g.folded");
        assertThat(run("collapse", "guess", res("xctrace/inferno__collapse-xctrace__basic.xml.gz"),
                "-o", o.toString())).isEqualTo(0);
        assertThat(outputLines(o)).containsExactlyInAnyOrderElementsOf(Files.readAllLines(
                Path.of(res("xctrace/inferno__collapse-xctrace__results__basic.folded"))));
    }

    @Test
    void guessOnUnknownInputFails() throws Exception {
        assertThat(run("collapse", "guess", res("guess/inferno__collapse-guess__unknown-format.txt"))).isEqualTo(1);
        assertThat(err.toString()).contains("No applicable collapse implementation found for input");
    }

    @Test
    void bccAnnotations() throws Exception {
        Path in = dir.resolve("bcc.txt");
        Files.writeString(in, "p;main;-;sys_read 1\np;main;-;sys_read 2\n");
        Path o = dir.resolve("b.folded");
        assertThat(run("collapse", "bcc", "--annotations", in.toString(), "-o", o.toString())).isEqualTo(0);
        assertThat(outputLines(o)).containsExactly("p;main;sys_read_[k] 3");
        Path o2 = dir.resolve("b2.folded");
        assertThat(run("collapse", "bcc", "--kernel", in.toString(), "-o", o2.toString())).isEqualTo(0);
        assertThat(outputLines(o2)).containsExactly("p;main;sys_read_[k] 3");
    }

    @Test
    void bpftraceRecording() throws Exception {
        Path o = dir.resolve("bt.folded");
        assertThat(run("collapse", "bpftrace", res("bpftrace/bpftrace-comm.txt"), "-o", o.toString())).isEqualTo(0);
        assertThat(outputLines(o)).containsExactlyElementsOf(
                Files.readAllLines(Path.of(res("bpftrace/bpftrace-comm.folded"))));
    }

    @Test
    void unknownFormatListsTheKnownOnes() {
        assertThat(run("collapse", "nosuch", "x")).as("a usage error").isEqualTo(2);
        assertThat(err.toString()).contains("unknown collapse format 'nosuch'").contains("dtrace")
                .contains("ghcprof").contains("guess");
        assertThat(Arrays.asList(err.toString().split("\n"))).hasSize(1);
    }
}
