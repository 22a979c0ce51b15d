package org.stackfold.cli;

import org.stackfold.format.FormatOptions;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Options every command that reads profiles shares. */
final class ReadOptions {
    @Option(names = "--lenient", description = "Skip bad lines (and say how many) instead of failing.")
    boolean lenient;

    @Option(names = "--from", paramLabel = "FORMAT",
            description = "Input format, when neither content nor file name tells (folded, diff-folded, ...).")
    String from;

    @Option(names = "--threads", paramLabel = "N", description = "Parser threads (default: one per core).")
    Integer threads;

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    FormatOptions formatOptions() {
        return FormatOptions.none().set("lenient", lenient).set("threads", threads)
                .withWarnings(Warnings.to(command));
    }
}
