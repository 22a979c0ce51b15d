package org.stackfold.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.stackfold.fleet.query.FleetQuery;
import org.stackfold.format.Formats;
import org.stackfold.format.ProfileFormat;
import org.stackfold.io.AtomicOutput;
import org.stackfold.io.InputException;
import org.stackfold.io.PlainFormat;
import org.stackfold.io.UsageException;
import org.stackfold.model.Profile;
import org.stackfold.render.flamegraph.FlameGraph;
import org.stackfold.render.flamegraph.FlameGraphOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "query", mixinStandardHelpOptions = true,
        description = {"Ask a fleet table (written by 'stackfold store') with DuckDB, in-process.",
                "Columns: time, date, service, host, labels, profile, stack, leaf, value (docs/fleet.md)."},
        footer = {"", "Examples:",
                "  stackfold query fleet --where \"service='api' and time >= '2026-11-01'\" -o api.svg",
                "  stackfold query fleet --label service=api --label version=1 --diff-label version=2 -o diff.svg",
                "  stackfold query fleet --top 20 --by host",
                "  stackfold query fleet --sql \"SELECT service, count(DISTINCT profile) FROM samples GROUP BY ALL\""})
final class QueryCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "DIR", description = "The table directory.")
    Path dir;

    @Option(names = "--where", paramLabel = "SQL",
            description = "Which rows: one SQL condition (default all); statements of one's own go to --sql.")
    String where;

    @Option(names = "--label", paramLabel = "NAME=VALUE",
            description = "Only rows with this label, matched exactly (repeatable; with --where, both hold).")
    List<String> labels = new java.util.ArrayList<>();

    @Option(names = "--diff-where", paramLabel = "SQL",
            description = "Rows of the 'after' side: the output is a differential profile, --where's rows before.")
    String diffWhere;

    @Option(names = "--diff-label", paramLabel = "NAME=VALUE",
            description = "Rows of the 'after' side carry this label (repeatable): the output is a differential profile, "
                    + "--label's rows before.")
    List<String> diffLabels = new java.util.ArrayList<>();

    @Option(names = {"-o", "--output"}, paramLabel = "OUT",
            description = "The merged profile: .svg draws a flame graph, other names pick a format like 'convert' (default folded to stdout).")
    String output;

    @Option(names = "--to", paramLabel = "FORMAT", description = "Output format (default: by OUT's name, else folded).")
    String to;

    @Option(names = "--top", paramLabel = "N", description = "Print the N values of --by with the most samples.")
    Integer top;

    @Option(names = "--by", paramLabel = "COLUMN", description = "Column for --top: function (the leaf frame, default), host, service, date, ...")
    String by = "function";

    @Option(names = "--sql", paramLabel = "SQL", description = "Run SQL over the view 'samples'; prints tab-separated rows.")
    String sql;

    @Option(names = "--compact", paramLabel = "HOST", description = {"Rewrite the files the agent of HOST stored (record --every"
            + " --store) into one a partition now,", "as the agent does each hour; prints what it did (docs/fleet.md)."})
    String compact;

    @picocli.CommandLine.Mixin
    TransformOptions transform;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        String before = FleetQuery.and(where, FleetQuery.labelCondition(org.stackfold.fleet.store.Labels.map(labels)));
        String after = null;
        if (diffWhere != null || !diffLabels.isEmpty()) {
            // The after side: --diff-where (else --where) and --diff-label (else --label).
            after = FleetQuery.and(diffWhere != null ? diffWhere : where, FleetQuery.labelCondition(
                    org.stackfold.fleet.store.Labels.map(diffLabels.isEmpty() ? labels : diffLabels)));
            if (after == null) {
                after = "true";
            }
        }
        return run(before, after);
    }

    private int run(String where, String diffWhere) throws Exception {
        if (compact != null) {
            if (sql != null || top != null || diffWhere != null || output != null || where != null) {
                throw new UsageException("--compact goes alone");
            }
            if (!java.nio.file.Files.isDirectory(dir)) {
                throw new InputException(dir + ": not a table directory");
            }
            org.stackfold.fleet.store.Compactor.Result r = org.stackfold.fleet.store.Compactor.compact(dir,
                    org.stackfold.fleet.store.Compactor.writerId(compact), java.time.Instant.now(), () -> false);
            spec.commandLine().getOut().println(r.describe());
            return r.locked() ? 1 : 0;
        }
        if (sql != null && (top != null || diffWhere != null || output != null || this.where != null || !labels.isEmpty())) {
            throw new UsageException("--sql goes alone");
        }
        if (top != null && (top < 1 || diffWhere != null || output != null)) {
            throw new UsageException(top < 1 ? "--top must be at least 1" : "--top prints a table; it takes no --diff-where or -o");
        }
        PrintWriter out = spec.commandLine().getOut();
        try (FleetQuery q = FleetQuery.open(dir)) {
            if (sql != null) {
                for (List<String> row : q.sql(sql)) {
                    // Values from the table are escaped: a control byte in a stored name cannot drive the
                    // terminal, nor a tab or line end forge a column or a row.
                    out.println(String.join("\t", row.stream().map(org.stackfold.io.Printable::of).toList()));
                }
                return 0;
            }
            if (top != null) {
                long total = q.samples(where);
                printTop(out, q.top(top, by, where), total, by);
                return 0;
            }
            Profile p = transform.apply(diffWhere == null ? q.merge(where) : q.diff(where, diffWhere));
            if (p.tree().totalSamples(0) == 0 && (diffWhere == null || p.tree().totalSamples(1) == 0)) {
                throw new InputException(dir + ": no samples match");
            }
            write(p, where, diffWhere);
        }
        return 0;
    }

    private void write(Profile p, String where, String diffWhere) throws Exception {
        // x.svg.gz is a compressed SVG (AtomicOutput compresses by the name), not folded text under that name.
        boolean svg = to == null ? output != null && output.toLowerCase(Locale.ROOT).replaceFirst("\\.(gz|zst)$", "").endsWith(".svg")
                : to.equals("svg");
        if (svg) {
            FlameGraphOptions o = new FlameGraphOptions();
            o.title = diffWhere == null ? "Flame Graph" : "Differential Flame Graph";
            o.subtitle = where == null ? null : diffWhere == null ? where : where + "  \u2192  " + diffWhere;
            try (AtomicOutput out = AtomicOutput.open(output, Main.stdout())) {
                FlameGraph.render(p, o, out.stream(), spec.commandLine().getErr()::println);
                out.commit();
            }
            return;
        }
        ProfileFormat target = Formats.forOutput(output, to, p.tree().isDifferential() ? "diff-folded" : "folded");
        if (!target.canWrite()) {
            throw new InputException("format " + target.name() + " cannot be written");
        }
        try (AtomicOutput out = Outputs.open(output, target)) {
            target.write(p, out.stream(), org.stackfold.format.FormatOptions.none());
            out.commit();
        }
    }

    static void printTop(PrintWriter out, List<FleetQuery.Top> rows, long total, String by) {
        out.print(PlainFormat.of("%12s %7s  %s%n", "SAMPLES", "PCT", by.toUpperCase(Locale.ROOT)));
        for (FleetQuery.Top r : rows) {
            out.print(PlainFormat.of("%12d %6.2f%%  %s%n", r.samples(), total == 0 ? 0 : 100.0 * r.samples() / total,
                    org.stackfold.io.Printable.of(r.key())));
        }
        out.print(PlainFormat.of("%d samples%n", total));
    }
}
