package org.stackfold.record.python;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import org.stackfold.format.tachyon.TachyonOptions;

/**
 * Prints each thread's Python stack of a live process, innermost first, as {@code py-spy dump}
 * does: a debugging aid for the offsets and the walk, run from the build
 * ({@code java -cp target/classes org.stackfold.record.python.PythonDump PID [naming]}, as root or
 * as the process's parent). Lines where an eval-loop activation ends are marked {@code ⎯}.
 */
public final class PythonDump {
    private PythonDump() {
    }

    /** Dumps one process; returns the exit status (0, or 1 with a one-line reason on {@code err}). */
    public static int dump(int pid, TachyonOptions.Naming naming, PrintStream out, PrintStream err) {
        try {
            PythonDetector.Detection d = PythonDetector.detect(pid);
            switch (d) {
                case PythonDetector.NotPython n -> {
                    err.println("pid " + pid + ": no CPython interpreter in this process");
                    return 1;
                }
                case PythonDetector.Unsupported u -> {
                    err.println(u.reason());
                    return 1;
                }
                case PythonDetector.Found f -> {
                    PythonProcess p = f.process();
                    out.println(p.describe());
                    try (ProcessMemory mem = ProcessMemory.open(pid)) {
                        PythonWalker walker = new PythonWalker(p, mem);
                        CodeNames names = new CodeNames(mem, p.offsets());
                        List<PythonThread> threads = walker.threads();
                        for (PythonThread t : threads) {
                            out.printf("Thread %d (ident 0x%x)%s%n", t.nativeId(), t.threadId(),
                                    t.truncated() ? " [walk cut short]" : "");
                            for (PythonFrame fr : t.frames()) {
                                out.println("    " + names.label(naming, fr) + (fr.activationEnd() ? "  \u23af" : ""));
                            }
                        }
                    }
                    return 0;
                }
            }
        } catch (IOException e) {
            err.println("pid " + pid + ": " + e.getMessage());
            return 1;
        }
    }

    public static void main(String[] args) {
        if (args.length < 1 || args.length > 2 || !args[0].matches("\\d+")) {
            System.err.println("usage: PythonDump PID [cpython|function|file|line]");
            System.exit(2);
        }
        TachyonOptions.Naming naming = args.length == 2
                ? TachyonOptions.Naming.valueOf(args[1].toUpperCase(java.util.Locale.ROOT)) : TachyonOptions.Naming.LINE;
        System.exit(dump(Integer.parseInt(args[0]), naming, System.out, System.err));
    }
}
