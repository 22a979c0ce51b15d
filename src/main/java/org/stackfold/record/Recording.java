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
    private boolean attachAnyJvm;
    private boolean threadRoots;
    private org.stackfold.format.tachyon.TachyonOptions.Naming pythonNaming =
            org.stackfold.format.tachyon.TachyonOptions.Naming.CPYTHON;

    public Recording(RecordOptions options) {
        this.options = options;
        this.recorder = new Recorder(options);
    }

    /** With {@code record --jvm-attach}: start the attach listener of any JVM seen, not only the command's. */
    public Recording attachAnyJvm(boolean yes) {
        attachAnyJvm = yes;
        return this;
    }

    /**
     * Python frames: {@code lines} keeps each frame's instruction in the kernel (line-level, the
     * default; off: function-level), {@code naming} is {@code --tachyon-naming}'s style.
     */
    public Recording python(boolean lines, org.stackfold.format.tachyon.TachyonOptions.Naming naming) {
        recorder.pythonLines(lines);
        pythonNaming = naming;
        return this;
    }

    /** Roots {@code tid:N}: the thread of each sample, as the Tachyon writer takes it (record -o out.bin). */
    public Recording threadRoots(boolean yes) {
        threadRoots = yes;
        return this;
    }

    /** The recorded command's stdout goes to this process's stderr (the profile is on stdout). */
    public Recording commandStdoutToStderr(boolean yes) {
        recorder.commandStdoutToStderr(yes);
        return this;
    }

    /** Ends the recording early (Ctrl-C, SIGTERM); the profile is still folded and returned. */
    public void stop() {
        recorder.stop();
    }

    /** Records, folds and prints the accounting on {@code err}; {@code inline} adds inlined frames (DWARF). */
    public StackFolder.Folded run(PrintWriter err, boolean measureProgram, boolean inline) throws IOException {
        // Line numbers never reach folded names; inlined frames cost DWARF parsing, so they are asked for.
        SymbolizerOptions symbols = new SymbolizerOptions(true, inline, false, false);
        // JVMs are asked for perf maps by ProcessSnapshots under the recording's rules, never by the symbolizer.
        try (Symbolizer symbolizer = new Symbolizer(symbols).askJvmsForPerfMaps(false)) {
            ProcessSnapshots processes = new ProcessSnapshots(symbolizer, attachAnyJvm);
            Recorder.Result result;
            try {
                result = recorder.record(processes, measureProgram);
            } finally {
                processes.finish();
                processes.removeCreatedFiles();
            }
            StackFolder.Folded folded = new StackFolder(options, symbolizer, processes, result.drained(),
                    result.maxDepth()).pythonNaming(pythonNaming).threadRoots(threadRoots).fold();
            if (result.drained().python() != null) {
                for (String note : result.drained().python().notes()) {
                    err.println("stackfold: " + org.stackfold.io.Printable.of(note));
                }
            }
            folded.accounting().print(err, options.frequency(), result, processes.processes());
            warnBrokenDwarf(symbolizer, err);
            return folded;
        }
    }

    /** Once per file whose DWARF could not be read: its frames kept their symbol table names, without inlined frames. */
    static void warnBrokenDwarf(Symbolizer symbolizer, PrintWriter err) {
        for (String problem : symbolizer.dwarfProblems()) {
            err.println("stackfold: warning: " + org.stackfold.io.Printable.of(problem)
                    + ": debug info unreadable; its frames are named by the symbol table, without inlined frames or lines");
        }
    }
}
