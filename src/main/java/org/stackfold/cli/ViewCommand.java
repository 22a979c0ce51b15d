package org.stackfold.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.stackfold.transform.Columns;
import org.stackfold.analysis.Diff;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.tachyon.TachyonOptions;
import org.stackfold.io.AtomicOutput;
import org.stackfold.io.InputException;
import org.stackfold.model.Profile;
import org.stackfold.render.viewer.ViewerData;
import org.stackfold.render.viewer.ViewerPage;
import org.stackfold.render.viewer.ViewerServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "view", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Write an interactive viewer: one self-contained HTML file (flame graph and icicle, sandwich, "
                + "call tree, time order, differential view, source lines) that opens offline from file://.",
                "Any format Stackfold reads; a differential folded file or --diff BEFORE AFTER gives the differential view;",
                "several inputs give one page that switches between them, diffs them either way and shows two side by side."},
        footer = {"", "Examples:",
                "  stackfold view profile.folded -o profile.html",
                "  stackfold view profile.bin -o tachyon.html          # time order and thread/status filters",
                "  stackfold view --diff before.folded after.folded -o change.html",
                "  stackfold view before.pprof after.pprof -o compare.html  # switch, diff either way, side by side",
                "  stackfold view recording.jfr --serve                 # http://127.0.0.1:PORT/?token=... until Ctrl+C"})
final class ViewCommand implements Callable<Integer> {
    @Parameters(arity = "0..*", paramLabel = "IN", description = "Profiles ('-' or none: stdin); several are compared in the page (--merge-inputs: merged).")
    List<String> inputs = new ArrayList<>();

    @Option(names = {"-o", "--output"}, paramLabel = "OUT.html", description = "Output HTML (default stdout).")
    String output;
    @Option(names = "--title", paramLabel = "TEXT", description = "Page title (default: the input names).")
    String title;
    @Option(names = "--diff", description = "Two inputs, BEFORE AFTER: the differential view.")
    boolean diff;
    @Option(names = "--merge-inputs", description = "Several inputs: merge them into one profile (default: one page that "
            + "switches between them, diffs them either way and shows two side by side).")
    boolean merge;
    @Option(names = {"-n", "--normalize"}, description = "With --diff: scale BEFORE to AFTER's total first.")
    boolean normalize;
    @Option(names = "--from", paramLabel = "FORMAT", description = "Input format when neither content nor name tells.")
    String from;
    @Option(names = "--lenient", description = "Skip bad lines and say how many.")
    boolean lenient;
    @Option(names = "--no-timeline", description = "Leave out the samples' order (smaller file; no time order view).")
    boolean noTimeline;
    @Option(names = "--serve", description = "Serve the page on http://127.0.0.1 (loopback only) until interrupted.")
    boolean serve;
    @Option(names = "--port", paramLabel = "N", description = "Port for --serve (default: any free one).")
    int port;

    @Option(names = "--source-path", paramLabel = "DIR",
            description = "Where to look for source files the profile names (repeatable): a file not found as named is "
                    + "looked for under DIR by its path's last components (default: the current directory).")
    List<String> sourcePath = new ArrayList<>();
    @Option(names = "--no-sources", description = "Embed no source text (the source view then shows line numbers alone).")
    boolean noSources;

