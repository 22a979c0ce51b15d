package org.stackfold.cli;

import java.util.List;
import java.util.concurrent.Callable;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.Formats;
import org.stackfold.format.ProfileFormat;
import org.stackfold.io.AtomicOutput;
import org.stackfold.io.InputException;
import org.stackfold.model.Profile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "convert", mixinStandardHelpOptions = true,
        description = {"Convert profiles between formats. Formats are picked by content and file name;",
                "--from and --to force them."},
        footer = {"", "Examples:",
                "  stackfold convert profile.folded -o profile.folded.gz",
                "  stackfold convert --to diff-folded x.diff.txt"})
final class ConvertCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "IN", description = "Profiles, merged ('-' for stdin).")
    List<String> inputs;

    @Option(names = {"-o", "--output"}, paramLabel = "OUT", description = "Output file (default stdout).")
    String output;

    @Option(names = "--to", paramLabel = "FORMAT", description = "Output format (default: by OUT's name, else folded).")
    String to;

    @Mixin
    ReadOptions read;

    @Override
    public Integer call() throws Exception {
        FormatOptions opts = read.formatOptions();
        Profile p = ProfileLoader.loadMerged(inputs, opts, read.from);
        ProfileFormat target = Formats.forOutput(output, to, p.tree().isDifferential() ? "diff-folded" : "folded");
        if (!target.canWrite()) {
            throw new InputException("format " + target.name() + " cannot be written");
        }
        try (AtomicOutput out = AtomicOutput.open(output, Main.stdout())) {
            target.write(p, out.stream(), opts);
            out.commit();
        }
        return 0;
    }
}
