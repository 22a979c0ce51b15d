package org.stackfold.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.stackfold.fleet.store.RecordingStore;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.Formats;
import org.stackfold.render.viewer.ViewerData;
import org.stackfold.render.viewer.ViewerPage;
import org.stackfold.format.ProfileFormat;
import org.stackfold.io.AtomicOutput;
import org.stackfold.io.InputException;
import org.stackfold.model.Profile;
import org.stackfold.record.Privileges;
import org.stackfold.record.RecordOptions;
import org.stackfold.record.Recording;
import org.stackfold.render.flamegraph.FlameGraph;
import org.stackfold.render.flamegraph.FlameGraphOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import sun.misc.Signal;
import sun.misc.SignalHandler;

@Command(name = "record", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Record a CPU profile with eBPF, as BCC's profile -f does: stacks counted in the kernel,",
                "symbolized while processes live. The whole system by default, or given processes, or a command",
                "with all its children. Needs root or CAP_BPF and CAP_PERFMON. Ctrl-C or SIGTERM ends the",
                "recording and still writes the profile; a summary of what was lost goes to stderr."},
        footer = {"", "Output by OUT's name: .folded (default, stdout), .svg, .html (the interactive viewer), .bin (Tachyon), .pb.gz (pprof), "
                + ".speedscope.json.",
                "", "Examples:",
                "  sudo stackfold record -d 10 -o cpu.svg",
                "  sudo stackfold record -p 1234,5678 -d 30 -o server.folded",
                "  sudo stackfold record -o build.svg -- make -j2",
                "  sudo stackfold record -d 60 -o cpu.svg --store fleet --label version=1.4",
                "  sudo stackfold record -F 999 -d 5 --delimited --annotate > bcc-like.folded"})
final class RecordCommand implements Callable<Integer> {
    @Option(names = {"-F", "--frequency"}, paramLabel = "HZ", description = "Samples a second on each CPU (default ${DEFAULT-VALUE}).")
    int frequency = RecordOptions.DEFAULT_FREQUENCY;

    @Option(names = {"-d", "--duration"}, paramLabel = "SECONDS",
            description = "Stop after this long (default: until Ctrl-C, or until the processes exit).")
    double seconds;

    @Option(names = {"-p", "--pid"}, paramLabel = "PID", split = ",", description = "Record only these processes.")
    List<Integer> pids = new ArrayList<>();

    @Option(names = {"-o", "--output"}, paramLabel = "OUT", description = {"Output file (default: folded on stdout).",
            "With --every, a pattern (%Y %m %d %H %M %S %s %h, the interval's start in UTC), repeatable."})
    List<String> outputList = new ArrayList<>();

    String output;

    @Option(names = "--every", paramLabel = "SECONDS", description = {"Run as an agent: until stopped, one profile every SECONDS"
            + " (1 to 86400) to each -o pattern, --store and --push (docs/agent.md)."})
    double every;

    @Option(names = "--config", paramLabel = "FILE", description = "Options from FILE, one 'name = value' a line (docs/agent.md).")
    java.nio.file.Path config;

    @Option(names = "--store-every", paramLabel = "SECONDS", description = "With --every and --store: intervals are added to the table"
            + " together this often, one Parquet file each time (default ${DEFAULT-VALUE}; at least --every).")
    double storeEvery = 60;

    @Option(names = "--compact-every", paramLabel = "SECONDS", description = {"With --every and --store: the agent rewrites the table files"
            + " it wrote into one a partition at each multiple of SECONDS",
            "(default ${DEFAULT-VALUE}: each closed hour; 0: never; docs/agent.md)."})
    long compactEvery = 3600;

    @Option(names = "--split", paramLabel = "BY", description = {"With --every: one profile an interval for everything (none, the default),",
            "per process (process: labels service=its name, pid) or per process name (service)."})
    String split = "none";

    @Option(names = "--health-every", paramLabel = "N", description = "With --every: a health line on stderr every N intervals (default: about a minute).")
    int healthEvery;

