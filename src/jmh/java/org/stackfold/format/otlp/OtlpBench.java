package org.stackfold.format.otlp;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
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
import org.stackfold.format.FormatOptions;
import org.stackfold.format.pprof.PprofFormat;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * Writing and reading OTLP profiles beside pprof, for the profile {@code ConvertFormatsBench} uses
 * ({@code stacks} distinct stacks, mean depth ~20, 2,000 names). Run: {@code mvn -Pjmh test-compile} then
 * {@code java -cp target/test-classes:target/classes:$(cat target/jmh.classpath) org.openjdk.jmh.Main OtlpBench}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class OtlpBench {
    @Param("100000")
    int stacks;

    Profile profile;
    byte[] otlp;
    byte[] pprof;
    final OtlpFormat otlpFormat = new OtlpFormat();
    final PprofFormat pprofFormat = new PprofFormat();

    @Setup
    public void setup() throws IOException {
        profile = org.stackfold.format.ConvertFormatsBench.generated(stacks);
        otlp = otlpWrite();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        pprofFormat.write(profile, out, FormatOptions.none());
        pprof = out.toByteArray();
    }

    @Benchmark
    public byte[] otlpWrite() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        otlpFormat.write(profile, out, FormatOptions.none());
        return out.toByteArray();
    }

    @Benchmark
    public Profile otlpRead() throws IOException {
        try (Input in = Input.ofBytes("bench.otlp.pb", otlp)) {
            return otlpFormat.read(in, FormatOptions.none());
        }
    }

    @Benchmark
    public Profile pprofRead() throws IOException {
        try (Input in = Input.ofBytes("bench.pb.gz", pprof)) {
            return pprofFormat.read(in, FormatOptions.none());
        }
    }
}
