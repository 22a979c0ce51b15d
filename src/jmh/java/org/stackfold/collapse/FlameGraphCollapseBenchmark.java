package org.stackfold.collapse;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
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
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * Throughput of FlameGraph's other collapsers that see big inputs (thread dumps and debugger
 * backtraces taken in a loop, pprof text, scheduler traces, Chrome traces), on about 16 MB made in
 * memory from each format's golden input: text formats repeated whole, go's sample lines repeated,
 * the Chrome trace's events repeated on new thread ids (so they do not nest into each other).
 * Run: {@code scripts/jmh FlameGraphCollapseBenchmark}; report MB/s = 16 / (ms/op) * 1000.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class FlameGraphCollapseBenchmark {
    static final int SIZE = 16 << 20;

    @Param({"jstack/jstack-jdk25.txt", "gdb/gdb-pmp.txt", "go/pprof__java.cpu.string",
            "perf-sched/sched.txt", "chrome-tracing/speedscope__Chrome-116-Trace.json.gz"})
    public String input;

    private byte[] data;
    private Collapser collapser;

    @Setup
    public void load() throws IOException {
        byte[] golden;
        try (InputStream raw = FlameGraphCollapseBenchmark.class.getResourceAsStream("/collapse/" + input)) {
            InputStream in = input.endsWith(".gz") ? new GZIPInputStream(raw) : raw;
            golden = in.readAllBytes();
        }
        String format = input.substring(0, input.indexOf('/'));
        collapser = Collapsers.byName(format);
        data = switch (format) {
            case "go" -> repeatSamples(new String(golden, StandardCharsets.ISO_8859_1));
            case "chrome-tracing" -> repeatEvents(new String(golden, StandardCharsets.UTF_8));
            default -> repeat(golden);
        };
    }

    private static byte[] repeat(byte[] golden) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(SIZE + golden.length);
        while (out.size() < SIZE) {
            out.writeBytes(golden);
            out.write('\n');
        }
        return out.toByteArray();
    }

    /** The pprof text with its sample lines repeated until the whole is about SIZE bytes. */
    private static byte[] repeatSamples(String text) {
        int samplesEnd = text.indexOf("\nLocations");
        int first = text.indexOf('\n', text.indexOf("Samples:") + 1) + 1; // past the sample-type line
        first = text.indexOf('\n', first) + 1;
        String head = text.substring(0, first);
        String samples = text.substring(first, samplesEnd + 1);
        String tail = text.substring(samplesEnd + 1);
        StringBuilder b = new StringBuilder(SIZE + samples.length()).append(head);
        while (b.length() < SIZE - tail.length()) {
            b.append(samples);
        }
        return b.append(tail).toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /** The trace's events repeated, each copy on thread ids shifted by a million. */
    private static byte[] repeatEvents(String json) {
        String events = json.substring(json.indexOf('[') + 1, json.lastIndexOf(']'));
        Pattern tid = Pattern.compile("\"tid\":\\s*(\\d+)");
        StringBuilder b = new StringBuilder(SIZE + events.length()).append("{\"traceEvents\":[");
        for (int copy = 0; b.length() < SIZE; copy++) {
            if (copy > 0) {
                b.append(',');
            }
            long shift = copy * 1_000_000L;
            Matcher m = tid.matcher(events);
            while (m.find()) {
                m.appendReplacement(b, "\"tid\":" + (Long.parseLong(m.group(1)) + shift));
            }
            m.appendTail(b);
        }
        return b.append("]}").toString().getBytes(StandardCharsets.UTF_8);
    }

    @Benchmark
    public Profile collapse() throws IOException {
        try (Input in = Input.ofBytes("bench", data)) {
            return collapser.collapse(in, FormatOptions.none(), w -> { });
        }
    }
}
