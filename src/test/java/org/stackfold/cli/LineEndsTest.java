package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Line ends as Windows and old Mac tools write them: {@code \r\n} and a lone {@code \r} end a line
 * like {@code \n}, and a UTF-8 byte-order mark at the start is not part of the first frame. Every
 * text reader (folded, flame-chart order, every collapser) gives the same result as on the plain file.
 */
class LineEndsTest {
    @TempDir
    Path dir;

    static final String FOLDED = "a;b 1\na;c 2\nmain;x y 3\nmain 4\n# comment\n\nz 5\nz;z 6\nq 7\nq;r 8\n";

    static Stream<Arguments> variants() {
        return Stream.of(Arguments.of("CR"), Arguments.of("CRLF"), Arguments.of("BOM"), Arguments.of("BOM+CR"));
    }

    static byte[] variant(byte[] lf, String kind) {
        String s = new String(lf, StandardCharsets.ISO_8859_1);
        if (kind.contains("CRLF")) {
            s = s.replace("\n", "\r\n");
        } else if (kind.contains("CR")) {
            s = s.replace("\n", "\r");
        }
        if (kind.contains("BOM")) {
            s = "\u00ef\u00bb\u00bf" + s;
        }
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void foldedReadsEveryLine(String kind) throws Exception {
        byte[] lf = FOLDED.getBytes(StandardCharsets.UTF_8);
        Path plain = Files.write(dir.resolve("plain.folded"), lf);
        Path other = Files.write(dir.resolve("other.folded"), variant(lf, kind));
        for (String cmd : List.of("fold", "top", "info")) {
            String want = run(cmd, plain.toString()).replace(plain.toString(), "F");
            assertThat(run(cmd, other.toString()).replace(other.toString(), "F")).as(cmd).isEqualTo(want);
        }
        assertThat(run("fold", other.toString())).isEqualTo(
                "a;b 1\na;c 2\nmain 4\nmain;x y 3\nq 7\nq;r 8\nz 5\nz;z 6\n");
        assertThat(run("info", other.toString())).contains("36");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void flameChartReadsEveryLine(String kind) throws Exception {
        byte[] lf = FOLDED.getBytes(StandardCharsets.UTF_8);
        Path plain = Files.write(dir.resolve("plain.folded"), lf);
        Path other = Files.write(dir.resolve("other.folded"), variant(lf, kind));
        assertThat(run("flamegraph", "--flamechart", other.toString()))
                .isEqualTo(run("flamegraph", "--flamechart", plain.toString()));
    }

    static Stream<Arguments> collapsers() {
        return Stream.of("dtrace:dtrace/inferno__collapse-dtrace__java.txt",
                        "sample:sample/inferno__collapse-sample__sample.txt",
                        "vtune:vtune/inferno__collapse-vtune__vtune.csv",
                        "vsprof:vsprof/inferno__collapse-vsprof__CallTreeSummary.csv",
                        "ghcprof:ghcprof/inferno__collapse-ghcprof__ticks.prof",
                        "bpftrace:bpftrace/bpftrace-comm.txt", "bcc:bcc/profile-d-a.txt",
                        "recursive:recursive/inferno__collapse-recursive__basic.txt",
                        "xctrace:xctrace/inferno__collapse-xctrace__basic.xml.gz",
                        "perf:guess/inferno__collapse-perf__single-event.txt")
                .flatMap(c -> variants().map(v -> Arguments.of(c.split(":")[0], c.split(":")[1], v.get()[0])));
    }

    @ParameterizedTest(name = "collapse {0} {2}")
    @MethodSource("collapsers")
    void everyCollapserReadsEveryLine(String format, String resource, String kind) throws Exception {
        byte[] lf = resource(resource);
        Path plain = Files.write(dir.resolve("plain.txt"), lf);
        Path other = Files.write(dir.resolve("other.txt"), variant(lf, kind));
        String want = run("collapse", format, plain.toString());
        assertThat(want).isNotEmpty();
        assertThat(run("collapse", format, other.toString())).isEqualTo(want);
    }

    @Test
    void perfFromAPipeWithLoneCrs() throws Exception {
        byte[] lf = resource("guess/inferno__collapse-perf__single-event.txt");
        String want = run("collapse", "perf", Files.write(dir.resolve("p.txt"), lf).toString());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        InputStream oldIn = System.in;
        try {
            System.setIn(new ByteArrayInputStream(variant(lf, "CR")));
            Main.run(new String[] {"collapse", "perf", "-"}, out, new PrintWriter(new StringWriter(), true));
        } finally {
            System.setIn(oldIn);
        }
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo(want);
    }

    private static byte[] resource(String rel) throws IOException {
        try (InputStream in = LineEndsTest.class.getResourceAsStream("/collapse/" + rel)) {
            byte[] b = in.readAllBytes();
            if (rel.endsWith(".gz")) {
                try (InputStream gz = new GZIPInputStream(new ByteArrayInputStream(b))) {
                    return gz.readAllBytes();
                }
            }
            return b;
        }
    }

    private static String run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringWriter err = new StringWriter();
        int code = Main.run(args, out, new PrintWriter(err, true));
        assertThat(code).as("%s: %s", String.join(" ", args), err).isZero();
        return out.toString(StandardCharsets.UTF_8);
    }
}
