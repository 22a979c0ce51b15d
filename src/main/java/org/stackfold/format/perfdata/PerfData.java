package org.stackfold.format.perfdata;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.function.Consumer;
import org.stackfold.collapse.perf.PerfOptions;
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

    /** True where the first bytes are perf.data's magic "PERFILE2" (either byte order). */
    public static boolean sniff(byte[] head, int length) {
        return PerfDataFile.hasMagic(head, length);
    }

    public static Profile collapse(Input in, PerfOptions options, Consumer<String> warnings) throws IOException {
        if (options.inline() || options.srcline()) {
            warnings.accept(in.name() + ": --inline and --srcline apply to perf script text; ignored for perf.data");
        }
        PerfDataFile file = new PerfDataFile(in.name(), in.bytes());
        try (Symbolizer symbolizer = new Symbolizer(SYMBOLS)) {
            PerfDataReplay replay = new PerfDataReplay(file, options, symbolizer, warnings);
            replay.run();
            return replay.profile();
        }
    }

    /** What {@code stackfold info} prints: the header's features and events. */
    public static void describe(Input in, PrintWriter out) throws IOException {
        PerfDataFile file = new PerfDataFile(in.name(), in.bytes());
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
