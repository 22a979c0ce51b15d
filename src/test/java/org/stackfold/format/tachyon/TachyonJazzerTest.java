package org.stackfold.format.tachyon;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A bounded coverage-guided fuzzing run of the reader on every test run (CI included): Jazzer as a
 * child JVM, seeded with the committed inputs, for {@code -Dtachyon.fuzz.seconds} (default 40).
 * A crash fails the test and leaves its input in target/tachyon-fuzz/; copy it into
 * src/test/resources/org/stackfold/format/tachyon/TachyonFuzzTestInputs/readAnything/ so that
 * {@link TachyonFuzzTest} replays it from then on. A long run: {@code -Dtachyon.fuzz.seconds=3600}.
 */
class TachyonJazzerTest {
    @Test
    void boundedFuzzingRun() throws IOException, InterruptedException {
        long seconds = Long.getLong("tachyon.fuzz.seconds", 40);
        Path work = Path.of("target", "tachyon-fuzz").toAbsolutePath();
        Path corpus = work.resolve("corpus");
        Files.createDirectories(corpus);
        Path seeds = Path.of("src/test/resources/org/stackfold/format/tachyon/TachyonFuzzTestInputs/readAnything")
                .toAbsolutePath();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-Xmx1g",
                "-cp", System.getProperty("java.class.path"),
                "com.code_intelligence.jazzer.Jazzer",
                "--target_class=" + TachyonFuzzTarget.class.getName(),
                "--instrumentation_includes=org.stackfold.**",
                "--keep_going=1",
                "-max_total_time=" + seconds,
                "-rss_limit_mb=4096", // the JVM (1 GiB heap) with instrumented code passes 2 GiB of RSS under load
                "-timeout=10",
                "-seed=1",
                "-artifact_prefix=" + work + File.separator,
                corpus.toString(), seeds.toString()));
        Path log = work.resolve("jazzer.log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(seconds + 120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("Jazzer did not finish; see " + log);
        }
        String out = Files.readString(log);
        assertThat(out).as("Jazzer ran (see %s)", log).contains("Done ");
        assertThat(p.exitValue()).as("Jazzer found a crash; input and log in %s", work).isZero();
    }
}
