package org.stackfold.format.v8log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.Formats;
import org.stackfold.format.SpeedscopeOracle;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * A script recorded here with {@code node --prof}: the raw isolate log and the JSON of
 * {@code node --prof-process --preprocess} read to the same stacks, the hot function on top, and the
 * weights adding up to the last tick's time.
 */
class V8ProfRecordingTest {
    @TempDir
    Path dir;

    private static String node() {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, "node"))) {
                return Path.of(d, "node").toString();
            }
        }
        return null;
    }

    private void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(List.of(command)).directory(dir.toFile())
                .redirectOutput(dir.resolve("stdout.txt").toFile()).redirectError(dir.resolve("stderr.txt").toFile()).start();
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).as("finished: %s", String.join(" ", command)).isTrue();
        assertThat(p.exitValue()).as(Files.readString(dir.resolve("stderr.txt"))).isZero();
    }

    @Test
    void isolateLogAndPreprocessedJsonReadTheSame() throws Exception {
        String node = node();
        assumeTrue(node != null, "node is not installed (apt package nodejs)");
        Files.writeString(dir.resolve("hot.js"), """
                function leaf(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i) * Math.sin(i); return s; }
                function middle(n) { return leaf(n) + leaf(n / 2); }
                function outer() { let t = 0; const end = Date.now() + 700; while (Date.now() < end) t += middle(20000); return t; }
                console.log(outer() > 0);
                """);
        run(node, "--prof", "hot.js");
        Path log;
        try (Stream<Path> s = Files.list(dir)) {
            log = s.filter(p -> p.getFileName().toString().startsWith("isolate-")).findFirst().orElseThrow();
        }
        Profile fromLog;
        try (Input in = Input.open(log.toString())) {
            assertThat(Formats.forInput(in, null).name()).isEqualTo("v8log");
            fromLog = Formats.forInput(in, null).read(in, FormatOptions.none());
        }
        run(node, "--prof-process", "--preprocess", log.toString());
        Path json = dir.resolve("hot.v8log.json");
        Files.move(dir.resolve("stdout.txt"), json);
        Profile fromJson;
        try (Input in = Input.open(json.toString())) {
            fromJson = Formats.forInput(in, null).read(in, FormatOptions.none());
        }
        Map<String, Long> stacks = SpeedscopeOracle.stacks(fromJson);
        assertThat(SpeedscopeOracle.stacks(fromLog)).isEqualTo(stacks);
        long leaf = stacks.entrySet().stream().filter(e -> e.getKey().contains("leaf")).mapToLong(Map.Entry::getValue).sum();
        long total = stacks.values().stream().mapToLong(Long::longValue).sum();
        assertThat(leaf).as("time in leaf of %d µs", total).isGreaterThan(total / 4);
        assertThat(stacks.keySet()).anyMatch(s -> s.contains("outer;middle;leaf"));
    }
}
