package org.stackfold.cli;

import java.util.List;
import java.util.concurrent.Callable;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.Formats;
import org.stackfold.format.ProfileFormat;
import org.stackfold.format.tachyon.TachyonConvert;
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

    @Mixin
    TransformOptions transform;

    // ---- Output options of Tachyon (reading options are in InputOptions) ----
    @Option(names = "--compression", paramLabel = "none|zstd", description = "Tachyon output: sample-data compression (default zstd).")
    String compression;

    @Option(names = "--tachyon-byte-order", paramLabel = "little|big", description = "Tachyon output: byte order (default little).")
    String tachyonByteOrder;

    @Option(names = "--tachyon-interval", paramLabel = "MICROS",
            description = "Tachyon output from counts: microseconds between samples (default 1000).")
    Long tachyonInterval;

    @Option(names = "--annotate",
            description = "Folded output: mark frame kinds where the input knows them (JFR): _[k] kernel, _[j] JIT, _[i] inlined.")
    boolean annotate;

    private FormatOptions tachyonOptions(FormatOptions o) {
        return o.set("compression", compression)
                .set("tachyon.byte-order", tachyonByteOrder).set("tachyon.interval", tachyonInterval);
    }
    // ---- end of Tachyon options ----

    // ---- Output option of speedscope ----
    @Option(names = "--name", paramLabel = "NAME",
            description = "speedscope: the name written into the file (default: the first input's file name).")
    String fileName;

    private FormatOptions addFormatOptions(FormatOptions o) {
        return o.set("name", fileName != null || inputs.getFirst().equals("-") ? fileName
                        : java.nio.file.Path.of(inputs.getFirst()).getFileName().toString());
    }

    @Override
    public Integer call() throws Exception {
        FormatOptions opts = addFormatOptions(tachyonOptions(read.formatOptions())).set("annotate", annotate);
        ProfileLoader.checkStdinOnce(inputs);
        Profile p;
        try (ProfileLoader.Source first = ProfileLoader.open(inputs.getFirst(), read.from)) {
            if (inputs.size() == 1 && !transform.any() && TachyonConvert.tryDirect(first.input(), first.format(), output, to, opts, Main.stdout())) {
                return 0;
            }
            p = first.read(opts);
        }
        for (String name : inputs.subList(1, inputs.size())) {
            ProfileLoader.mergeInto(p, ProfileLoader.load(name, opts, read.from), name);
        }
        p = transform.apply(p);
        ProfileFormat target = Formats.forOutput(output, to, p.tree().isDifferential() ? "diff-folded" : "folded");
        if (!target.canWrite()) {
            throw new InputException("format " + target.name() + " cannot be written");
        }
        try (AtomicOutput out = Outputs.open(output, target)) {
            target.write(p, out.stream(), opts);
            out.commit();
        }
        return 0;
    }
}
