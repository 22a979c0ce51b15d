package org.stackfold.format;

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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.stackfold.format.pprof.PprofFormat;
import org.stackfold.format.speedscope.SpeedscopeFormat;
import org.stackfold.io.Input;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/**
 * Writing and reading speedscope and pprof for a profile of {@code stacks} distinct stacks (mean
 * depth ~20, 2,000 distinct names). Run: {@code mvn -Pjmh test-compile} then
 * {@code java -cp target/test-classes:target/classes:$(cat target/jmh.classpath) org.openjdk.jmh.Main ConvertFormatsBench}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class ConvertFormatsBench {
    @Param("100000")
    int stacks;

    Profile profile;
    byte[] pprof;
    byte[] speedscope;
    final PprofFormat pprofFormat = new PprofFormat();
    final SpeedscopeFormat speedscopeFormat = new SpeedscopeFormat();

    @Setup
    public void setup() throws IOException {
        profile = generated(stacks);
        pprof = write(pprofFormat);
        speedscope = write(speedscopeFormat);
    }

    /** The benchmarks' profile (also OtlpBench's): {@code stacks} distinct stacks, mean depth ~20, 2,000 names. */
    public static Profile generated(int stacks) {
        SplittableRandom r = new SplittableRandom(42);
        Profile profile = new Profile();
        FrameTable ft = profile.frames();
        int[] names = new int[2000];
        for (int i = 0; i < names.length; i++) {
            names[i] = ft.plain("org.example.pkg" + (i % 37) + ".Class" + i + ".method" + (i % 13));
        }
        int[] stack = new int[64];
        for (int s = 0; s < stacks; s++) {
            int depth = 5 + r.nextInt(31);
            for (int d = 0; d < depth; d++) {
                // Shared prefixes, as real profiles have: low depths pick from few names.
                stack[d] = names[r.nextInt(Math.min(names.length, 4 + d * d * 3))];
            }
            profile.addStack(stack, depth, 1 + r.nextInt(100));
        }
        return profile;
    }

    private byte[] write(ProfileFormat f) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        f.write(profile, out, FormatOptions.none());
        return out.toByteArray();
    }

    @Benchmark
    public byte[] pprofWrite() throws IOException {
        return write(pprofFormat);
    }

    @Benchmark
    public Profile pprofRead() throws IOException {
        try (Input in = Input.ofBytes("bench.pb.gz", pprof)) {
            return pprofFormat.read(in, FormatOptions.none());
        }
    }

    @Benchmark
    public byte[] speedscopeWrite() throws IOException {
        return write(speedscopeFormat);
    }

    @Benchmark
    public Profile speedscopeRead() throws IOException {
        try (Input in = Input.ofBytes("bench.speedscope.json", speedscope)) {
            return speedscopeFormat.read(in, FormatOptions.none());
        }
    }
}
