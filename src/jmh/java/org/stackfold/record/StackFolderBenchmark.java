package org.stackfold.record;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.stackfold.symbolize.Symbolizer;
import org.stackfold.symbolize.SymbolizerOptions;

/**
 * The end of a recording: drained counts to a symbolized profile with its timeline. A minute at 99
 * Hz on 2 CPUs (240 drains of 50 samples) over 2,000 distinct user stacks of this JVM (addresses in
 * its executable mappings) and 500 kernel stacks (addresses in kernel text; needs /proc/kallsyms
 * readable, i.e. root). The symbolizer's caches are warm after the first iteration, as they are for
 * the second of two stacks in one recording. Run with {@code scripts/jmh StackFolder}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgs = {"-Xmx1g", "--enable-native-access=ALL-UNNAMED"})
@Warmup(iterations = 3)
@Measurement(iterations = 5)
public class StackFolderBenchmark {
    private Symbolizer symbolizer;
    private ProcessSnapshots processes;
    private Drained drained;
    private final RecordOptions options = RecordOptions.defaults();

    @Setup
    public void setup() throws IOException {
        symbolizer = new Symbolizer(new SymbolizerOptions(true, false, false, false));
        int pid = (int) ProcessHandle.current().pid();
        processes = new ProcessSnapshots(symbolizer);
        processes.newProcess(pid);
        processes.finish();
        SplittableRandom r = new SplittableRandom(11);
        long[][] user = stacks(r, 2000, userText(), 20);
        long[][] kernel = stacks(r, 500, kernelText(), 12);
        drained = new Drained();
        for (int w = 0; w < 240; w++) {
            Map<SampleKey, Long> counts = new HashMap<>();
            for (int s = 0; s < 50; s++) {
                int u = drained.intern(user[r.nextInt(user.length)]);
                int k = r.nextInt(3) == 0 ? drained.intern(kernel[r.nextInt(kernel.length)]) : -14;
                counts.merge(new SampleKey(pid, 0, k, u, "java", 0), 1L, Long::sum);
            }
            drained.add(new Drained.Window(w * 250_000L, (w + 1) * 250_000L, counts));
        }
    }

    @TearDown
    public void tearDown() {
        symbolizer.close();
    }

    private static long[][] stacks(SplittableRandom r, int n, long[] ranges, int depth) {
        long[][] out = new long[n][];
        for (int i = 0; i < n; i++) {
            out[i] = new long[1 + r.nextInt(depth)];
            for (int j = 0; j < out[i].length; j++) {
                int m = r.nextInt(ranges.length / 2);
                out[i][j] = ranges[2 * m] + r.nextLong(ranges[2 * m + 1] - ranges[2 * m]);
            }
        }
        return out;
    }

    /** Start and end of each executable mapping of this process. */
    private static long[] userText() throws IOException {
        List<Long> ranges = new ArrayList<>();
        for (String line : ProcFiles.read(Path.of("/proc/self/maps")).split("\n")) {
            String[] f = line.split("\\s+");
            if (f.length > 5 && f[1].contains("x") && f[5].startsWith("/")) {
                String[] se = f[0].split("-");
                ranges.add(Long.parseUnsignedLong(se[0], 16));
                ranges.add(Long.parseUnsignedLong(se[1], 16));
            }
        }
        return ranges.stream().mapToLong(Long::longValue).toArray();
    }

    /** _stext to _etext from /proc/kallsyms. */
    private static long[] kernelText() throws IOException {
        long start = 0, end = 0;
        for (String line : Files.readAllLines(Path.of("/proc/kallsyms"))) {
            if (line.endsWith(" _stext")) {
                start = Long.parseUnsignedLong(line.substring(0, 16), 16);
            } else if (line.endsWith(" _etext")) {
                end = Long.parseUnsignedLong(line.substring(0, 16), 16);
            }
        }
        if (start == 0 || end <= start) {
            throw new IllegalStateException("/proc/kallsyms shows no kernel text (run as root)");
        }
        return new long[] {start, end};
    }

    @Benchmark
    public StackFolder.Folded fold() {
        return new StackFolder(options, symbolizer, processes, drained, 127).fold();
    }
}
