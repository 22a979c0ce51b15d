package org.stackfold.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.stackfold.analysis.TopFunctions;
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

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (limit < 1) {
            throw new org.stackfold.io.UsageException("-n must be at least 1, not " + limit);
        }
        Profile p = ProfileLoader.loadMerged(inputs, read.formatOptions(), read.from);
        int column = p.tree().weights() - 1;
        TopFunctions.Table table = TopFunctions.of(p, column);
        print(spec.commandLine().getOut(), table, sort, limit);
        return 0;
    }

    static void print(PrintWriter out, TopFunctions.Table table, TopFunctions.Sort sort, int limit) {
        long total = table.samples();
        out.printf(Locale.ROOT, "%12s %7s %12s %7s  %s%n", "SELF", "SELF%", "TOTAL", "TOTAL%", "FUNCTION");
        for (TopFunctions.Row r : TopFunctions.sorted(table, sort, limit)) {
            out.printf(Locale.ROOT, "%12d %6.2f%% %12d %6.2f%%  %s%n", r.self(), pct(r.self(), total), r.total(),
                    pct(r.total(), total), r.name());
        }
        out.printf(Locale.ROOT, "%d samples, %d functions%n", total, table.rows().size());
    }

    private static double pct(long part, long total) {
        return total == 0 ? 0 : 100.0 * part / total;
    }
}
