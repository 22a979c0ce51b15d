package org.stackfold.format.tachyon;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.Formats;
import org.stackfold.format.ProfileFormat;
import org.stackfold.format.folded.FoldedFormat;
import org.stackfold.io.AtomicOutput;
import org.stackfold.io.Input;

/**
 * {@code stackfold convert} of one Tachyon file to folded or to Tachyon, straight from the records
 * rather than through a profile: to folded it prints CPython's {@code replay --collapsed} bytes
 * (CPython's line order, not the generic folded writer's); to Tachyon it rewrites every sample with
 * its thread, interpreter, time, status and full frames (filters apply).
 */
public final class TachyonConvert {
    private TachyonConvert() {
    }

    /** Converts and returns true where this is such a conversion; false leaves it to the generic path. */
    public static boolean tryDirect(Input in, ProfileFormat format, String output, String to,
                                    FormatOptions options, OutputStream stdout) throws IOException {
        if (!(format instanceof TachyonFormat)) {
            return false;
        }
        ProfileFormat target = Formats.forOutput(output, to, "folded");
        if (!(target instanceof TachyonFormat || target instanceof FoldedFormat)) {
            return false;
        }
        TachyonFile f = TachyonFile.open(in.name(), in.bytes());
        TachyonOptions o = TachyonOptions.from(options);
        try (AtomicOutput out = AtomicOutput.open(output, stdout == null ? System.out : stdout)) {
            if (target instanceof FoldedFormat) {
                TachyonFolded.write(f, o, out.stream());
            } else {
                rewrite(f, o, TachyonFormat.writerSettings(TachyonWriter.Settings.of(f), options), out.stream());
            }
            out.commit();
        }
        return true;
    }

    /** Writes the samples of {@code f} that pass the filters of {@code o} as a new Tachyon file. */
    public static void rewrite(TachyonFile f, TachyonOptions o, TachyonWriter.Settings s, OutputStream out)
            throws IOException {
        TachyonWriter w = new TachyonWriter(s, FrameSource.of(f));
        int[] stack = new int[Tachyon.MAX_STACK_DEPTH];
        long start = f.startTime();
        new TachyonReplay(f).run((t, status, ts, n) -> {
            if (!o.keepsThread(t.threadId()) || !o.keepsStatus(status)) {
                return;
            }
            int d = t.depth();
            for (int i = 0; i < d; i++) {
                stack[i] = t.frame(d - 1 - i);
            }
            for (int i = 0; i < n; i++) {
                long rel = ts[i] - start;
                if (rel >= o.fromMicros() && rel < o.toMicros()) {
                    w.sample(t.threadId(), t.interpreterId(), status, ts[i], stack, d);
                }
            }
        });
        w.finish(out);
    }
}
