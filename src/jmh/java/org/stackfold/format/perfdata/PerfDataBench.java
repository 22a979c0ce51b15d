package org.stackfold.format.perfdata;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.stackfold.perf.PerfOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * perf.data straight to a call tree ({@code stackfold collapse perf perf.data}): record parsing,
 * time ordering, address spaces, the callchain table and the per-address symbol caches.
 *
 * <p>Input: the file named by {@code -Dstackfold.bench.perfdata=...} (default
 * {@code /tmp/pdbench/system.data}, which {@code scripts/perfdata-bench record} makes: 100 MB
 * recorded system-wide under a C, a Python and a Java load); where it does not exist, the test's
 * recording ({@code burn.perf.data}). Run:
 * <pre>
 *   scripts/jmh PerfDataBench -jvmArgsAppend -Dstackfold.bench.perfdata=/tmp/pdbench/single.data
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
@Fork(value = 1, jvmArgs = {"-Xmx1g", "-XX:+UseParallelGC", "--enable-native-access=ALL-UNNAMED"})
public class PerfDataBench {
    private Path file;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        Path given = Path.of(System.getProperty("stackfold.bench.perfdata", "/tmp/pdbench/system.data"));
        if (Files.isRegularFile(given)) {
            file = given;
            return;
        }
        file = Files.createTempFile("stackfold-perfdata-bench", ".data");
        file.toFile().deleteOnExit();
        try (var in = PerfDataBench.class.getResourceAsStream("/perfdata/burn.perf.data")) {
            Files.write(file, in.readAllBytes());
        }
    }

    @Benchmark
    public Profile collapse() throws IOException {
        try (Input in = Input.open(file.toString())) {
            return PerfData.collapse(in, PerfOptions.defaults(), w -> { });
        }
    }
}
