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

    // ---- Tachyon (CPython profiling.sampling --binary) options: see docs/formats/tachyon.md ----
    @Option(names = "--tachyon-naming", paramLabel = "STYLE",
            description = "Tachyon frame text: cpython (default, basename:function:line), function, file, line, raw.")
    String tachyonNaming;

    @Option(names = "--tachyon-stacks", paramLabel = "per-thread|merged",
            description = "Tachyon: a tid:N root per thread (default, as CPython) or all threads merged.")
    String tachyonStacks;

    @Option(names = "--tachyon-threads", paramLabel = "TID[,TID...]", description = "Tachyon: keep only these thread ids.")
    String tachyonThreads;

    @Option(names = "--tachyon-status", paramLabel = "FLAG[,FLAG...]",
            description = "Tachyon: keep samples with all these flags (on-cpu, gil, gil-wait, exception, main-thread;"
                    + " prefix no- to exclude).")
    String tachyonStatus;

    @Option(names = "--tachyon-from", paramLabel = "SECONDS", description = "Tachyon: keep samples from this time after the start.")
    String tachyonFrom;

    @Option(names = "--tachyon-to", paramLabel = "SECONDS", description = "Tachyon: keep samples before this time after the start.")
    String tachyonTo;

    @Option(names = "--tachyon-keep-internal", description = "Tachyon: keep the profiler's own _sync_coordinator.py frames.")
    boolean tachyonKeepInternal;

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
        return o.set("tachyon.naming", tachyonNaming).set("tachyon.stacks", tachyonStacks)
                .set("tachyon.threads", tachyonThreads).set("tachyon.status", tachyonStatus)
                .set("tachyon.from", tachyonFrom).set("tachyon.to", tachyonTo)
                .set("tachyon.keep-internal", tachyonKeepInternal ? true : null).set("compression", compression)
                .set("tachyon.byte-order", tachyonByteOrder).set("tachyon.interval", tachyonInterval);
    }
    // ---- end of Tachyon options ----

    // ---- Options of the JFR, speedscope and pprof formats (format.jfr / .speedscope / .pprof) ----
    @Option(names = "--event", paramLabel = "EVENT",
            description = "JFR: events to read: cpu (default), cputime, native, alloc, lock, wait, park, or a full event name; "
                    + "several of one unit with commas (cpu,native).")
    String event;

    @Option(names = "--thread-frames",
            description = "JFR, speedscope, pprof: put each sample's thread (speedscope: profile name) as its root frame.")
    boolean threadFrames;

    @Option(names = "--lines", description = "JFR, pprof: one frame per source line (name:LINE).")
    boolean lines;

    @Option(names = "--bci", description = "JFR: one frame per bytecode index (name@BCI).")
    boolean bci;

    @Option(names = "--timeline",
            description = "JFR: keep sample events in time order per thread (speedscope output then has one profile per thread).")
    boolean timeline;

    @Option(names = "--sample-type", paramLabel = "TYPE",
            description = "pprof: sample type to read, by name or index (default: the file's default, else the last).")
    String sampleType;

    @Option(names = "--profile", paramLabel = "NAME",
            description = "speedscope: read only this profile (name or index); default: all, merged.")
    String profileName;

    @Option(names = "--name", paramLabel = "NAME",
            description = "speedscope: the name written into the file (default: the first input's file name).")
    String fileName;

    private FormatOptions addFormatOptions(FormatOptions o) {
        return o.set("event", event).set("thread-frames", threadFrames).set("lines", lines).set("bci", bci)
                .set("timeline", timeline)
                .set("sample-type", sampleType).set("profile", profileName)
                .set("name", fileName != null || inputs.getFirst().equals("-") ? fileName
                        : java.nio.file.Path.of(inputs.getFirst()).getFileName().toString());
    }
    // ---- end of JFR, speedscope and pprof options ----

    @Override
    public Integer call() throws Exception {
        FormatOptions opts = addFormatOptions(tachyonOptions(read.formatOptions())).set("annotate", annotate);
        if (org.stackfold.format.tachyon.TachyonConvert.tryDirect(inputs, output, to, read.from, opts, Main.stdout())) {
            return 0;
        }
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
