package org.stackfold.collapse;

import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.TimeUnit;
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
 * Collapse throughput on the corpus inputs held in memory (no disk, no output writing): FlameGraph's
 * 1.4 MB example-dtrace-stacks.txt (inferno's compare.sh input) and inferno's sample.txt.
 * Run: {@code scripts/jmh CollapseBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class CollapseBenchmark {
    @Param({"dtrace/fg__example-dtrace-stacks.txt.gz", "sample/inferno__collapse-sample__sample.txt"})
    public String input;

    private byte[] data;
    private Collapser collapser;

    @Setup
    public void load() throws IOException {
        try (InputStream raw = CollapseBenchmark.class.getResourceAsStream("/collapse/" + input)) {
            InputStream in = input.endsWith(".gz") ? new GZIPInputStream(raw) : raw;
            data = in.readAllBytes();
        }
        collapser = Collapsers.byName(input.substring(0, input.indexOf('/')));
    }

    @Benchmark
    public Profile collapse() throws IOException {
        try (Input in = Input.ofBytes("bench", data)) {
            return collapser.collapse(in, FormatOptions.none(), w -> { });
        }
    }
}
