package org.stackfold.format.firefox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stackfold.cli.CliRun.run;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.stackfold.cli.CliRun;
import org.stackfold.collapse.InputFormats;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;

/** Chrome traces and Firefox profiles through the CLI: convert, info, fold, flamegraph, view; damaged files. */
class BrowserProfilesCliTest {
    @TempDir
    Path dir;

    private static Path res(String rel) throws Exception {
        return Path.of(BrowserProfilesCliTest.class.getResource("/formats/" + rel).toURI());
    }

    private static final String TRACE = "chrome-trace/speedscope__Chrome-66-worker.json.gz";
    private static final String GECKO = "firefox/speedscope__Firefox-63-simple-firefox.json.gz";
    private static final String CPYTHON = "firefox/cpython-gecko.json";

    @Test
    void everyCommandReadsATraceAndAFirefoxProfile() throws Exception {
        for (String input : List.of(TRACE, GECKO, CPYTHON)) {
            String in = res(input).toString();
            CliRun info = run("info", in);
            assertThat(info.code()).as(info.err()).isZero();
            assertThat(info.out()).contains(input.startsWith("chrome") ? "chrome-trace" : "firefox");
            CliRun fold = run("fold", in);
            assertThat(fold.code()).as(fold.err()).isZero();
            assertThat(fold.out()).isNotEmpty();
            Path svg = dir.resolve("x.svg");
            assertThat(run("flamegraph", in, "-o", svg.toString()).code()).isZero();
            assertThat(Files.readString(svg)).startsWith("<?xml");
            Path html = dir.resolve("x.html");
            CliRun view = run("view", in, "-o", html.toString());
            assertThat(view.code()).as(view.err()).isZero();
            assertThat(Files.size(html)).isPositive();
        }
    }

    @Test
    void convertWritesFirefoxByNameOrFlagAndReadsItBack() throws Exception {
        Path out = dir.resolve("worker.firefox.json");
        CliRun r = run("convert", res(TRACE).toString(), "-o", out.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(Files.readString(out)).contains("\"preprocessedProfileVersion\":57").contains("CrRendererMain")
                .contains("DedicatedWorker thread").contains("\"weightType\":\"tracing-ms\"");
        CliRun back = run("fold", out.toString());
        assertThat(back.out()).isEqualTo(run("fold", res(TRACE).toString()).out());

        Path forced = dir.resolve("profile.json");
        CliRun f = run("convert", res(CPYTHON).toString(), "--to", "firefox", "-o", forced.toString());
        assertThat(f.code()).as(f.err()).isZero();
        assertThat(run("fold", forced.toString()).out()).isEqualTo(run("fold", res(CPYTHON).toString()).out());
        // threads survive into speedscope's one-profile-per-thread layout too
        Path ss = dir.resolve("p.speedscope.json");
        assertThat(run("convert", res(CPYTHON).toString(), "-o", ss.toString()).code()).isZero();
        assertThat(Files.readString(ss)).contains("Thread-4242").contains("Thread-4243");
    }

    @Test
    void collapseChromeTracingStillReadsTheDurationEvents() throws Exception {
        CliRun r = run("collapse", "chrome-tracing", res(TRACE).toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).doesNotContain("onLoaded"); // a sampled JS function, not a trace event
        CliRun forced = run("fold", "--from", "chrome-tracing", res(TRACE).toString());
        assertThat(forced.out()).isEqualTo(r.out());
    }

    @Test
    void aDamagedFileIsOneLine() throws Exception {
        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{\"meta\":{\"interval\":1,\"stackwalk\":1},\"threads\":[{\"name\":]}");
        CliRun r = run("fold", bad.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).startsWith("stackfold: " + bad + ": at byte offset 56: firefox: invalid JSON").hasLineCount(1);
    }

    /** Mutated real files: each reads or is one InputException, never another exception or a hang. */
    @ParameterizedTest
    @ValueSource(strings = {TRACE, GECKO, CPYTHON, "chrome-trace/speedscope__Chrome-141-no-arg-data.json.gz"})
    void mutatedFilesReadOrFailWithOneLine(String name) throws Exception {
        byte[] original = Files.readAllBytes(res(name));
        if (name.endsWith(".gz")) {
            try (GZIPInputStream z = new GZIPInputStream(new java.io.ByteArrayInputStream(original))) {
                original = z.readAllBytes();
            }
        }
        SplittableRandom r = new SplittableRandom(name.hashCode());
        for (int round = 0; round < 40; round++) {
            byte[] b = original.clone();
            int kind = r.nextInt(3);
            if (kind == 0) {
                b = java.util.Arrays.copyOf(b, r.nextInt(b.length)); // cut short
            } else {
                for (int k = 0, n = 1 + r.nextInt(8); k < n; k++) {
                    int at = r.nextInt(b.length);
                    b[at] = kind == 1 ? (byte) r.nextInt(256) : (byte) "0123456789[]{},:\"-".charAt(r.nextInt(18));
                }
            }
            try (Input in = Input.ofBytes("m.json", b)) {
                InputFormats.choose(in, null).read(in, FormatOptions.none().withWarnings(w -> { }));
            } catch (InputException e) {
                assertThat(e.getMessage()).doesNotContain("\n");
            }
        }
    }
}
