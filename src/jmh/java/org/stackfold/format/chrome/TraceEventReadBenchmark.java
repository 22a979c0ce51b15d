package org.stackfold.format.chrome;

import java.io.ByteArrayOutputStream;
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
import org.stackfold.format.firefox.FirefoxFormat;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * Reading a Chrome trace's CPU profiles: a generated Performance-panel trace of two threads, each a
 * Profile event and 200 ProfileChunks (10,000 nodes and 500,000 samples a thread), between 300,000
 * complete events with {@code args.data} the reader skips (about 45 MB of JSON, in memory); and the
 * same profile written as a Firefox processed profile and read back.
 * Run: {@code scripts/jmh TraceEventReadBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class TraceEventReadBenchmark {
    private byte[] trace;
    private byte[] firefox;

    @Setup
    public void generate() throws IOException {
        SplittableRandom r = new SplittableRandom(7);
        StringBuilder b = new StringBuilder(48 << 20).append("{\"metadata\":{\"source\":\"DevTools\"},\"traceEvents\":[");
        b.append("{\"name\":\"thread_name\",\"cat\":\"__metadata\",\"ph\":\"M\",\"pid\":1,\"tid\":11,\"ts\":0,\"args\":{\"name\":\"CrRendererMain\"}},");
        b.append("{\"name\":\"thread_name\",\"cat\":\"__metadata\",\"ph\":\"M\",\"pid\":1,\"tid\":12,\"ts\":0,\"args\":{\"name\":\"DedicatedWorker thread\"}}");
        int nodesPerThread = 10_000;
        int chunks = 200;
        int samplesPerChunk = 2_500;
        for (int tid = 11; tid <= 12; tid++) {
            b.append(",{\"name\":\"Profile\",\"ph\":\"P\",\"cat\":\"disabled-by-default-v8.cpu_profiler\",\"pid\":1,\"tid\":")
                    .append(tid).append(",\"ts\":1,\"id\":\"0x").append(tid).append("\",\"args\":{\"data\":{\"startTime\":1}}}");
        }
        long ts = 2;
        int[] made = new int[2];
        for (int c = 0; c < chunks; c++) {
            for (int x = 0; x < 1_500; x++) {
                b.append(",{\"args\":{\"data\":{\"frame\":\"F").append(x % 40).append("\",\"url\":\"https://example.com/\"}},")
                        .append("\"cat\":\"devtools.timeline\",\"dur\":").append(r.nextInt(500)).append(",\"name\":\"RunTask\",")
                        .append("\"ph\":\"X\",\"pid\":1,\"tdur\":3,\"tid\":11,\"ts\":").append(ts++).append("}");
            }
            for (int t = 0; t < 2; t++) {
                int tid = 11 + t;
                b.append(",{\"name\":\"ProfileChunk\",\"ph\":\"P\",\"cat\":\"disabled-by-default-v8.cpu_profiler\",\"pid\":1,\"tid\":")
                        .append(tid).append(",\"ts\":").append(ts++).append(",\"id\":\"0x").append(tid)
                        .append("\",\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[");
                int upTo = (c + 1) * nodesPerThread / chunks;
                for (int id = made[t] + 1; id <= upTo; id++) {
                    b.append(id == made[t] + 1 ? "" : ",").append("{\"callFrame\":{\"codeType\":\"JS\",\"functionName\":\"")
                            .append(id == 1 ? "(root)" : "fn" + id).append("\",\"scriptId\":").append(id % 9)
                            .append(",\"url\":\"https://example.com/m").append(id % 50).append(".js\",\"lineNumber\":")
                            .append(id % 400).append(",\"columnNumber\":").append(id % 30).append("},\"id\":").append(id)
                            .append(id == 1 ? "" : ",\"parent\":" + Math.max(1, id - 1 - r.nextInt(Math.min(id - 1, 320))))
                            .append("}");
                }
                made[t] = upTo;
                b.append("],\"samples\":[");
                for (int i = 0; i < samplesPerChunk; i++) {
                    b.append(i == 0 ? "" : ",").append(2 + r.nextInt(upTo - 1));
                }
                b.append("]},\"timeDeltas\":[");
                for (int i = 0; i < samplesPerChunk; i++) {
                    b.append(i == 0 ? "" : ",").append(100 + r.nextInt(100));
                }
                b.append("]}}}");
            }
        }
        trace = b.append("]}").toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new FirefoxFormat().write(read(), out, FormatOptions.none());
        firefox = out.toByteArray();
    }

    @Benchmark
    public Profile read() throws IOException {
        try (Input in = Input.ofBytes("bench.json", trace)) {
            return new ChromeTraceFormat().read(in, FormatOptions.none());
        }
    }

    @Benchmark
    public Profile readFirefox() throws IOException {
        try (Input in = Input.ofBytes("bench.firefox.json", firefox)) {
            return new FirefoxFormat().read(in, FormatOptions.none());
        }
    }
}
