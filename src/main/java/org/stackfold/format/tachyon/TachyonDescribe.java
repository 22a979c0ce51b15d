package org.stackfold.format.tachyon;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** What {@code stackfold info} prints for a Tachyon file. */
final class TachyonDescribe {
    private TachyonDescribe() {
    }

    static void print(TachyonFile f, PrintWriter out) {
        row(out, "format version", f.version());
        row(out, "python", f.pyMajor() + "." + f.pyMinor() + "." + f.pyMicro());
        row(out, "byte order", f.byteOrder().toString().toLowerCase(Locale.ROOT).replace('_', '-'));
        row(out, "mode", f.mode() < 0 ? "unknown" : Tachyon.modeName(f.mode()));
        int feat = f.captureFeatures();
        if (feat < 0) {
            row(out, "capture features", "unknown");
        } else {
            List<String> names = new ArrayList<>();
            for (int i = 0; i < Tachyon.FEATURES.length; i++) {
                if ((feat & (1 << i)) != 0) {
                    names.add(Tachyon.FEATURES[i]);
                }
            }
            if (feat >>> Tachyon.FEATURES.length != 0) {
                names.add("0x" + Integer.toHexString(feat >>> Tachyon.FEATURES.length << Tachyon.FEATURES.length));
            }
            row(out, "capture features", names.isEmpty() ? "none" : String.join(", ", names));
        }
        row(out, "start time", Long.toUnsignedString(f.startTime()) + " us (monotonic clock)");
        row(out, "sample interval", Long.toUnsignedString(f.interval()) + " us");
        row(out, "samples (header)", Long.toUnsignedString(f.sampleCount()));
        row(out, "threads (header)", f.threadCount());
        row(out, "strings", f.stringCount());
        row(out, "frames", f.frameCount());
        TachyonFile.Stats s = f.stats();
        if (s == null) {
            row(out, "statistics", "none");
        } else {
            row(out, "duration", String.format(Locale.ROOT, "%.3f s", s.duration()));
            row(out, "sample rate", String.format(Locale.ROOT, "%.1f /s", s.sampleRate()));
            if (s.hasErrorRate()) {
                row(out, "error rate", String.format(Locale.ROOT, "%.2f %%", s.errorRate()));
            }
            if (s.hasMissedSamples()) {
                row(out, "missed samples", String.format(Locale.ROOT, "%.2f %%", s.missedSamples()));
            }
        }
        String comp = switch (f.compression()) {
            case Tachyon.COMPRESSION_NONE -> "none";
            case Tachyon.COMPRESSION_ZSTD -> "zstd";
            default -> "unknown (" + Integer.toUnsignedString(f.compression()) + "), read as none";
        };
        long stored = f.storedSampleBytes();
        long raw = f.sampleData().byteSize();
        row(out, "compression", comp);
        row(out, "sample data", f.compression() == Tachyon.COMPRESSION_ZSTD
                ? String.format(Locale.ROOT, "%d bytes stored, %d decompressed (ratio %.2f)", stored, raw,
                        stored == 0 ? 0.0 : (double) raw / stored)
                : stored + " bytes");
        row(out, "file size", f.size() + " bytes");

        TachyonReplay r = new TachyonReplay(f).trackStatus();
        r.run((t, st, ts, n) -> { });
        row(out, "samples", r.samples());
        row(out, "records", String.format(Locale.ROOT, "%d (repeat %d [%d samples], full %d, suffix %d, pop-push %d)",
                r.records(0) + r.records(1) + r.records(2) + r.records(3), r.records(Tachyon.REPEAT),
                r.repeatSamples(), r.records(Tachyon.FULL), r.records(Tachyon.SUFFIX), r.records(Tachyon.POP_PUSH)));
        if (r.samples() > 0) {
            row(out, "bytes per sample", String.format(Locale.ROOT, "%.2f (%.2f before compression)",
                    (double) stored / r.samples(), (double) raw / r.samples()));
        }
        row(out, "threads", r.threads().size());
        out.printf(Locale.ROOT, "  %-20s %6s %10s %7s %7s %7s %7s %7s%n", "thread", "interp", "samples",
                "on-cpu", "gil", "gil-wait", "exc", "main");
        for (TachyonThread t : r.threads()) {
            long[] c = t.statusCounts;
            long cpu = 0;
            long gil = 0;
            long wait = 0;
            long exc = 0;
            long main = 0;
            for (int b = 0; b < 256; b++) {
                if ((b & Tachyon.STATUS_ON_CPU) != 0) {
                    cpu += c[b];
                }
                if ((b & Tachyon.STATUS_HAS_GIL) != 0) {
                    gil += c[b];
                }
                if ((b & Tachyon.STATUS_GIL_REQUESTED) != 0) {
                    wait += c[b];
                }
                if ((b & Tachyon.STATUS_HAS_EXCEPTION) != 0) {
                    exc += c[b];
                }
                if ((b & Tachyon.STATUS_MAIN_THREAD) != 0) {
                    main += c[b];
                }
            }
            out.printf(Locale.ROOT, "  %-20s %6s %10d %7s %7s %7s %7s %7s%n", Long.toUnsignedString(t.threadId()),
                    Integer.toUnsignedString(t.interpreterId()), t.samples(), pct(cpu, t.samples()),
                    pct(gil, t.samples()), pct(wait, t.samples()), pct(exc, t.samples()), pct(main, t.samples()));
        }
        out.flush();
    }

    private static String pct(long part, long whole) {
        return whole == 0 ? "-" : String.format(Locale.ROOT, "%.0f%%", 100.0 * part / whole);
    }

    private static void row(PrintWriter out, String label, Object value) {
        out.printf(Locale.ROOT, "%-18s %s%n", label, value);
    }
}
