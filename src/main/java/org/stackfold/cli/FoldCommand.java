package org.stackfold.cli;

import java.util.List;
import java.util.concurrent.Callable;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.folded.FoldedWriter;
import org.stackfold.io.AsyncOutputStream;
import org.stackfold.io.AtomicOutput;
import org.stackfold.model.Profile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "fold", mixinStandardHelpOptions = true,
        description = "Merge and normalise folded files: duplicates summed, one space, sorted, final newline.",
        footer = {"", "Examples:",
                "  stackfold fold a.folded b.folded -o all.folded",
                "  zcat big.folded.gz | stackfold fold - > clean.folded",
                "  stackfold fold --lenient messy.txt -o clean.folded"})
final class FoldCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "IN", description = "Folded files ('-' for stdin).")
    List<String> inputs;

    @Option(names = {"-o", "--output"}, paramLabel = "OUT", description = "Output file (default stdout).")
    String output;

    @Mixin
    ReadOptions read;

    @Mixin
    TransformOptions transform;

    @Option(names = "--annotate", description = "Mark frame kinds where the input knows them: _[k] kernel, _[j] JIT, _[i] inlined.")
    boolean annotate;

    @Override
    public Integer call() throws Exception {
        Profile p = transform.apply(ProfileLoader.loadMerged(inputs, read.formatOptions(), read.from));
        try (AtomicOutput out = AtomicOutput.open(output, Main.stdout())) {
            try (AsyncOutputStream async = new AsyncOutputStream(out.stream())) {
                new FoldedWriter(p.tree().isDifferential()).annotatingKinds(annotate).consumingTree().write(p, async);
            }
            out.commit();
        }
        return 0;
    }
}
