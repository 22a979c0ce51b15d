package org.stackfold.collapse;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.stackfold.collapse.perf.PerfCollapser;
import org.stackfold.perf.PerfOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * {@code stackfold collapse perf} on a large {@code perf script} file, one thread and all cores.
 *
 * <p>Input: the file named by {@code -Dstackfold.bench.perf=...} (default {@code /tmp/perf-400mb.txt},
 * made by {@code python3 ../shared/bench/gen_perf_script.py --size-mb 400 --seed 42 --out
 * /tmp/perf-400mb.txt}); where it does not exist, the vert.x test input of the test corpus repeated to
 * about 100 MB. Run:
 * <pre>
 *   JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 mvn -B -q -o -Pjmh -DskipTests test-compile
 *   /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -Xmx1g -cp target/classes:target/test-classes:$(cat target/jmh.classpath) \
 *       org.openjdk.jmh.Main PerfCollapseBench
 * </pre>
 * The launcher runs {@code collapse perf} with C1 alone: add {@code -jvmArgsAppend -XX:TieredStopAtLevel=1}
 * to measure that code ({@code scripts/jmh PerfCollapseBench -p threads=1 -jvmArgsAppend -XX:TieredStopAtLevel=1}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
@Fork(value = 1, jvmArgs = {"-Xmx1g", "-XX:+UseParallelGC", "--enable-native-access=ALL-UNNAMED"})
public class PerfCollapseBench {
    @Param({"1", "0"})
    public int threads; // 0 = all available processors

    private Path file;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        Path given = Path.of(System.getProperty("stackfold.bench.perf", "/tmp/perf-400mb.txt"));
        if (Files.isRegularFile(given)) {
            file = given;
            return;
        }
        file = Files.createTempFile("stackfold-perf-bench", ".txt");
        file.toFile().deleteOnExit();
        byte[] one;
        try (InputStream in = PerfCollapseBench.class.getResourceAsStream(
                "/collapse/perf/inputs/fg__test__perf-vertx-stacks-01.txt")) {
            one = in.readAllBytes();
        }
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long n = 0; n < (100L << 20); n += one.length + 1) {
                out.write(one);
                out.write('\n');
            }
        }
    }

    @Benchmark
    public long collapse() throws IOException {
        int t = threads == 0 ? Runtime.getRuntime().availableProcessors() : threads;
        // Ranges of 8 MiB at least, so that threads=0 splits the file (the default gives a file
        // under 1 GiB one range: PerfOptions.DEFAULT_CHUNK_BYTES).
        PerfOptions opt = new PerfOptions(false, false, false, false, false, null, java.util.List.of(), false,
                false, false, false, false, t, 8L << 20, false);
        try (Input in = Input.open(file.toString())) {
            Profile p = new PerfCollapser().collapse(in, opt, w -> { });
            return p.tree().size();
        }
    }
}
