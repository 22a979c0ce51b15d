package org.stackfold.cli;

import java.io.PrintWriter;
import java.util.function.Consumer;
import picocli.CommandLine.Model.CommandSpec;

/** Warnings of a command, printed as "stackfold: warning: ..." on its error stream. */
final class Warnings {
    private Warnings() {
    }

    static Consumer<String> to(CommandSpec spec) {
        PrintWriter err = spec.commandLine().getErr();
        return w -> {
            err.println("stackfold: warning: " + org.stackfold.io.Printable.of(w));
            err.flush();
        };
    }
}