    @picocli.CommandLine.Mixin
    TransformOptions transform;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        List<String> ins = inputs.isEmpty() ? List.of("-") : inputs;
        if (diff && ins.size() != 2) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--diff needs exactly two inputs: BEFORE AFTER");
        }
        if (serve && output != null) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--serve and -o exclude each other");
        }
        if (port < 0 || port > 65535) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--port must be 0-65535");
        }
        FormatOptions options = FormatOptions.none().set("lenient", lenient)
                .withWarnings(w -> {
                    err.println("stackfold: warning: " + w);
                    err.flush();
                });
        // The time order view and the thread/status/range filters need the samples' order; only formats
        // with timestamps are asked for it (folded line order is not time).
        if (!noTimeline) {
            options.set("timeline", true).set(TachyonOptions.TIMELINE, true);
        }
        // perf script and perf.data: kernel frames tagged _[k] by the frame namer, which the page shows as
        // the kernel kind (its colour) with the tag left out of the name.
        options.set("kernel", true);
        // JFR and pprof keep their frames' lines (one function of the page, its lines in the source view).
        options.set("lines", true);
        if (ins.size() > 1 && !diff && !merge) {
            return compare(ins, ins, null, options, err);
        }
        List<String> events = ins.size() == 1 && !diff ? jfrEvents(ins.getFirst()) : List.of();
        if (events.size() > 1) {
            // A JFR recording with several kinds of events (CPU samples, allocations, locks): one profile
            // each, chosen in the page (and compared there like several inputs).
            return compare(java.util.Collections.nCopies(events.size(), ins.getFirst()), List.of(ins.getFirst()), events,
                    options, err);
        }
        Profile profile;
        Profile.ValueType valueType = null;
        try {
            if (diff) {
                Profile after = last(ProfileLoader.load(ins.get(1), options, from));
                valueType = after.valueTypes().getLast(); // the diff's columns are in the inputs' unit
                profile = Diff.of(last(ProfileLoader.load(ins.get(0), options, from)), after, normalize, false);
            } else {
                profile = ProfileLoader.loadMerged(ins, options, from);
            }
        } catch (OutOfMemoryError e) {
            throw new InputException("out of memory reading the profile; raise the heap with STACKFOLD_HEAP=4g");
        }
        if (ins.size() > 1 && !diff) {
            profile.setTimeline(null); // merged profiles have no single order
        }
        profile = transform.apply(profile);
        ViewerData data = ViewerData.of(profile, noSources ? java.util.Map.of()
                : SourceFiles.read(ViewerData.sourceFiles(profile), sourcePath));
        ViewerPage.Options page = new ViewerPage.Options(title != null ? title : String.join(" → ", ins), ins, valueType);
        return emit(List.of(data), List.of(), page, err);
    }

    /** The JFR event aliases a file holds with stack traces (empty for stdin or another format). */
    private List<String> jfrEvents(String in) throws Exception {
        if (in.equals("-")) {
            return List.of();
        }
        try (ProfileLoader.Source source = ProfileLoader.open(in, from)) {
            return source.format() instanceof org.stackfold.format.jfr.JfrFormat
                    ? org.stackfold.format.jfr.JfrFormat.eventsWithStacks(source.input()) : List.of();
        }
    }

    /**
     * {@code view A B [C...]}: one page holding every profile, compared inside the page; with events,
     * input k is read as the JFR event events[k] (one recording, several profiles).
     */
    private Integer compare(List<String> ins, List<String> names, List<String> events, FormatOptions options,
                            PrintWriter err) throws Exception {
        ProfileLoader.checkStdinOnce(names);
        List<ViewerData> datas = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        for (int k = 0; k < ins.size(); k++) {
            String in = ins.get(k);
            if (events != null) {
                options.set("event", events.get(k));
            }
            Profile p;
            try {
                p = ProfileLoader.load(in, options, from);
            } catch (OutOfMemoryError e) {
                throw new InputException("out of memory reading the profile; raise the heap with STACKFOLD_HEAP=4g");
            }
            p = transform.apply(p);
            datas.add(ViewerData.of(p, noSources ? java.util.Map.of()
                    : SourceFiles.read(ViewerData.sourceFiles(p), sourcePath)));
            labels.add(events == null ? in : in + " · " + events.get(k));
        }
        ViewerPage.Options page = new ViewerPage.Options(title != null ? title : String.join(" | ", names), names, null);
        return emit(datas, labels, page, err);
    }

    private Integer emit(List<ViewerData> datas, List<String> labels, ViewerPage.Options page, PrintWriter err)
            throws Exception {
        if (serve) {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            ViewerPage.write(datas, labels, page, buf);
            try (ViewerServer server = ViewerServer.start(buf.toByteArray(), port)) {
                err.println("stackfold: serving the viewer at " + server.url() + " (Ctrl+C stops)");
                err.flush();
                Thread.currentThread().join();
            }
            return 0;
        }
        try (AtomicOutput out = AtomicOutput.open(output, Main.stdout())) {
            ViewerPage.write(datas, labels, page, out.stream());
            out.commit();
        }
        return 0;
    }

    private static Profile last(Profile p) {
        return p.tree().isDifferential() ? Columns.select(p, 1) : p;
    }
}
