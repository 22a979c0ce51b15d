package org.stackfold.unwind;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Building one file's unwind table from its .eh_frame, no cache ({@code UnwindTables.build}):
 * {@code cold} is one build in a fresh JVM (what a one-shot {@code record} pays for the first
 * file), {@code warm} the time once the parser is compiled. Run:
 * <pre>
 *   scripts/jmh UnwindTableBench
 * </pre>
 */
@State(Scope.Benchmark)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgs = {"-Xmx1g", "--enable-native-access=ALL-UNNAMED"})
public class UnwindTableBench {
    @Param({"/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/jvm/temurin-25-jdk-amd64/lib/server/libjvm.so"})
    public String file;

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @Warmup(iterations = 3, time = 2)
    @Measurement(iterations = 5, time = 2)
    public UnwindTable warm() throws IOException {
        return UnwindTables.build(Path.of(file));
    }

    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Warmup(iterations = 0)
    @Measurement(iterations = 1)
    @Fork(value = 5, jvmArgs = {"-Xmx1g", "--enable-native-access=ALL-UNNAMED"})
    public UnwindTable cold() throws IOException {
        return UnwindTables.build(Path.of(file));
    }
}
