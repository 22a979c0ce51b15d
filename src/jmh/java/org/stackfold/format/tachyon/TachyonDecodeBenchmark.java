package org.stackfold.format.tachyon;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Decoding speed of a large Tachyon file (about 16.4 million samples, 75 MB, made by
 * {@link TachyonBenchInput} from the real fixtures with our writer; kept in target/tachyon-bench/).
 * Samples per second = 16,414,594 / (seconds per operation). Run:
 * <pre>
 * mvn -Pjmh -DskipTests test-compile
 * java --enable-native-access=ALL-UNNAMED -cp target/test-classes:target/classes:$(cat target/jmh.classpath) \
 *     org.openjdk.jmh.Main TachyonDecodeBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx2g", "-XX:+UseParallelGC"})
public class TachyonDecodeBenchmark {
    private Arena arena;
    private MemorySegment file;

    @Setup(Level.Trial)
    public void setup() throws IOException {
        Path p = TachyonBenchInput.ensure(Path.of("target", "tachyon-bench", "bench.bin"),
                TachyonBenchInput.DEFAULT_SAMPLES);
        arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
            file = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    /** Open + replay into the call tree (CPython naming, per-thread stacks): the {@code convert} path. */
    @Benchmark
    public long decodeIntoCallTree() {
        TachyonFile f = TachyonFile.open("bench.bin", file);
        TreeBuilder b = TreeBuilder.of(f, TachyonOptions.defaults());
        new TachyonReplay(f).run(b);
        return b.tree().size();
    }

    /** Open + replay with a listener that does nothing: the decoder alone. */
    @Benchmark
    public long replayOnly() {
        TachyonFile f = TachyonFile.open("bench.bin", file);
        TachyonReplay r = new TachyonReplay(f);
        r.run((t, s, ts, n) -> { });
        return r.samples();
    }

    /** Everything {@code stackfold convert X.bin -o X.folded} does after start-up. */
    @Benchmark
    public void convertToFolded() throws IOException {
        TachyonFolded.write(TachyonFile.open("bench.bin", file), TachyonOptions.defaults(), OutputStream.nullOutputStream());
    }
}
