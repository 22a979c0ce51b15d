package org.stackfold.cli;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.stackfold.analysis.ProfileSummary;
import org.stackfold.analysis.Units;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.ProfileFormat;
import org.stackfold.format.folded.DiffFoldedFormat;
import org.stackfold.format.folded.FoldedFormat;
import org.stackfold.format.folded.FoldedReader;
import org.stackfold.io.Input;
import org.stackfold.io.PlainFormat;
import org.stackfold.model.Profile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "info", mixinStandardHelpOptions = true,
        description = "Summarise a profile: records, distinct stacks, samples, frames, depth.",
        footer = {"", "Examples:", "  stackfold info profile.folded", "  stackfold info capture.bin"})
final class InfoCommand implements Callable<Integer> {
    @Parameters(paramLabel = "IN", description = "A profile ('-' for stdin).")
    String input;

    @Mixin
    ReadOptions read;

    @Mixin
    TransformOptions transform;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        // Collected first and printed at the end, so that an error leaves no half report.
        java.io.StringWriter report = new java.io.StringWriter();
        int code = report(new PrintWriter(report));
        spec.commandLine().getOut().print(report);
        spec.commandLine().getOut().flush();
        return code;
    }

    private int report(PrintWriter out) throws Exception {
        FormatOptions opts = read.formatOptions();
        try (ProfileLoader.Source src = ProfileLoader.open(input, read.from)) {
            Input in = src.input();
            ProfileFormat f = src.format();
            out.print(PlainFormat.of("%-18s %s%n", "file", in.name()));
            out.print(PlainFormat.of("%-18s %s%n", "format", f.name() + (in.isCompressed() ? " (" + in.compression().name().toLowerCase(Locale.ROOT) + ")" : "")));
            boolean transformed = transform.any();
            if (!transformed && (f instanceof FoldedFormat || f instanceof DiffFoldedFormat)) {
                FoldedReader.Mode mode = f instanceof DiffFoldedFormat
                        ? FoldedReader.Mode.DIFFERENTIAL : FoldedReader.Mode.PLAIN;
                // Counted per reader range: no merged tree is built for numbers alone.
                FoldedReader.Summary r = FoldedFormat.reader(mode, opts).summarize(in);
                FoldedReader.Stats s = r.stats();
                row(out, "lines", s.lines());
                row(out, "records", s.records());
                if (s.skipped() > 0) {
                    row(out, "skipped lines", s.skipped());
                }
                summary(out, Profile.ValueType.SAMPLES, r.samples(), s.distinctStacks(), r.distinctFrames(),
                        r.nodes());
                row(out, "max depth", s.maxDepth());
                out.print(PlainFormat.of("%-18s %.2f%n", "mean depth", s.meanDepth()));
                return 0;
            }
            if (!transformed && f.describe(in, opts, out)) {
                return 0;
            }
            Profile p = transform.apply(src.read(opts));
            ProfileSummary s = ProfileSummary.of(p);
            long[] samples = new long[p.tree().weights()];
            for (int c = 0; c < samples.length; c++) {
                samples[c] = p.tree().totalSamples(c); // the root's own count too, which the summary leaves out
            }
            summary(out, p.valueTypes().getFirst(), samples, s.distinctStacks(), p.frames().names().size(),
                    s.nodes());
            row(out, "max depth", s.maxDepth());
            out.print(PlainFormat.of("%-18s %.2f%n", "mean depth", s.meanDepth()));
            return 0;
        }
    }

    /** {@code samples}: the sum of each weight column (two: a differential profile's before and after). */
    private static void summary(PrintWriter out, Profile.ValueType type, long[] samples, long distinctStacks,
                                int distinctFrames, long nodes) {
        row(out, "distinct stacks", distinctStacks);
        if (samples.length == 2) {
            row(out, "samples (before)", samples[0]);
            row(out, "samples (after)", samples[1]);
        } else {
            long total = samples[0];
            Units u = Units.of(type, total);
            if (u.isSamples()) {
                row(out, "total samples", total);
            } else { // a Go CPU profile's nanoseconds or JFR's bytes are not samples
                out.print(PlainFormat.of("%-18s %s (%d %s)%n", "total", u.amount(total), total, type.unit()));
            }
        }
        row(out, "distinct frames", distinctFrames);
        row(out, "tree nodes", nodes);
    }

    private static void row(PrintWriter out, String label, long value) {
        out.print(PlainFormat.of("%-18s %d%n", label, value));
    }
}
