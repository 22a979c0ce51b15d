package org.stackfold.format.tachyon;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * Makes the large benchmark file with our own writer: the real samples of {@code a_none} and
 * {@code a_cpu_opcodes_native} (8 threads), repeated with shifted timestamps until about 16 million
 * samples (about 80 MB uncompressed), as the research's large CPython-written file was made.
 * {@code java ... TachyonBenchInput OUT.bin [SAMPLES] [none|zstd]}
 */
public final class TachyonBenchInput {
    private TachyonBenchInput() {
    }

    public static final long DEFAULT_SAMPLES = 16_400_000;

    public static void main(String[] args) throws IOException {
        Path out = Path.of(args.length > 0 ? args[0] : "target/tachyon-bench/bench.bin");
        long samples = args.length > 1 ? Long.parseLong(args[1]) : DEFAULT_SAMPLES;
        int compression = args.length > 2 && args[2].equals("zstd") ? Tachyon.COMPRESSION_ZSTD : Tachyon.COMPRESSION_NONE;
        make(out, samples, compression);
        System.out.println(out + ": " + Files.size(out) + " bytes");
    }

    /** Writes the file unless it exists already; returns its path. */
    public static Path ensure(Path out, long samples) throws IOException {
        if (!Files.exists(out)) {
            make(out, samples, Tachyon.COMPRESSION_NONE);
        }
        return out;
    }

    static void make(Path out, long samples, int compression) throws IOException {
        TachyonFile a = Fixtures.open("real/a_none");
        TachyonFile b = Fixtures.open("real/a_cpu_opcodes_native");
        List<ArrivalOrder.Sample> sa = ArrivalOrder.of(a);
        List<ArrivalOrder.Sample> sb = ArrivalOrder.of(b);
        int offsetB = a.frameCount();
        FrameSource fa = FrameSource.of(a);
        FrameSource fb = FrameSource.of(b);
        FrameSource both = new FrameSource() {
            FrameSource of(int f) {
                return f < offsetB ? fa : fb;
            }

            int id(int f) {
                return f < offsetB ? f : f - offsetB;
            }

            @Override
            public byte[] file(int f) {
                return of(f).file(id(f));
            }

            @Override
            public byte[] function(int f) {
                return of(f).function(id(f));
            }

            @Override
            public int line(int f) {
                return of(f).line(id(f));
            }

            @Override
            public int endLine(int f) {
                return of(f).endLine(id(f));
            }

            @Override
            public int column(int f) {
                return of(f).column(id(f));
            }

            @Override
            public int endColumn(int f) {
                return of(f).endColumn(id(f));
            }

            @Override
            public int opcode(int f) {
                return of(f).opcode(id(f));
            }
        };
        long spanA = span(sa, a.startTime()) + 1000;
        long spanB = span(sb, b.startTime()) + 1000;
        long span = Math.max(spanA, spanB);
        TachyonWriter.Settings s = TachyonWriter.Settings.of(a).withCompression(compression).withTiming(0, 1000);
        TachyonWriter w = new TachyonWriter(s, both);
        int[] stack = new int[Tachyon.MAX_STACK_DEPTH];
        long written = 0;
        for (long pass = 0; written < samples; pass++) {
            long shift = pass * span;
            for (ArrivalOrder.Sample x : sa) {
                w.sample(x.tid(), x.interp(), x.status(), x.timestamp() - a.startTime() + shift, x.frames(), x.frames().length);
            }
            for (ArrivalOrder.Sample x : sb) {
                int[] fr = x.frames();
                for (int i = 0; i < fr.length; i++) {
                    stack[i] = fr[i] + offsetB;
                }
                w.sample(x.tid(), x.interp(), x.status(), x.timestamp() - b.startTime() + shift, stack, fr.length);
            }
            written += sa.size() + sb.size();
        }
        Files.createDirectories(out.toAbsolutePath().getParent());
        Path tmp = Files.createTempFile(out.toAbsolutePath().getParent(), ".bench", ".tmp");
        try (OutputStream o = new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 20)) {
            w.finish(o);
        }
        Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING);
    }

    private static long span(List<ArrivalOrder.Sample> s, long start) {
        long max = 0;
        for (ArrivalOrder.Sample x : s) {
            max = Math.max(max, x.timestamp() - start);
        }
        return max;
    }
}
