package org.stackfold.collapse.perf;

import java.nio.charset.StandardCharsets;
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

/**
 * Event lines of {@code perf script}, the first line of each sample: the one-pass parse of the usual
 * shape ({@link EventLine#parse}, comms seen before) against the general word-table rules
 * ({@link EventLine#parseAny}). 4096 lines of ten comms in random order, as in a recording of
 * several processes. Run (C1 only, as the launcher runs {@code collapse perf}):
 * <pre>
 *   scripts/jmh EventLineBench -jvmArgsAppend -XX:TieredStopAtLevel=1
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgs = {"-Xmx1g", "-XX:+UseParallelGC"})
public class EventLineBench {
    private static final String[] COMMS = {"java", "noploop", "wrk", "iperf", "func_ab", "cksum", "swapper",
        "emulator", "perf_stacks", "V8 WorkerThread"};

    private byte[] text;
    private int[] starts;
    private int[] ends;
    private final EventLine line = new EventLine();

    @Setup
    public void setUp() {
        SplittableRandom r = new SplittableRandom(42);
        StringBuilder sb = new StringBuilder();
        int n = 4096;
        starts = new int[n];
        ends = new int[n];
        for (int i = 0; i < n; i++) {
            starts[i] = sb.length();
            sb.append(COMMS[r.nextInt(COMMS.length)]).append(' ').append(100000 + r.nextInt(800000)).append('/')
                    .append(100000 + r.nextInt(800000)).append(" [").append(String.format("%03d", r.nextInt(64)))
                    .append("] 1000000.").append(String.format("%06d", i)).append(": ");
            if (r.nextBoolean()) {
                sb.append(1 + r.nextInt(1_000_000)).append(' ');
            }
            sb.append("cycles: ");
            ends[i] = sb.length();
            sb.append('\n');
        }
        text = sb.toString().getBytes(StandardCharsets.US_ASCII);
    }

    @Benchmark
    public long usual() {
        long sum = 0;
        for (int i = 0; i < starts.length; i++) {
            if (line.parse(text, starts[i], ends[i])) {
                sum += line.pidEnd + line.eventEnd;
            }
        }
        return sum;
    }

    @Benchmark
    public long general() {
        long sum = 0;
        for (int i = 0; i < starts.length; i++) {
            if (line.parseAny(text, starts[i], ends[i])) {
                sum += line.pidEnd + line.eventEnd;
            }
        }
        return sum;
    }
}
