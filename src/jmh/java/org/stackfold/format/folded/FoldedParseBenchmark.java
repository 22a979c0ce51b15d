package org.stackfold.format.folded;

import java.io.ByteArrayOutputStream;
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
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * The folded parser and writer on a generated profile shaped like collapser output (sorted, deep
 * stacks from a few thousand names). {@code -p file=/tmp/folded-1m.txt} runs on a file instead, read
 * as the command line reads it (by positional reads, {@code io.FileRange}).
 * Run with {@code scripts/jmh FoldedParse}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgs = {"-Xmx2g", "--enable-native-access=ALL-UNNAMED"})
@Warmup(iterations = 3)
@Measurement(iterations = 5)
public class FoldedParseBenchmark {
    @Param({"100000"})
    int lines;

    @Param({""})
    String file;

    @Param({"1", "2"})
    int threads;

    private byte[] data;
    private byte[] sorted;
    private Profile parsed;

    @Setup
    public void setup() throws IOException {
        data = file.isEmpty() ? generate(lines) : null;
        sorted = data == null ? null : sortedByStack(data);
        parsed = parse();
        if (wideNodes() == null) {
            throw new IllegalStateException("the sorted input was read with trees: wideNodes would measure nothing");
        }
    }

    /** The lines in byte order of their stacks, as collapsers write them. */
    static byte[] sortedByStack(byte[] data) {
        String[] lines = new String(data, StandardCharsets.UTF_8).split("\n");
        java.util.Arrays.sort(lines, java.util.Comparator.comparing(l -> l.substring(0, l.lastIndexOf(' '))));
        return (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
    }

    static byte[] generate(int lines) {
        SplittableRandom r = new SplittableRandom(7);
        String[] names = new String[3000];
        for (int i = 0; i < names.length; i++) {
            names[i] = "pkg" + r.nextInt(50) + "::Class" + r.nextInt(200) + "::method" + i;
        }
        StringBuilder sb = new StringBuilder(lines * 300);
        int[] stack = new int[80];
        int depth = 0;
        for (int i = 0; i < lines; i++) {
            // Keep a prefix of the previous stack, then grow a new tail: sorted-collapser shape.
            depth = Math.min(depth, r.nextInt(depth + 1));
            int target = 5 + r.nextInt(50);
            while (depth < target) {
                stack[depth++] = r.nextInt(names.length);
            }
            for (int d = 0; d < depth; d++) {
                if (d > 0) {
                    sb.append(';');
                }
                sb.append(names[stack[d]]);
            }
            sb.append(' ').append(1 + r.nextInt(20)).append('\n');
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    private Profile parse() throws IOException {
        try (Input in = data == null ? Input.open(file) : Input.ofBytes("bench", data)) {
            return new FoldedReader(FoldedReader.Mode.PLAIN, false, threads, w -> { }).read(in).profile();
        }
    }

    @Benchmark
    public Profile read() throws IOException {
        return parse();
    }

    /** What {@code info} reads: the numbers per range, no merged tree. */
    @Benchmark
    public FoldedReader.Summary summarize() throws IOException {
        try (Input in = data == null ? Input.open(file) : Input.ofBytes("bench", data)) {
            return new FoldedReader(FoldedReader.Mode.PLAIN, false, threads, w -> { }).summarize(in);
        }
    }

    /**
     * What {@code flamegraph} reads of byte-sorted stacks: the wide nodes of a 1200-pixel graph, in
     * one pass without a tree ({@link WideScan}; the file must be sorted, as folded-1m is).
     */
    @Benchmark
    public org.stackfold.model.WideNodes wideNodes() throws IOException {
        try (Input in = sorted == null ? Input.open(file) : Input.ofBytes("bench", sorted)) {
            return new FoldedReader(FoldedReader.Mode.PLAIN, false, threads, w -> { })
                    .readWide(in, samples -> 0.1 * Math.max(1, samples) / 1180.0);
        }
    }

    @Benchmark
    public long write() throws IOException {
        CountingStream out = new CountingStream();
        new FoldedWriter(false).write(parsed, out);
        return out.count;
    }

    /** Discards bytes, counting them, so the benchmark measures the writer and not a sink. */
    static final class CountingStream extends OutputStream {
        long count;

        @Override
        public void write(int b) {
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            count += len;
        }
    }
}
