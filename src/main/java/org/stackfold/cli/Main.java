package org.stackfold.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.List;
import org.stackfold.io.InputException;
import org.stackfold.io.Printable;
import org.stackfold.io.UsageException;
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
        footer = {"", "Inputs may be gzip-compressed and may be '-' for standard input.",
                "Run 'stackfold COMMAND --help' for a command's options and examples."})
public final class Main implements Runnable {
    /**
     * The subcommands, in the order help lists them: their annotations are the source of the models
     * in {@link CommandSpecs}. Only the one named on the command line is given to picocli: building
     * the model of all of them costs more than the rest of a small command.
     */
    static final List<Class<?>> COMMANDS = List.of(
            FoldCommand.class,
            DiffCommand.class,
            TopCommand.class,
            InfoCommand.class,
            StoreCommand.class,
            QueryCommand.class,
            PushCommand.class,
            ConvertCommand.class,
            CollapseCommand.class,
            FlamegraphCommand.class,
            ViewCommand.class,
            RecordCommand.class,
            SymbolizeCommand.class,
            DemoCommand.class,
            CompletionCommand.class);

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required");
    }

    public static void main(String[] args) {
        int code = runProcess(args);
        if (code == 0 && aloneInTheJvm()) {
            // The JVM ends as main returns, shutdown hooks and all, with status 0. System.exit would
            // first look up a System.Logger for Runtime.exit's log, whose ServiceLoader opens the jar
            // again and reads its 1,941-entry directory: 9-10 ms of CPU of every small command on
            // this project's machines (docs/startup.md).
            return;
        }
        System.exit(code);
    }

    /** No thread but this one would keep the JVM alive once main returns (a live non-daemon thread). */
    static boolean aloneInTheJvm() {
        Thread me = Thread.currentThread();
        ThreadGroup group = me.getThreadGroup();
        while (group.getParent() != null) {
            group = group.getParent();
        }
        Thread[] threads = new Thread[group.activeCount() + 8];
        int n = group.enumerate(threads, true);
        if (n == threads.length) {
            return false; // more than counted: not sure
        }
        for (int i = 0; i < n; i++) {
            Thread t = threads[i];
            if (t != me && t.isAlive() && !t.isDaemon()) {
                return false;
            }
        }
        return true;
    }

    /** Runs one command line on the process's standard streams; returns the exit code. */
    static int runProcess(String[] args) {
        Thread.setDefaultUncaughtExceptionHandler(Main::uncaught); // here, so that the AOT training links it too
        StandardOutput stdout = new StandardOutput();
        PrintWriter err = new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
        int code;
        try {
            code = run(args, stdout, err);
            stdout.flush();
        } catch (IOException e) {
            code = 1;
        }
        if (stdout.failure() != null && code != 2) {
            // A result that did not reach standard output is a failure, said once (commands that
            // wrote through AtomicOutput have said it already).
            if (code == 0 && !stdout.readerGone()) {
                err.println("stackfold: standard output: " + stdout.failure());
            }
            code = 1;
        }
        err.flush();
        return code;
    }

    /** A thread that dies outside a command (a worker's OutOfMemoryError): one line, exit 1. */
    private static void uncaught(Thread t, Throwable e) {
        try {
            System.err.println("stackfold: " + (outOfMemory(e) != null ? OUT_OF_MEMORY : "internal error: " + e));
            System.err.flush();
        } finally {
            Runtime.getRuntime().halt(1);
        }
    }

    static final String OUT_OF_MEMORY = "out of memory; raise the heap with STACKFOLD_HEAP=4g (now "
            + Runtime.getRuntime().maxMemory() / (1 << 20) + " MiB)";

    /** The OutOfMemoryError in a chain of causes, or null. */
    static OutOfMemoryError outOfMemory(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof OutOfMemoryError oom) {
                return oom;
            }
        }
        return null;
    }

    /**
     * How picocli makes objects (version providers, the help command, converters): its own factory,
     * made only when picocli first needs one. Its class initialiser looks for Groovy's {@code Closure}
     * on the class path, which opens the jar and its libraries only to fail (~4 ms of a small command),
     * so the collections of list options and of the input files (every folded command) are made here,
     * as picocli's factory makes them.
     */
    static final CommandLine.IFactory FACTORY = new CommandLine.IFactory() {
        @Override
        @SuppressWarnings("unchecked")
        public <K> K create(Class<K> cls) throws Exception {
            if (cls == java.util.List.class || cls == java.util.Collection.class) {
                return (K) new java.util.ArrayList<>();
            }
            if (cls == java.util.Set.class) {
                return (K) new java.util.LinkedHashSet<>();
            }
            if (cls == java.util.Map.class) {
                return (K) new java.util.LinkedHashMap<>();
            }
            return CommandLine.defaultFactory().create(cls);
        }
    };

    /** Where commands write results to standard output: the process's, or a test's. */
    private static final ThreadLocal<OutputStream> STDOUT = ThreadLocal.withInitial(() -> System.out);

    static OutputStream stdout() {
        return STDOUT.get();
    }

    /** Runs the CLI with the given streams; returns the exit code. Tests call this. */
    public static int run(String[] args, OutputStream out, PrintWriter err) {
        CommandLine cl = commandLine(args);
        PrintWriter text = new PrintWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), true);
        cl.setOut(text);
        cl.setErr(err);
        STDOUT.set(out);
        try {
            return cl.execute(args);
        } catch (OutOfMemoryError e) {
            // picocli hands its handler Exceptions only; Errors come out of execute().
            err.println("stackfold: " + OUT_OF_MEMORY);
            err.flush();
            return 1;
        } catch (StackOverflowError e) {
            err.println("stackfold: internal error: the thread stack overflowed (please report it with the input's shape)");
            err.flush();
            return 1;
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

    /**
     * The command line for {@code args}: with the subcommand they name, with none for {@code --version}
     * alone, or with every one (help, mistakes). The models come from {@link CommandSpecs}, not from
     * the annotations: reading those costs more than a small command (docs/startup.md).
     */
    public static CommandLine commandLine(String... args) {
        CommandLine cl = new CommandLine(CommandSpecs.main(new Main()), FACTORY);
        CommandLine.Model.CommandSpec named = args.length == 0 ? null : CommandSpecs.of(args[0]);
        if (named != null) {
            cl.addSubcommand(named);
        } else if (!(args.length == 1 && (args[0].equals("--version") || args[0].equals("-V")))) {
            CommandSpecs.NAMES.forEach(name -> cl.addSubcommand(CommandSpecs.of(name)));
            // picocli's help command from its annotations where it may run; listed only, a model of it
            if (java.util.Arrays.asList(args).contains("help")) {
                cl.addSubcommand(CommandLine.HelpCommand.class);
            } else {
                cl.addSubcommand(CommandSpecs.helpCommand());
            }
        }
        // Set after the subcommands are added: picocli passes these settings down to those present.
        cl.setExecutionExceptionHandler(Main::handle);
        cl.setParameterExceptionHandler(Main::usage);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        return cl;
    }

    /** A mistake on the command line: one line and where to look, exit 2 (picocli would print the whole help). */
    private static int usage(CommandLine.ParameterException e, String[] args) {
        CommandLine cl = e.getCommandLine();
        PrintWriter err = cl.getErr();
        String command = cl.getCommandSpec().qualifiedName(" ");
        err.println("stackfold: " + e.getMessage() + " (see '" + command + " --help')");
        err.flush();
        return 2;
    }

    private static int handle(Exception e, CommandLine cl, CommandLine.ParseResult parsed) {
        PrintWriter err = cl.getErr();
        Throwable t = e instanceof UncheckedIOException u ? u.getCause() : e;
        if (t instanceof UsageException) {
            err.println("stackfold: " + t.getMessage() + " (see '" + cl.getCommandSpec().qualifiedName(" ") + " --help')");
            err.flush();
            return 2;
        }
        if (t instanceof InputException) {
            err.println("stackfold: " + t.getMessage());
        } else if (t instanceof IOException io && StandardOutput.isReaderGone(io)) {
            // `stackfold fold x | head`: the reader stopped on purpose; nothing to report (exit 1, like SIGPIPE's failure)
        } else if (t instanceof IOException io) {
            err.println("stackfold: " + Printable.of(describe(io)));
        } else if (t instanceof ArithmeticException) {
            // Math.addExact on counts: sums past 2^63-1 across stacks are a one-line error, never wrapped
            err.println("stackfold: " + Printable.of(inputs(parsed)) + ": the counts add up to more than 2^63-1"
                    + " (9223372036854775807); scale them down");
        } else if (outOfMemory(t) != null) {
            err.println("stackfold: " + OUT_OF_MEMORY);
        } else {
            err.println("stackfold: internal error: " + Printable.of(t.toString()));
            if (System.getenv("STACKFOLD_DEBUG") != null) {
                t.printStackTrace(err);
            } else {
                err.println("stackfold: (set STACKFOLD_DEBUG=1 for a stack trace, and please report it)");
            }
        }
        err.flush();
        return 1;
    }

    /** The input files of the command that failed, as given ("-" for stdin), for messages. */
    private static String inputs(CommandLine.ParseResult parsed) {
        CommandLine.ParseResult sub = parsed;
        while (sub.subcommand() != null) {
            sub = sub.subcommand();
        }
        java.util.List<String> names = new java.util.ArrayList<>();
        for (CommandLine.Model.PositionalParamSpec p : sub.matchedPositionals()) {
            for (String v : p.stringValues()) {
                if (v.equals("-") || java.nio.file.Files.exists(java.nio.file.Path.of(v))) {
                    names.add(v);
                }
            }
        }
        return names.isEmpty() ? "<stdin>" : String.join(", ", names);
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

    /** The version, git commit and build date of this build (scripts/build-info), and the Java running it. */
    public static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"stackfold " + BuildInfo.VERSION,
                    "commit " + BuildInfo.COMMIT + ", built " + BuildInfo.DATE,
                    "Java " + System.getProperty("java.runtime.version") + " (" + System.getProperty("java.home") + ")"};
        }
    }
}
