package org.stackfold.format.chrome;

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
 * Reading a {@code .cpuprofile} into the call tree: a generated profile of 20,000 nodes (a random
 * tree, fan-out up to 8) and 1,000,000 samples (about 12 MB of JSON), in memory.
 * Run: {@code scripts/jmh CpuProfileReadBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class CpuProfileReadBenchmark {
    private byte[] data;

    @Setup
    public void generate() {
        SplittableRandom r = new SplittableRandom(12);
        int nodes = 20_000;
        int[] parent = new int[nodes + 1];
        StringBuilder b = new StringBuilder(14 << 20).append("{\"nodes\":[");
        for (int id = 1; id <= nodes; id++) {
            parent[id] = id == 1 ? 0 : Math.max(1, id - 1 - r.nextInt(Math.min(id - 1, 8 * 40)));
            b.append(id == 1 ? "" : ",").append("{\"id\":").append(id).append(",\"callFrame\":{\"functionName\":\"")
                    .append(id == 1 ? "(root)" : "fn" + id).append("\",\"scriptId\":\"1\",\"url\":\"file:///app/m")
                    .append(id % 50).append(".js\",\"lineNumber\":").append(id % 400).append(",\"columnNumber\":")
                    .append(id % 30).append("}").append(id == 1 ? "" : ",\"parent\":" + parent[id]).append("}");
        }
        b.append("],\"startTime\":0,\"endTime\":1000000000,\"samples\":[");
        int samples = 1_000_000;
        for (int i = 0; i < samples; i++) {
            b.append(i == 0 ? "" : ",").append(2 + r.nextInt(nodes - 1));
        }
        b.append("],\"timeDeltas\":[");
        for (int i = 0; i < samples; i++) {
            b.append(i == 0 ? "" : ",").append(800 + r.nextInt(400));
        }
        data = b.append("]}").toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    @Benchmark
    public Profile read() throws IOException {
        try (Input in = Input.ofBytes("bench.cpuprofile", data)) {
            return new CpuProfileFormat().read(in, FormatOptions.none());
        }
    }
}
