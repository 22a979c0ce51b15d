package org.stackfold.cli;

import java.util.concurrent.Callable;
import org.stackfold.collapse.Collapser;
import org.stackfold.collapse.Collapsers;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.folded.FoldedWriter;
import org.stackfold.io.AtomicOutput;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "collapse", mixinStandardHelpOptions = true,
        description = {"Turn a profiler's output into folded stacks, as stackcollapse-*.pl and inferno-collapse-* do."},
        footer = {"", "Examples:",
                "  perf script | stackfold collapse perf - > out.folded",
                "  stackfold collapse perf --pid --kernel perf.txt -o out.folded"})
final class CollapseCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FORMAT", description = "Input format: perf, dtrace, ... or guess.")
    String format;

    @Parameters(index = "1", paramLabel = "IN", defaultValue = "-", description = "Input file (default stdin).")
    String input;

    @Option(names = {"-o", "--output"}, paramLabel = "OUT", description = "Output file (default stdout).")
    String output;

    @Option(names = "--lenient", description = "Skip lines that cannot be parsed and say how many.")
    boolean lenient;

    FormatOptions options() {
        FormatOptions o = FormatOptions.none().set("lenient", lenient);
        // Format-specific options are added to the map here.
        return o;
    }

    @Override
    public Integer call() throws Exception {
        Collapser c = Collapsers.byName(format);
        Profile p;
        try (Input in = Input.open(input)) {
            p = c.collapse(in, options(), w -> System.err.println("stackfold: warning: " + w));
        }
        try (AtomicOutput out = AtomicOutput.open(output, Main.stdout())) {
            new FoldedWriter(false).write(p, out.stream());
            out.commit();
        }
        return 0;
    }
}
