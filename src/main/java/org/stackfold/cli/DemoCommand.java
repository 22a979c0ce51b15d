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
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Show what Stackfold does on a bundled example profile (a Java server under perf):",
                "prints its top functions and writes its flame graph."},
        footer = {"", "Examples:", "  stackfold demo", "  stackfold demo -o /tmp/vertx.svg"})
final class DemoCommand implements Callable<Integer> {
    private static final String EXAMPLE = "/org/stackfold/examples/vertx.folded";

    @Option(names = {"-o", "--output"}, paramLabel = "OUT.svg", description = "Flame graph file (default ${DEFAULT-VALUE}).")
    String output = "stackfold-demo.svg";

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        byte[] data;
        try (InputStream in = DemoCommand.class.getResourceAsStream(EXAMPLE)) {
            data = in.readAllBytes();
        }
        Profile p;
        try (Input in = Input.ofBytes("vertx.folded (bundled example)", data)) {
            p = FoldedReader.plain().read(in).profile();
        }
        PrintWriter out = spec.commandLine().getOut();
        TopFunctions.Table table = TopFunctions.of(p, 0);
        out.printf(Locale.ROOT, "Example profile: %d samples, %d functions. Top 10 by self samples:%n%n",
                table.samples(), table.rows().size());
        TopCommand.print(out, table, TopFunctions.Sort.SELF, 10);
        FlameGraphOptions options = new FlameGraphOptions();
        options.palette = org.stackfold.render.flamegraph.Palette.JAVA;
        options.title = "Flame Graph: bundled example (Vert.x under perf)";
        try (AtomicOutput svg = AtomicOutput.open(output, Main.stdout())) {
            FlameGraph.render(p, options, svg.stream(), w -> { });
            svg.commit();
        }
        if (!"-".equals(output)) {
            out.printf(Locale.ROOT, "%nFlame graph written to %s: open it in a browser, click a frame to zoom,"
                    + " Ctrl-F to search.%n", output);
        }
        return 0;
    }
}
