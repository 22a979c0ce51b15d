package org.stackfold.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** One {@code stackfold} command line run in this JVM ({@link Main#run}), with its exit code and what it printed: the CLI tests' helper. */
public record CliRun(int code, String out, String err) {
    public static CliRun run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new CliRun(code, out.toString(), err.toString());
    }
}
