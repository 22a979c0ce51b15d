package org.stackfold.symbolize;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * 100,000 addresses inside the functions of one binary (default libc, whose DWARF comes from the
 * libc6-dbg debug file), symbolized with inlined frames, files and lines: {@code warm} with the
 * file's indexes cached (a second profile of the same binary), {@code cold} including reading the
 * ELF and DWARF indexes; {@code addr2line} prints addr2line's output for each. Compare with
 * {@code /usr/bin/time addr2line -a -f -i -C -p -e FILE < addresses} (the same 100,000 addresses:
 * {@code -Dstackfold.bench.dump=FILE} writes them). Run:
 * <pre>
 *   scripts/jmh SymbolizeBench
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 5)
@Fork(value = 1, jvmArgs = {"-Xmx1g", "-XX:+UseParallelGC", "--enable-native-access=ALL-UNNAMED"})
public class SymbolizeBench {
    @Param({"/lib/x86_64-linux-gnu/libc.so.6"})
    public String file;

    private long[] addresses;
    private Symbolizer warm;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        Path path = Path.of(file);
        warm = new Symbolizer(SymbolizerOptions.DEFAULT);
        SymbolTable t = warm.image(path).symbols();
        SplittableRandom random = new SplittableRandom(1);
        addresses = new long[100_000];
        for (int i = 0; i < addresses.length; ) {
            int s = random.nextInt(t.count());
            if (t.isFunction(s) && t.size[s] > 0) {
                addresses[i++] = t.start[s] + random.nextLong(t.size[s]);
            }
        }
        warm.image(path).dwarf();
        String dump = System.getProperty("stackfold.bench.dump");
        if (dump != null) {
            StringBuilder b = new StringBuilder();
            for (long a : addresses) {
                b.append("0x").append(Long.toHexString(a)).append('\n');
            }
            java.nio.file.Files.writeString(Path.of(dump), b);
        }
    }

    @Benchmark
    public void warm(Blackhole bh) throws IOException {
        AddressSymbolizer elf = warm.elf(Path.of(file));
        for (long a : addresses) {
            bh.consume(elf.symbolize(a));
        }
    }

    @Benchmark
    public void cold(Blackhole bh) throws IOException {
        try (Symbolizer s = new Symbolizer(SymbolizerOptions.DEFAULT)) {
            AddressSymbolizer elf = s.elf(Path.of(file));
            for (long a : addresses) {
                bh.consume(elf.symbolize(a));
            }
        }
    }

    @Benchmark
    public void addr2line(Blackhole bh) throws IOException {
        Addr2line a2l = Addr2line.of(warm, Path.of(file));
        for (long a : addresses) {
            bh.consume(a2l.lookup(a));
        }
    }

    /** A quick measurement without JMH: {@code java -cp ... org.stackfold.symbolize.SymbolizeBench FILE}. */
    public static void main(String[] args) throws IOException {
        SymbolizeBench b = new SymbolizeBench();
        b.file = args.length > 0 ? args[0] : "/lib/x86_64-linux-gnu/libc.so.6";
        b.setUp();
        List<Object> sink = new java.util.ArrayList<>();
        java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        for (int round = 0; round < 10; round++) {
            long c0 = cpu.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            AddressSymbolizer elf = b.warm.elf(Path.of(b.file));
            int n = 0;
            for (long a : b.addresses) {
                n += elf.symbolize(a).size();
            }
            long t1 = System.nanoTime();
            long c1 = cpu.getCurrentThreadCpuTime();
            sink.add(n);
            System.out.printf("warm: %d addresses, %d frames, %.1f ms wall, %.1f ms CPU%n", b.addresses.length, n,
                    (t1 - t0) / 1e6, (c1 - c0) / 1e6);
        }
    }
}
