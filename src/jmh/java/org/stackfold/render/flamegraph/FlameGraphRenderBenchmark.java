package org.stackfold.render.flamegraph;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.stackfold.format.folded.FoldedReader;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * Layout + colours + SVG of a parsed profile (the reader is not measured), written to a byte-counting
 * sink. Generated deep, prefix-sharing stacks by default; {@code -p file=/tmp/folded-1m.txt} renders
 * the 1M-line benchmark file (needs {@code -Xmx2g} for parse + render in one JVM).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgs = {"-Xmx2g", "--enable-native-access=ALL-UNNAMED"})
@Warmup(iterations = 3)
@Measurement(iterations = 5)
public class FlameGraphRenderBenchmark {
    @Param({"200000"})
    int lines;

    @Param({""})
    String file;

    private Profile profile;
    private FoldedReader.Ranges ranges;
    private final FlameGraphOptions options = new FlameGraphOptions();

    @Setup
    public void setup() throws IOException {
        Input in = file.isEmpty() ? Input.ofBytes("generated", generate(lines)) : Input.open(file);
        profile = new FoldedReader(FoldedReader.Mode.AUTO, true, 2, w -> { }).read(in).profile();
        ranges = new FoldedReader(FoldedReader.Mode.AUTO, true, 2, w -> { }).readRanges(in);
    }

    static byte[] generate(int lines) {
        SplittableRandom r = new SplittableRandom(7);
        StringBuilder sb = new StringBuilder(lines * 200);
        for (int i = 0; i < lines; i++) {
            int depth = 5 + r.nextInt(40);
            sb.append("proc").append(r.nextInt(20));
            int id = 1;
            for (int d = 1; d < depth; d++) {
                id = id * 31 + r.nextInt(d < 4 ? 3 : 8);
                sb.append(";pkg.Class").append(Math.floorMod(id, 997)).append("::method").append(d);
            }
            sb.append(' ').append(1 + r.nextInt(100)).append('\n');
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    @Benchmark
    public long render() throws IOException {
        long[] n = {0};
        FlameGraph.render(profile, options, sink(n), w -> { });
        return n[0];
    }

    /** What the command draws one folded file with: the reader's range trees, not appended. */
    @Benchmark
    public long renderRanges() throws IOException {
        long[] n = {0};
        FlameGraph.renderRanges(ranges.frames(), ranges.trees(), ranges.frameMaps(), options, sink(n), w -> { });
        return n[0];
    }

    private static OutputStream sink(long[] n) {
        return new OutputStream() {
            @Override
            public void write(int b) {
                n[0]++;
            }

            @Override
            public void write(byte[] b, int off, int len) {
                n[0] += len;
            }
        };
    }
}
