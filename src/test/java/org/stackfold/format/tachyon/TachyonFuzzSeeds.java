package org.stackfold.format.tachyon;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the small seed files the fuzzers start from (run once; the output is committed under
 * src/test/resources/org/stackfold/format/tachyon/TachyonFuzzTestInputs/readAnything/): the first
 * samples of real fixtures, re-written by our writer, raw, zstd and big-endian, plus the tiny
 * legacy-statistics fixture as CPython wrote it.
 */
public final class TachyonFuzzSeeds {
    private TachyonFuzzSeeds() {
    }

    static byte[] head(String fixture, int samples, TachyonWriter.Settings settings) throws IOException {
        TachyonFile f = Fixtures.open(fixture);
        TachyonWriter w = new TachyonWriter(settings, FrameSource.of(f));
        int[] left = {samples};
        int[] stack = new int[Tachyon.MAX_STACK_DEPTH];
        try {
            new TachyonReplay(f).run((t, status, ts, n) -> {
                int d = t.depth();
                for (int i = 0; i < d; i++) {
                    stack[i] = t.frame(d - 1 - i);
                }
                for (int i = 0; i < n && left[0] > 0; i++, left[0]--) {
                    w.sample(t.threadId(), t.interpreterId(), status, ts[i], stack, d);
                }
                if (left[0] == 0) {
                    throw new StopReplay();
                }
            });
        } catch (StopReplay done) {
            // enough samples
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        w.finish(out);
        return out.toByteArray();
    }

    private static final class StopReplay extends RuntimeException {
        StopReplay() {
            super(null, null, false, false);
        }
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args.length > 0 ? args[0]
                : "src/test/resources/org/stackfold/format/tachyon/TachyonFuzzTestInputs/readAnything");
        Files.createDirectories(dir);
        TachyonWriter.Settings s = TachyonWriter.Settings.of(Fixtures.open("real/a_none"));
        Files.write(dir.resolve("seed_a_none_head.bin"), head("real/a_none", 120, s));
        Files.write(dir.resolve("seed_a_none_head_zstd.bin"), head("real/a_none", 120, s.withCompression(1)));
        Files.write(dir.resolve("seed_a_none_head_be.bin"), head("real/a_none", 120, s.withOrder(ByteOrder.BIG_ENDIAN)));
        TachyonWriter.Settings t = TachyonWriter.Settings.of(Fixtures.open("edge/edge_threads"));
        Files.write(dir.resolve("seed_threads_head.bin"), head("edge/edge_threads", 60, t));
        Files.write(dir.resolve("seed_legacy_stats32.bin"), Fixtures.bytes("edge/edge_legacy_stats32.bin"));
    }
}
