package org.stackfold.cli;

import org.stackfold.format.FormatOptions;
import org.stackfold.io.UsageException;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Options every command that reads profiles shares. */
final class ReadOptions {
    /** More parser threads than this only costs memory: the parsers are bound by memory bandwidth. */
    static final int MAX_THREADS = 256;

    @Option(names = "--lenient", description = "Skip bad lines (and say how many) instead of failing.")
    boolean lenient;

    @Option(names = "--from", paramLabel = "FORMAT",
            description = "Input format, when neither content nor file name tells (folded, diff-folded, perf, ...).")
    String from;

    @Option(names = "--threads", paramLabel = "N", description = "Parser threads (default: one per core; at most 256).")
    Integer threads;

    @Mixin
    InputOptions input;

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    FormatOptions formatOptions() {
        if (threads != null && (threads < 1 || threads > MAX_THREADS)) {
            throw new UsageException("--threads must be between 1 and " + MAX_THREADS + ", not " + threads);
        }
        return input.apply(FormatOptions.none().set("lenient", lenient).set("threads", threads)
                .withWarnings(Warnings.to(command)));
    }
}
