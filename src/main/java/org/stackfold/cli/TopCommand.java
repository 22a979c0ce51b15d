package org.stackfold.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import org.stackfold.analysis.TopFunctions;
import org.stackfold.analysis.Units;
import org.stackfold.io.PlainFormat;
import org.stackfold.io.Printable;
import org.stackfold.model.Profile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "top", mixinStandardHelpOptions = true,
        description = {"Functions with their self and total samples and percentages.",
                "Total counts a sample once per function even where the function recurses."},
        footer = {"", "Examples:", "  stackfold top profile.folded", "  stackfold top --sort total -n 50 profile.folded"})
final class TopCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "IN", description = "Profiles, merged ('-' for stdin).")
    List<String> inputs;

    @Option(names = "--sort", paramLabel = "self|total", description = "Order by self (default) or total samples.")
    TopFunctions.Sort sort = TopFunctions.Sort.SELF;

    @Option(names = {"-n", "--limit"}, paramLabel = "N", description = "Rows to show (default ${DEFAULT-VALUE}).")
    int limit = 20;

    @Mixin
    ReadOptions read;

    @Mixin
    TransformOptions transform;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (limit < 1) {
            throw new org.stackfold.io.UsageException("-n must be at least 1, not " + limit);
        }
        Profile p = transform.apply(ProfileLoader.loadMerged(inputs, read.formatOptions(), read.from));
        int column = p.tree().weights() - 1;
        TopFunctions.Table table = TopFunctions.of(p, column);
        print(spec.commandLine().getOut(), table, sort, limit,
                Units.of(p.valueTypes().get(column), table.samples()));
        return 0;
    }

    static void print(PrintWriter out, TopFunctions.Table table, TopFunctions.Sort sort, int limit) {
        print(out, table, sort, limit, Units.of(org.stackfold.model.Profile.ValueType.SAMPLES, table.samples()));
    }

    /** Values in {@code units}: named in the header where they are not samples ("SELF ms"). */
    static void print(PrintWriter out, TopFunctions.Table table, TopFunctions.Sort sort, int limit, Units units) {
        long total = table.samples();
        String unit = units.isSamples() ? "" : " " + units.label();
        out.print(PlainFormat.of("%12s %7s %12s %7s  %s%n", "SELF" + unit, "SELF%", "TOTAL" + unit, "TOTAL%",
                "FUNCTION"));
        for (TopFunctions.Row r : TopFunctions.sorted(table, sort, limit)) {
            out.print(PlainFormat.of("%12s %6.2f%% %12s %6.2f%%  %s%n", units.number(r.self()), pct(r.self(), total),
                    units.number(r.total()), pct(r.total(), total), Printable.of(r.name()))); // a name must not add a line
        }
        out.print(PlainFormat.of("%s, %d functions%n", units.amount(total), table.rows().size()));
    }

    private static double pct(long part, long total) {
        return total == 0 ? 0 : 100.0 * part / total;
    }
}
