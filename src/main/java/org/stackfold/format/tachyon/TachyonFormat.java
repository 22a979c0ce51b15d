package org.stackfold.format.tachyon;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Locale;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.ProfileFormat;
import org.stackfold.io.Input;
import org.stackfold.io.Progress;
import org.stackfold.io.InputException;
import org.stackfold.model.Profile;

/**
 * CPython 3.15's sampling-profiler binary file ({@code python -m profiling.sampling --binary}).
 * Reading folds the samples into a call tree whose frames are named as CPython's collapsed output
 * names them (see {@link TachyonOptions} for the other namings, per-thread or merged stacks,
 * filters and the optional timeline). Writing accepts any profile ({@link ProfileToTachyon}).
 * Options: those of {@link TachyonOptions}, and for writing {@code compression} (none|zstd,
 * default zstd as CPython's "auto"), {@code tachyon.byte-order} (little|big),
 * {@code tachyon.interval} (microseconds between samples made from counts, default 1000).
 */
public final class TachyonFormat implements ProfileFormat {
    public static final String COMPRESSION = "compression";

    @Override
    public String name() {
        return "tachyon";
    }

    @Override
    public List<String> extensions() {
        return List.of("tachyon", "bin");
    }

    @Override
    public boolean sniff(byte[] head, int length) {
        if (length < 8) {
            return false;
        }
        boolean le = head[0] == 'H' && head[1] == 'C' && head[2] == 'A' && head[3] == 'T';
        boolean be = head[0] == 'T' && head[1] == 'A' && head[2] == 'C' && head[3] == 'H';
        return le || be;
    }

    @Override
    public Profile read(Input in, FormatOptions options) throws IOException {
        TachyonOptions o = TachyonOptions.from(options);
        TachyonFile f = TachyonFile.open(in.name(), in.bytes());
        TreeBuilder b = TreeBuilder.of(f, o);
        try (Progress p = Progress.start("reading " + f.source(), f.sampleData().byteSize())) {
            new TachyonReplay(f).progress(p).run(b);
        }
        return b.profile();
    }

    @Override
    public void write(Profile profile, OutputStream out, FormatOptions options) throws IOException {
        TachyonWriter.Settings s = writerSettings(
                TachyonWriter.Settings.defaults().withCompression(Tachyon.COMPRESSION_ZSTD), options);
        TachyonWriter w = new TachyonWriter(s, ProfileToTachyon.frames(profile.frames()));
        ProfileToTachyon.feed(profile, w, s.startTime(), s.interval());
        w.finish(out);
    }

    /** Applies the writer options to settings (those of a source file, or the defaults). */
    static TachyonWriter.Settings writerSettings(TachyonWriter.Settings base, FormatOptions o) {
        TachyonWriter.Settings s = base;
        String c = o.get(COMPRESSION, null);
        if (c != null) {
            s = s.withCompression(switch (c.toLowerCase(Locale.ROOT)) {
                case "none" -> Tachyon.COMPRESSION_NONE;
                case "zstd", "auto" -> Tachyon.COMPRESSION_ZSTD;
                default -> throw new org.stackfold.io.UsageException("--compression: expected none or zstd, got '" + c + "'");
            });
        }
        String bo = o.get(TachyonOptions.BYTE_ORDER, null);
        if (bo != null) {
            s = s.withOrder(switch (bo.toLowerCase(Locale.ROOT)) {
                case "little", "le", "little-endian" -> ByteOrder.LITTLE_ENDIAN;
                case "big", "be", "big-endian" -> ByteOrder.BIG_ENDIAN;
                default -> throw new org.stackfold.io.UsageException("--tachyon-byte-order: expected little or big, got '" + bo + "'");
            });
        }
        if (o.has(TachyonOptions.INTERVAL)) {
            long iv = o.getLong(TachyonOptions.INTERVAL, 1000);
            if (iv <= 0) {
                throw new org.stackfold.io.UsageException("--tachyon-interval: must be a positive number of microseconds");
            }
            s = s.withTiming(s.startTime(), iv);
        }
        return s;
    }

    @Override
    public boolean describe(Input in, FormatOptions options, PrintWriter out) throws IOException {
        TachyonFile f = TachyonFile.open(in.name(), in.bytes());
        TachyonDescribe.print(f, out);
        return true;
    }
}