    @Option(names = "--queue", paramLabel = "DIR", description = "With --every: where intervals that could not be stored or pushed wait"
            + " (default $STATE_DIRECTORY/queue, else ~/.local/state/stackfold/queue).")
    java.nio.file.Path queue;

    @Option(names = "--queue-max-size", paramLabel = "SIZE", description = "With --every: the queue's size limit, oldest dropped first (default ${DEFAULT-VALUE}).")
    String queueMaxSize = "256m";

    @Option(names = "--queue-max-age", paramLabel = "SECONDS", description = "With --every: queued intervals older than this are dropped (default ${DEFAULT-VALUE}).")
    long queueMaxAge = 3600;

    @Option(names = "--to", paramLabel = "FORMAT", description = "Output format (default: by OUT's name, else folded).")
    String to;

    @Option(names = {"-U", "--user-only"}, description = "User stacks only.")
    boolean userOnly;

    @Option(names = {"-K", "--kernel-only"}, description = "Kernel stacks only.")
    boolean kernelOnly;

    @Option(names = {"-I", "--include-idle"}, description = "Keep the idle tasks' samples (pid 0, swapper/N).")
    boolean includeIdle;

    @Option(names = "--per-thread", description = "One root per thread, comm-PID/TID, instead of one per thread name.")
    boolean perThread;

    @Option(names = "--delimited", description = "A '-' frame between user and kernel frames (BCC profile -d).")
    boolean delimited;

    @Option(names = {"-a", "--annotate"}, description = "Append _[k] to kernel frames (BCC profile -a).")
    boolean annotate;

    @Option(names = "--stack-storage", paramLabel = "N",
            description = "Entries of each of the two stack maps (default 16384, as BCC).")
    int stackStorage;

    @Option(names = "--inline", description = "Add frames the compiler inlined (from DWARF debug info; costs CPU).")
    boolean inline;

    @Option(names = "--jvm-attach", description = {"Also start the attach listener of JVMs the recording did not start (SIGQUIT),",
            "for their perf maps. Default: only JVMs whose listener already runs, and the recorded command's (docs/record.md)."})
    boolean jvmAttach;

    @Option(names = "--unwind", paramLabel = "MODE",
            description = "How user stacks are walked: dwarf (.eh_frame tables in the kernel; the default on Linux 5.15+)"
                    + " or fp (frame pointers only, as perf -g).")
    String unwind;

    @Option(names = "--lines", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = {"Python frames by line, file.py:function:line (default, as py-spy and CPython's sampler);",
                    "--no-lines: by function (the line shown is the function's first)."})
    boolean lines = true;

    @Option(names = "--tachyon-naming", paramLabel = "STYLE",
            description = "Python frame text: cpython (default, basename:function:line), function, file, line.")
    String tachyonNaming;

    @Option(names = "--bpf-stats", description = "Time the BPF program in the kernel and report its cost a sample"
            + " (and the walker's verified instructions and table memory).")
    boolean bpfStats;

    @Option(names = "--store", paramLabel = "DIR",
            description = "Also add the profile to this fleet table (docs/fleet.md), stamped with the recording's start time.")
    java.nio.file.Path store;

    @picocli.CommandLine.Mixin
    RecordPush push;

    @picocli.CommandLine.Mixin
    TransformOptions transform;

    @Option(names = "--label", paramLabel = "NAME=VALUE",
            description = {"A label for --store and --push (repeatable). --store's default host: this machine's name;"
                    + " default service: the command's name, else the first process's, else 'system'.",
                    "With --every, also a rule NAME=VALUE:CONDITION for the processes it matches, e.g."
                    + " service=web:comm=nginx|exe=/usr/sbin/nginx or 'service=$1:cmdline~-jar /srv/(\\w+)\\.jar'"
                    + " (comm, exe, cmdline; = != ~ !~; & and |; docs/agent.md): a profile per service."})
    List<String> labels = new ArrayList<>();

