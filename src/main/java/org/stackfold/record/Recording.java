package org.stackfold.record;

import java.io.IOException;
import java.io.PrintWriter;
import org.stackfold.symbolize.Symbolizer;
import org.stackfold.symbolize.SymbolizerOptions;

/**
 * A whole recording, start to profile: record with {@link Recorder} while {@link ProcessSnapshots}
 * takes each new process's maps, refresh JVMs' perf maps, fold with {@link StackFolder}, and print
 * the {@link Accounting}.
 */
public final class Recording {
    private final RecordOptions options;
    private final Recorder recorder;

    public Recording(RecordOptions options) {
        this.options = options;
        this.recorder = new Recorder(options);
    }

    /** Ends the recording early (Ctrl-C, SIGTERM); the profile is still folded and returned. */
    public void stop() {
        recorder.stop();
    }

    /** Records, folds and prints the accounting on {@code err}; {@code inline} adds inlined frames (DWARF). */
    public StackFolder.Folded run(PrintWriter err, boolean measureProgram, boolean inline) throws IOException {
        // Line numbers never reach folded names; inlined frames cost DWARF parsing, so they are asked for.
        SymbolizerOptions symbols = new SymbolizerOptions(true, inline, false, false);
        try (Symbolizer symbolizer = new Symbolizer(symbols)) {
            ProcessSnapshots processes = new ProcessSnapshots(symbolizer);
            Recorder.Result result = recorder.record(processes, measureProgram);
            processes.finish();
            StackFolder.Folded folded = new StackFolder(options, symbolizer, processes, result.drained(),
                    result.maxDepth()).fold();
            folded.accounting().print(err, options.frequency(), result, processes.processes());
            return folded;
        }
    }
}
