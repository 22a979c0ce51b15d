package org.stackfold.cli;

import java.util.List;
import java.util.concurrent.Callable;
import org.stackfold.analysis.Diff;
import org.stackfold.format.folded.FoldedWriter;
import org.stackfold.io.AtomicOutput;
import org.stackfold.model.Profile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "diff", mixinStandardHelpOptions = true,
        description = {"Make a differential folded profile from two profiles, as difffolded.pl does:",
                "each stack with its BEFORE and AFTER counts (0 where missing)."},
        footer = {"", "Examples:",
                "  stackfold diff before.folded after.folded -o change.diff.folded",
                "  stackfold diff --normalize --strip-hex old.folded new.folded | stackfold flamegraph - > diff.svg"})
final class DiffCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "BEFORE")
    String before;

    @Parameters(index = "1", paramLabel = "AFTER")
    String after;

    @Option(names = {"-n", "--normalize"}, description = "Scale BEFORE's counts to AFTER's total first.")
    boolean normalize;

    @Option(names = {"-s", "--strip-hex"}, description = "Replace hex addresses (0x...) in names before matching.")
    boolean stripHex;

    @Option(names = {"-o", "--output"}, paramLabel = "OUT", description = "Output file (default stdout).")
    String output;

    @Mixin
    ReadOptions read;

    @Mixin
    TransformOptions transform;

    @Override
    public Integer call() throws Exception {
        // The transforms apply to each side before they are matched (a --map makes names of two builds one).
        Profile a = transform.apply(ProfileLoader.load(before, read.formatOptions(), read.from));
        Profile b = transform.apply(ProfileLoader.load(after, read.formatOptions(), read.from));
        Profile diff = Diff.of(lastColumn(a), lastColumn(b), normalize, stripHex);
        try (AtomicOutput out = AtomicOutput.open(output, Main.stdout())) {
            new FoldedWriter(true).write(diff, out.stream());
            out.commit();
        }
        return 0;
    }

    private static Profile lastColumn(Profile p) {
        return p.tree().isDifferential() ? org.stackfold.transform.Columns.select(p, 1) : p;
    }
}
