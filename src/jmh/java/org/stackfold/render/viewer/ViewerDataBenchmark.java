package org.stackfold.render.viewer;

import java.io.IOException;
import java.io.OutputStream;
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
 * The viewer's Java side: encoding a parsed profile (preorder walk, heaviest-first sort, varints,
 * deflate) and writing the page. Generated stacks by default; {@code -p file=/tmp/folded-200k.txt}
 * measures the 200k-stack benchmark input of the README.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgs = {"-Xmx2g", "--enable-native-access=ALL-UNNAMED"})
@Warmup(iterations = 2)
@Measurement(iterations = 5)
public class ViewerDataBenchmark {
    @Param({"200000"})
    int lines;

    @Param({""})
    String file;

    private Profile profile;
    private ViewerData data;

    @Setup
    public void setup() throws IOException {
        Input in = file.isEmpty() ? Input.ofBytes("generated", generate(lines)) : Input.open(file);
        profile = new FoldedReader(FoldedReader.Mode.AUTO, true, 2, w -> { }).read(in).profile();
        data = ViewerData.of(profile);
    }

    /** Deep stacks sharing prefixes, heavy-tailed counts: the shape of gen_viewer_folded.py's output. */
    static byte[] generate(int lines) {
        java.util.SplittableRandom r = new java.util.SplittableRandom(7);
        StringBuilder sb = new StringBuilder(lines * 160);
        for (int i = 0; i < lines; i++) {
            int depth = 5 + r.nextInt(40);
            int id = 1;
            sb.append("java/lang/Thread.run");
            for (int d = 1; d < depth; d++) {
                id = id * 31 + r.nextInt(d < 4 ? 3 : 8);
                sb.append(";com/acme/Pkg").append(Math.floorMod(id, 997)).append(".call").append(d);
            }
            sb.append(' ').append(1 + (int) (200 * Math.pow(r.nextDouble(), 4))).append('\n');
        }
        return sb.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Benchmark
    public int encode() throws IOException {
        return ViewerData.of(profile).deflated().length;
    }

    @Benchmark
    public long writePage() throws IOException {
        long[] n = {0};
        ViewerPage.write(data, new ViewerPage.Options("bench", java.util.List.of("bench")), new OutputStream() {
            @Override
            public void write(int b) {
                n[0]++;
            }

            @Override
            public void write(byte[] b, int off, int len) {
                n[0] += len;
            }
        });
        return n[0];
    }
}
