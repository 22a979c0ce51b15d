package org.stackfold.format.callgrind;

import java.io.IOException;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * Reading a callgrind file into the call tree: a generated file shaped like Valgrind's (name
 * compression, "positions: line" with subposition compression, 40 cost lines and up to 5 calls a
 * function) of 20,000 functions in 200 files, about 1.2 million lines (6 MB), in memory. Functions
 * call children further down (function i calls 5i+1..5i+5, and one function elsewhere now and then).
 * Run: {@code scripts/jmh CallgrindReadBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class CallgrindReadBenchmark {
    private byte[] data;

    @Setup
    public void generate() {
        SplittableRandom r = new SplittableRandom(7);
        int functions = 20_000;
        long[] self = new long[functions];
        long[] inclusive = new long[functions];
        for (int i = 0; i < functions; i++) {
            self[i] = 40 + r.nextInt(4000);
        }
        for (int i = functions - 1; i >= 0; i--) {
            inclusive[i] = self[i];
            for (int c = 5 * i + 1; c <= 5 * i + 5 && c < functions; c++) {
                inclusive[i] += inclusive[c];
            }
        }
        StringBuilder b = new StringBuilder(16 << 20)
                .append("# callgrind format\nversion: 1\ncreator: bench\npositions: line\nevents: Ir\n\n");
        boolean[] named = new boolean[functions];
        boolean[] fileNamed = new boolean[200];
        for (int i = 0; i < functions; i++) {
            int file = i % 200;
            b.append("fl=(").append(file + 1).append(')');
            if (!fileNamed[file]) {
                fileNamed[file] = true;
                b.append(" /src/module").append(file).append(".c");
            }
            b.append("\nfn=").append(name(i, named)).append('\n');
            long left = self[i];
            int line = 10 + r.nextInt(1000);
            b.append(line).append(' ').append(left / 40).append('\n');
            for (int k = 1; k < 40; k++) {
                b.append('+').append(1 + r.nextInt(3)).append(' ').append(k == 39 ? left - 39 * (left / 40) : left / 40)
                        .append('\n');
            }
            for (int c = 5 * i + 1; c <= 5 * i + 5 && c < functions; c++) {
                b.append("cfn=").append(name(c, named)).append("\ncalls=").append(1 + r.nextInt(50)).append(" +1\n* ")
                        .append(inclusive[c]).append('\n');
            }
            b.append('\n');
        }
        data = b.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    private static String name(int f, boolean[] named) {
        if (named[f]) {
            return "(" + (f + 1) + ")";
        }
        named[f] = true;
        return "(" + (f + 1) + ") function_" + f;
    }

    @Benchmark
    public Profile read() throws IOException {
        try (Input in = Input.ofBytes("bench.callgrind", data)) {
            return new CallgrindFormat().read(in, FormatOptions.none());
        }
    }

    /**
     * Prints the input's size and one read's CPU time (no JMH), for a quick look; with a file name,
     * writes the generated input there instead (to time other readers on it).
     */
    public static void main(String[] args) throws IOException {
        CallgrindReadBenchmark b = new CallgrindReadBenchmark();
        b.generate();
        if (args.length > 0) {
            java.nio.file.Files.write(java.nio.file.Path.of(args[0]), b.data);
            return;
        }
        for (int i = 0; i < 5; i++) {
            long t0 = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
            Profile p = b.read();
            long t1 = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
            System.out.printf("%d bytes, %d tree nodes, total %d: %.1f ms CPU%n", b.data.length, p.tree().size(),
                    p.tree().totalSamples(), (t1 - t0) / 1e6);
        }
    }
}
