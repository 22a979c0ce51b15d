package org.stackfold.format.perfdata;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.function.Consumer;
import org.stackfold.perf.PerfOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;
import org.stackfold.symbolize.Symbolizer;
import org.stackfold.symbolize.SymbolizerOptions;

/**
 * Reads a perf.data file ({@code perf record}'s output) straight into folded stacks, as
 * {@code perf script | stackfold collapse perf} would make them; rules in docs/formats/perfdata.md.
 */
public final class PerfData {
    /** Symbols as perf script prints them: demangled, no inlined frames, no source lines. */
    private static final SymbolizerOptions SYMBOLS = new SymbolizerOptions(true, false, false, false);

    private PerfData() {
    }

    private static final byte[] MAGIC = {'P', 'E', 'R', 'F', 'I', 'L', 'E', '2'};

    /**
     * True where the first bytes are perf.data's magic "PERFILE2" (either byte order). Kept out of
     * {@link PerfDataFile}, whose class set-up (its layouts) would otherwise be paid by every
     * {@code collapse perf} of text: some 5 ms of a one-shot run.
     */
    public static boolean sniff(byte[] head, int length) {
        if (length < MAGIC.length) {
            return false;
        }
        boolean forward = true;
        boolean backward = true;
        for (int i = 0; i < MAGIC.length; i++) {
            forward &= head[i] == MAGIC[i];
            backward &= head[i] == MAGIC[MAGIC.length - 1 - i];
        }
        return forward || backward;
    }

    public static Profile collapse(Input in, PerfOptions options, Consumer<String> warnings) throws IOException {
        return collapse(in, options, warnings, false);
    }

    /** With {@code timeline}: the samples in time order too (per thread, nanoseconds), for the viewer's time order. */
    public static Profile collapse(Input in, PerfOptions options, Consumer<String> warnings, boolean timeline)
            throws IOException {
        if (options.inline() || options.srcline()) {
            warnings.accept(in.name() + ": --inline and --srcline apply to perf script text; ignored for perf.data");
        }
        // the user's kallsyms is read first: a missing one fails before the recording is parsed
        var kallsyms = options.kallsyms() == null ? null : Symbolizer.kallsyms(java.nio.file.Path.of(options.kallsyms()));
        PerfDataFile file = new PerfDataFile(in.name(), in.bytes());
        try (Symbolizer symbolizer = new Symbolizer(SYMBOLS)) {
            PerfDataReplay replay = new PerfDataReplay(file, options, symbolizer, warnings);
            replay.useKallsyms(kallsyms);
            if (timeline) {
                replay.timeline = new org.stackfold.model.Timeline("nanoseconds");
            }
            replay.run();
            return replay.profile();
        }
    }

    /** What {@code stackfold info} prints: the header's features and events. */
    public static void describe(Input in, PrintWriter out) throws IOException {
        PerfDataFile file = new PerfDataFile(in.name(), in.bytes());
        if (file.pipe) {
            file.readPipeHeaders();
        }
        out.println("format: perf.data (" + file.order + (file.pipe ? ", pipe mode" : "") + ")");
        file.features.forEach((k, v) -> out.println(k + ": " + v));
        out.println("data: " + file.dataSize + " bytes at offset " + file.dataOffset);
        for (PerfEventAttr a : file.attrs) {
            out.println("event: " + a.name() + " (sample_type 0x" + Long.toHexString(a.sampleType()) + ", "
                    + a.ids().length + " ids)");
        }
        out.println("build ids: " + file.buildIds.size());
    }
}
