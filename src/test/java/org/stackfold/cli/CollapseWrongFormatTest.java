package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A collapser given input that is not its format (a perf script to {@code collapse bpftrace})
 * parses not one record: exit 1, one line saying what it expected and what it found, no output.
 */
class CollapseWrongFormatTest {
    @TempDir
    Path dir;

    /** name, resource (under src/test/resources), what the message says it looks like. */
    static final List<String[]> INPUTS = List.of(
            new String[] {"perf", "/collapse/guess/inferno__collapse-perf__single-event.txt", "looks like perf output"},
            new String[] {"bpftrace", "/collapse/bpftrace/bpftrace-comm.txt", "looks like bpftrace output"},
            new String[] {"dtrace", "/collapse/dtrace/inferno__collapse-dtrace__java.txt", "looks like dtrace output"},
            new String[] {"jfr", "/formats/jfr-heavy.jfr", "jfr profile"},
            new String[] {"empty", null, "the input is empty"});

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (String c : List.of("dtrace", "sample", "vtune", "vsprof", "ghcprof", "xctrace", "bpftrace", "perf")) {
            for (String[] in : INPUTS) {
                if (!in[0].equals(c) && !(c.equals("perf") && !in[0].equals("empty"))) {
                    out.add(Arguments.of(c, in[0], in[1], in[2]));
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "collapse {0} on {1}")
    @MethodSource("cases")
    void oneLineExitOneNoOutput(String collapser, String inputName, String resource, String looks) throws Exception {
        Path in = resource == null ? Files.createFile(dir.resolve("empty.txt")) : path(resource);
        Path o = dir.resolve("out.folded");
        StringWriter err = new StringWriter();
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        int code = Main.run(new String[] {"collapse", collapser, in.toString(), "-o", o.toString()}, stdout,
                new PrintWriter(err, true));
        assertThat(code).as(err.toString()).isEqualTo(1);
        assertThat(err.toString().lines().toList()).singleElement().asString()
                .startsWith("stackfold: " + in)
                .satisfiesAnyOf(s -> assertThat(s).contains("no " + collapser + " record found; ")
                        .contains(looks), s -> assertThat(s).matches("stackfold: [^:]+:\\d+: .*"));
        assertThat(o).doesNotExist();
        assertThat(stdout.size()).isZero();
    }

    private static Path path(String resource) throws URISyntaxException {
        return Path.of(CollapseWrongFormatTest.class.getResource(resource).toURI());
    }
}
