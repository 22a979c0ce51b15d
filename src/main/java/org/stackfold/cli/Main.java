package org.stackfold.cli;

import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import org.stackfold.io.InputException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code stackfold} command. Exit codes: 0 ok, 1 runtime error (bad input, I/O), 2 usage.
 * Each subcommand is a thin class: parse options, call the library, write the result.
 */
@Command(name = "stackfold",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "Folded stacks, flame graphs and profile conversions.",
        subcommands = {
                FoldCommand.class,
                DiffCommand.class,
                TopCommand.class,
                InfoCommand.class,
                ConvertCommand.class,
                CollapseCommand.class,
                FlamegraphCommand.class,
                DemoCommand.class,
                RecordCommand.class,
                SymbolizeCommand.class,
                CommandLine.HelpCommand.class
        },
        footer = {"", "Inputs may be gzip-compressed and may be '-' for standard input.",
                "Run 'stackfold COMMAND --help' for a command's options and examples."})
public final class Main implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required");
    }

    public static void main(String[] args) {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        int code = run(args, out, new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true));
        out.flush();
        System.exit(out.checkError() ? 1 : code);
    }

    /** Where commands write results to standard output: the process's, or a test's. */
    private static final ThreadLocal<OutputStream> STDOUT = ThreadLocal.withInitial(() -> System.out);

    static OutputStream stdout() {
        return STDOUT.get();
    }

    /** Runs the CLI with the given streams; returns the exit code. Tests call this. */
    public static int run(String[] args, OutputStream out, PrintWriter err) {
        CommandLine cl = commandLine();
        PrintWriter text = new PrintWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), true);
        cl.setOut(text);
        cl.setErr(err);
        STDOUT.set(out);
        try {
            return cl.execute(args);
        } finally {
            text.flush();
            STDOUT.remove();
        }
    }

    /** As {@link #run(String[], OutputStream, PrintWriter)}, with binary output decoded as UTF-8 text. */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            return run(args, bytes, err);
        } finally {
            out.print(bytes.toString(StandardCharsets.UTF_8));
            out.flush();
        }
    }

    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.setExecutionExceptionHandler(Main::handle);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        return cl;
    }

    private static int handle(Exception e, CommandLine cl, CommandLine.ParseResult parsed) {
        PrintWriter err = cl.getErr();
        Throwable t = e instanceof UncheckedIOException u ? u.getCause() : e;
        if (t instanceof InputException) {
            err.println("stackfold: " + t.getMessage());
        } else if (t instanceof IOException io) {
            err.println("stackfold: " + describe(io));
        } else if (t instanceof OutOfMemoryError) {
            err.println("stackfold: out of memory; raise the heap with STACKFOLD_HEAP=4g");
        } else {
            err.println("stackfold: internal error: " + t);
            if (System.getenv("STACKFOLD_DEBUG") != null) {
                t.printStackTrace(err);
            } else {
                err.println("stackfold: (set STACKFOLD_DEBUG=1 for a stack trace, and please report it)");
            }
        }
        err.flush();
        return 1;
    }

    private static String describe(IOException e) {
        if (e instanceof java.nio.file.NoSuchFileException n) {
            return n.getFile() + ": no such file";
        }
        if (e instanceof java.nio.file.AccessDeniedException a) {
            return a.getFile() + ": permission denied";
        }
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }

    /** The version from the jar's manifest. */
    public static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"stackfold " + (v == null ? "dev" : v)};
        }
    }
}
