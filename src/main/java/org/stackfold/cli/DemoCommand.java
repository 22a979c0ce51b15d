package org.stackfold.cli;

import java.io.InputStream;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.stackfold.analysis.TopFunctions;
import org.stackfold.format.folded.FoldedReader;
import org.stackfold.io.AtomicOutput;
import org.stackfold.io.Input;
import org.stackfold.render.flamegraph.FlameGraph;
import org.stackfold.render.flamegraph.FlameGraphOptions;
import org.stackfold.model.Profile;
import org.stackfold.record.Privileges;
import org.stackfold.record.RecordOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Show what Stackfold does: record this machine for a few seconds with eBPF where the",
                "privileges allow (root or CAP_BPF and CAP_PERFMON), else take a bundled example profile",
                "(a Java server under perf); print its top functions and write its flame graph."},
        footer = {"", "Examples:", "  sudo stackfold demo", "  stackfold demo --bundled -o /tmp/vertx.svg"})
final class DemoCommand implements Callable<Integer> {
    private static final String EXAMPLE = "/org/stackfold/examples/vertx.folded";

    @Option(names = {"-o", "--output"}, paramLabel = "OUT.svg", description = "Flame graph file (default ${DEFAULT-VALUE}).")
    String output = "stackfold-demo.svg";

    @Option(names = "--bundled", description = "Use the bundled example even where recording is possible.")
    boolean bundled;

    @Option(names = {"-d", "--duration"}, paramLabel = "SECONDS", description = "How long to record (default ${DEFAULT-VALUE}).")
    double seconds = 3;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        String missing = bundled ? "--bundled" : Privileges.missing();
        if (missing == null) {
            out.printf(Locale.ROOT, "Recording this machine for %s s with eBPF (stackfold record -d %<s)...%n",
                    seconds);
            out.flush();
            Profile recorded = RecordCommand.record(RecordOptions.defaults().withSeconds(seconds),
                    spec.commandLine().getErr(), false, false);
            if (recorded.tree().totalSamples() > 0) {
                show(recorded, "This machine", "Flame Graph: this machine, " + seconds + " s (stackfold record)",
                        org.stackfold.render.flamegraph.Palette.HOT);
                return 0;
            }
            out.println("Nothing ran: no samples. Showing the bundled example instead.");
        } else if (!bundled) {
            out.println("Cannot record here (" + missing + "); showing the bundled example instead.");
        }
        byte[] data;
        try (InputStream in = DemoCommand.class.getResourceAsStream(EXAMPLE)) {
            data = in.readAllBytes();
        }
        Profile p;
        try (Input in = Input.ofBytes("vertx.folded (bundled example)", data)) {
            p = FoldedReader.plain().read(in).profile();
        }
        show(p, "Example profile", "Flame Graph: bundled example (Vert.x under perf)",
                org.stackfold.render.flamegraph.Palette.JAVA);
        return 0;
    }

    private void show(Profile p, String what, String title, org.stackfold.render.flamegraph.Palette palette)
            throws java.io.IOException {
        PrintWriter out = spec.commandLine().getOut();
        TopFunctions.Table table = TopFunctions.of(p, 0);
        out.printf(Locale.ROOT, "%s: %d samples, %d functions. Top 10 by self samples:%n%n",
                what, table.samples(), table.rows().size());
        TopCommand.print(out, table, TopFunctions.Sort.SELF, 10);
        FlameGraphOptions options = new FlameGraphOptions();
        options.palette = palette;
        options.title = title;
        try (AtomicOutput svg = AtomicOutput.open(output, Main.stdout())) {
            FlameGraph.render(p, options, svg.stream(), w -> { });
            svg.commit();
        }
        if (!"-".equals(output)) {
            out.printf(Locale.ROOT, "%nFlame graph written to %s: open it in a browser, click a frame to zoom,"
                    + " Ctrl-F to search.%n", output);
        }
    }
}