    @Parameters(paramLabel = "COMMAND", arity = "0..*", description = "A command to run and record, after --.")
    List<String> command = new ArrayList<>();

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    private RecordOptions.Unwind unwindMode() {
        if (unwind == null) {
            return RecordOptions.Unwind.AUTO;
        }
        return switch (unwind) {
            case "dwarf" -> RecordOptions.Unwind.DWARF;
            case "fp" -> RecordOptions.Unwind.FP;
            default -> throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                    "--unwind takes dwarf or fp, not '" + unwind + "'");
        };
    }

    /** The longest -d: about 115 days (and far from overflowing the nanosecond deadline). */
    static final double MAX_SECONDS = 10_000_000;
    /** --stack-storage's range: below, a few stacks fill a map; above, the two maps take over 512 MiB of kernel memory. */
    static final int MIN_STACK_STORAGE = 256;
    static final int MAX_STACK_STORAGE = 262_144;
    /** The entries of the kernel's pid filter map (Sampler.PID_FILTER_ENTRIES). */
    static final int MAX_PIDS = 4096;

    @Override
    public Integer call() throws Exception {
        if (config != null) {
            return withConfig();
        }
        if (outputList.size() > 1 && every == 0) {
            throw usage("-o is given once, except with --every");
        }
        output = outputList.isEmpty() ? null : outputList.getLast();
        validate();
        RecordOptions.Unwind mode = unwindMode();
        if (userOnly && kernelOnly) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--user-only and --kernel-only exclude each other");
        }
        if (!pids.isEmpty() && !command.isEmpty()) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "give -p PIDS or a command, not both");
        }
        List<org.stackfold.record.agent.LabelRule> rules = org.stackfold.record.agent.LabelRule.rules(labels);
        if (!rules.isEmpty() && every == 0) {
            throw usage("--label rules (NAME=VALUE:CONDITION) apply to --every, whose profiles are per service");
        }
        if (!plainLabels().isEmpty() && store == null && !push.given()) {
            // Labels go only to the fleet table and the push: silently dropping them would lose what the user meant.
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--label needs --store DIR or --push URL");
        }
        org.stackfold.fleet.store.Labels.map(plainLabels()); // a bad label fails now, not after the recording
        push.checkTogether();
        transform.transforms(); // a bad expression fails now, not after the recording
        ProfileFormat format = svg() || html() ? null : Formats.forOutput(output, to, "folded");
        if (format != null && !format.canWrite()) {
            throw new InputException("format " + format.name() + " cannot be written");
        }
        String missing = Privileges.missing();
        if (missing != null) {
            throw new InputException(missing);
        }
        // A Tachyon file keeps each sample's thread, and each Python frame's file and line apart from its name.
        boolean tachyon = format != null && format.name().equals("tachyon");
        RecordOptions options = new RecordOptions(frequency, seconds, pids, command, !userOnly, !kernelOnly,
                includeIdle, perThread || tachyon, delimited, annotate, stackStorage, 0, mode);
        PrintWriter err = spec.commandLine().getErr();
        if (every > 0) {
            return RecordAgent.run(this, options, err);
        }
        RecordingStore stored = store == null ? null : RecordingStore.begin(store, labels, command, pids);
        boolean profileOnStdout = output == null || output.equals("-");
        org.stackfold.format.tachyon.TachyonOptions.Naming naming = org.stackfold.format.tachyon.TachyonOptions.from(
                FormatOptions.none().set("tachyon.naming", tachyonNaming != null ? tachyonNaming
                        : tachyon ? "raw" : "cpython")).naming();
        Profile profile = transform.apply(record(options, err, bpfStats, inline, jvmAttach, profileOnStdout, lines,
                naming, tachyon));
        write(profile, output, err);
        if (stored != null) {
            stored.store(profile, err);
        }
        return push.send(profile, frequency, labels, err) ? 0 : 1;
    }

    /** Writes a recorded profile to {@code output} (null: stdout) in the format its name or --to says. */
    void write(Profile profile, String output, PrintWriter err) throws java.io.IOException {
        boolean html = to == null ? output != null && output.toLowerCase(java.util.Locale.ROOT).endsWith(".html") : to.equals("html");
        boolean svg = to == null ? output != null && output.toLowerCase(java.util.Locale.ROOT).endsWith(".svg") : to.equals("svg");
        ProfileFormat format = svg || html ? null : Formats.forOutput(output, to, "folded");
        try (AtomicOutput out = format == null ? AtomicOutput.open(output, Main.stdout()) : Outputs.open(output, format)) {
            if (html) {
                ViewerPage.write(ViewerData.of(profile), new ViewerPage.Options("CPU profile (stackfold record)",
                        java.util.List.of("stackfold record")), out.stream());
            } else if (format == null) {
                FlameGraphOptions o = new FlameGraphOptions();
                o.title = "CPU Flame Graph (stackfold record)";
                FlameGraph.render(profile, o, out.stream(), w -> err.println("stackfold: warning: " + w));
            } else {
                format.write(profile, out.stream(), FormatOptions.none().set("name", "stackfold record")
                        .set("tachyon.interval", Math.max(1, 1_000_000 / frequency)));
            }
            out.commit();
        }
    }

    /** The --label arguments that are NAME=VALUE, not rules. */
    List<String> plainLabels() {
        return org.stackfold.record.agent.LabelRule.plain(labels);
    }

    /** --split; with --label rules, "none" means a profile per service (the rules' labels name the profiles). */
    org.stackfold.record.agent.Agent.Split splitMode() {
        return switch (split) {
            case "none" -> org.stackfold.record.agent.LabelRule.rules(labels).isEmpty()
                    ? org.stackfold.record.agent.Agent.Split.NONE : org.stackfold.record.agent.Agent.Split.SERVICE;
            case "process" -> org.stackfold.record.agent.Agent.Split.PROCESS;
            case "service" -> org.stackfold.record.agent.Agent.Split.SERVICE;
            default -> throw usage("--split takes none, process or service, not '" + split + "'");
        };
    }

    PrintWriter err() {
        return spec.commandLine().getErr();
    }

    List<String> outputs() {
        return outputList;
    }

    long queueMaxBytes() {
        return org.stackfold.io.Sizes.parse(queueMaxSize);
    }

    /**
     * {@code --config FILE}: the file's options first, then the command line's (which win where an option
     * takes one value), parsed and run again as one command line.
     */
    private int withConfig() {
        List<String> args = new ArrayList<>();
        args.add("record");
        args.addAll(RecordAgent.configArgs(config));
        List<String> given = spec.commandLine().getParseResult().originalArgs();
        int from = given.indexOf("record") + 1;
        for (int i = from; i < given.size(); i++) {
            String a = given.get(i);
            if (a.equals("--config")) {
                i++;
            } else if (!a.startsWith("--config=")) {
                args.add(a);
            }
        }
        String[] all = args.toArray(new String[0]);
        return Main.commandLine(all).setErr(err()).execute(all);
    }

    /** Records until done or until SIGINT/SIGTERM, which end the recording instead of the process. */
    static Profile record(RecordOptions options, PrintWriter err, boolean bpfStats, boolean inline)
            throws java.io.IOException {
        return record(options, err, bpfStats, inline, false, false);
    }

    static Profile record(RecordOptions options, PrintWriter err, boolean bpfStats, boolean inline, boolean jvmAttach,
                          boolean commandStdoutToStderr) throws java.io.IOException {
        return record(options, err, bpfStats, inline, jvmAttach, commandStdoutToStderr, true,
                org.stackfold.format.tachyon.TachyonOptions.Naming.CPYTHON, false);
    }

    /**
     * As above; {@code jvmAttach} lets the recording start any JVM's attach listener, and
     * {@code commandStdoutToStderr} sends the recorded command's stdout to stderr (the profile is on stdout).
     */
    static Profile record(RecordOptions options, PrintWriter err, boolean bpfStats, boolean inline, boolean jvmAttach,
                          boolean commandStdoutToStderr, boolean pythonLines,
                          org.stackfold.format.tachyon.TachyonOptions.Naming pythonNaming, boolean threadRoots)
            throws java.io.IOException {
        Recording recording = new Recording(options).attachAnyJvm(jvmAttach).commandStdoutToStderr(commandStdoutToStderr)
                .python(pythonLines, pythonNaming).threadRoots(threadRoots);
        SignalHandler stop = sig -> recording.stop();
        SignalHandler oldInt = Signal.handle(new Signal("INT"), stop);
        SignalHandler oldTerm = Signal.handle(new Signal("TERM"), stop);
        try {
            return recording.run(err, bpfStats, inline).profile();
        } finally {
            Signal.handle(new Signal("INT"), oldInt);
            Signal.handle(new Signal("TERM"), oldTerm);
        }
    }

    /**
     * Checks every value before anything is loaded: bad values are usage errors (exit 2, one line);
     * processes and commands that do not exist are input errors (exit 1) naming them.
     */
    private void validate() {
        if (frequency < 1) {
            throw usage("-F must be at least 1 sample a second, not " + frequency);
        }
        if (!(seconds >= 0 && seconds <= MAX_SECONDS)) {
            throw usage("-d must be a number of seconds from 0 (until stopped) to " + (long) MAX_SECONDS + ", not " + seconds);
        }
        if (every != 0) {
            if (!(every >= 1 && every <= 86_400)) {
                throw usage("--every must be from 1 to 86400 seconds, not " + every);
            }
            if (seconds != 0) {
                throw usage("--every runs until stopped: give --every or -d, not both");
            }
            if (outputList.isEmpty() && store == null && !push.given()) {
                throw usage("--every needs somewhere to put each interval: -o PATTERN, --store DIR or --push URL");
            }
            for (String o : outputList) {
                if (o.equals("-")) {
                    throw usage("--every writes files: -o takes a file name pattern, not -");
                }
                try {
                    org.stackfold.record.agent.FileNames.check(o);
                } catch (IllegalArgumentException e) {
                    throw usage(e.getMessage());
                }
            }
            if (!command.isEmpty()) {
                throw usage("--every records the whole system or -p processes, not a command");
            }
            org.stackfold.record.agent.Agent.Split by = splitMode();
            if (by != org.stackfold.record.agent.Agent.Split.NONE) {
                char need = by == org.stackfold.record.agent.Agent.Split.PROCESS ? 'p' : 'n';
                for (String o : outputList) {
                    if (!org.stackfold.record.agent.FileNames.names(o, need)) {
                        String what = by == org.stackfold.record.agent.Agent.Split.PROCESS ? "process" : "service";
                        throw usage((split.equals("none") ? "--label rules make" : "--split " + split + " makes")
                                + " a profile per " + what + ": -o '" + o + "' needs %" + need
                                + " (or one file would be overwritten by the others)");
                    }
                }
                if (org.stackfold.fleet.store.Labels.map(plainLabels()).containsKey("service")) {
                    throw usage("--split " + split + " names each profile's service after its process: no --label service=");
                }
            }
            try {
                if (queueMaxBytes() < 1) {
                    throw usage("--queue-max-size must be positive, not " + queueMaxSize);
                }
            } catch (org.stackfold.io.UsageException e) {
                throw usage("--queue-max-size: " + e.getMessage());
            }
            if (queueMaxAge < 1) {
                throw usage("--queue-max-age must be at least 1 second, not " + queueMaxAge);
            }
            if (!(storeEvery >= 0 && storeEvery <= 86_400)) {
                throw usage("--store-every must be from 0 (each interval at once) to 86400 seconds, not " + storeEvery);
            }
            if (compactEvery < 0 || compactEvery > 86_400) {
                throw usage("--compact-every must be from 1 to 86400 seconds, or 0 (never), not " + compactEvery);
            }
            if (healthEvery < 0) {
                throw usage("--health-every must be 0 (about a minute) or more intervals, not " + healthEvery);
            }
        } else if (healthEvery != 0 || queue != null || !split.equals("none")) {
            throw usage("--health-every, --queue and --split apply to --every");
        }
        if (stackStorage != 0 && (stackStorage < MIN_STACK_STORAGE || stackStorage > MAX_STACK_STORAGE)) {
            throw usage("--stack-storage must be from " + MIN_STACK_STORAGE + " to " + MAX_STACK_STORAGE + ", not " + stackStorage);
        }
        for (int pid : pids) {
            if (pid < 1) {
                throw usage("-p takes process ids (1 or more), not " + pid);
            }
        }
        if (pids.size() > MAX_PIDS) {
            throw usage("-p takes at most " + MAX_PIDS + " processes (" + pids.size() + " given; the kernel's pid filter"
                    + " map holds " + MAX_PIDS + "): record the whole system, or a command, instead");
        }
        long limit = maxSampleRate();
        if (limit > 0 && frequency > limit) {
            throw usage("-F " + frequency + " is above the kernel's limit of " + limit
                    + " samples a second (kernel.perf_event_max_sample_rate, /proc/sys/kernel/perf_event_max_sample_rate)");
        }
        for (int pid : pids) {
            checkProcess(pid);
        }
        if (!command.isEmpty()) {
            checkCommand(command.getFirst());
        }
    }

    private picocli.CommandLine.ParameterException usage(String message) {
        return new picocli.CommandLine.ParameterException(spec.commandLine(), message);
    }

    /** A pid that names no process, or names a thread, is an error naming it. */
    static void checkProcess(int pid) {
        java.nio.file.Path status = java.nio.file.Path.of("/proc/" + pid + "/status");
        String text;
        try {
            text = procFile(status);
        } catch (java.io.IOException | RuntimeException e) {
            throw new InputException("-p " + pid + ": no such process");
        }
        for (String line : text.split("\n")) {
            if (line.startsWith("Tgid:")) {
                String tgid = line.substring(5).strip();
                if (!tgid.equals(Integer.toString(pid))) {
                    throw new InputException("-p " + pid + ": a thread of process " + tgid + ", not a process; give -p " + tgid);
                }
            }
        }
    }

    /** The command must be an executable file, by its path or on PATH, as the shell would find it. */
    static void checkCommand(String name) {
        if (name.isEmpty()) {
            throw new InputException("the command to record is empty");
        }
        if (name.contains("/")) {
            java.nio.file.Path p = java.nio.file.Path.of(name);
            if (!java.nio.file.Files.exists(p)) {
                throw new InputException(org.stackfold.io.Printable.of(name) + ": no such command");
            }
            if (java.nio.file.Files.isDirectory(p) || !java.nio.file.Files.isExecutable(p)) {
                throw new InputException(org.stackfold.io.Printable.of(name) + ": not an executable file");
            }
            return;
        }
        String path = System.getenv().getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin");
        for (String dir : path.split(":")) {
            java.nio.file.Path p = java.nio.file.Path.of(dir.isEmpty() ? "." : dir).resolve(name);
            if (java.nio.file.Files.isRegularFile(p) && java.nio.file.Files.isExecutable(p)) {
                return;
            }
        }
        throw new InputException(org.stackfold.io.Printable.of(name) + ": command not found (not on PATH)");
    }

    /** A /proc file through a stream: Files.readString gave "1" for "100000" (they report a size of 0). */
    private static String procFile(java.nio.file.Path p) throws java.io.IOException {
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(p)) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    /** kernel.perf_event_max_sample_rate, or 0 where it cannot be read. */
    static long maxSampleRate() {
        try {
            return Long.parseLong(procFile(java.nio.file.Path.of("/proc/sys/kernel/perf_event_max_sample_rate")).strip());
        } catch (java.io.IOException | RuntimeException e) {
            return 0;
        }
    }

    /** The interactive viewer: .html, or --to html. */
    private boolean html() {
        return to == null ? output != null && output.toLowerCase(java.util.Locale.ROOT).endsWith(".html") : to.equals("html");
    }

    private boolean svg() {
        return to == null ? output != null && output.toLowerCase(java.util.Locale.ROOT).endsWith(".svg") : to.equals("svg");
    }
}
