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
    @Parameters(index = "0", paramLabel = "FORMAT", description = "Input format: perf, dtrace, jstack, gdb, go, ... or guess (see docs/collapse.md).")
    String format;

    @Parameters(index = "1", paramLabel = "IN", defaultValue = "-", description = "Input file (default stdin).")
    String input;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = {"-o", "--output"}, paramLabel = "OUT", description = "Output file (default stdout).")
    String output;

    @Option(names = "--lenient", description = "Skip lines that cannot be parsed and say how many.")
    boolean lenient;

    @picocli.CommandLine.Mixin
    InputLimit limit;

    // ---- collapse perf (stackcollapse-perf.pl / inferno-collapse-perf options) ----------------
    @Option(names = "--pid", description = "perf: root frame is comm-PID. elfutils: a PID=n root frame.")
    boolean perfPid;

    @Option(names = "--tid", description = "perf: root frame is comm-PID/TID. elfutils: a TID=n frame.")
    boolean perfTid;

    @Option(names = "--kernel", description = "perf: append _[k] to kernel frames.")
    boolean perfKernel;

    @Option(names = "--jit", description = "perf: append _[j] to JIT frames (perf-PID.map, jitted-*.so).")
    boolean perfJit;

    @Option(names = "--all", description = "perf: --kernel and --jit.")
    boolean perfAll;

    @Option(names = "--addrs", description = "perf: unresolved symbols show their address: [module <addr>].")
    boolean perfAddrs;

    @Option(names = "--event-filter", paramLabel = "EVENT",
            description = "perf: count only this event (default: the first event in the input).")
    String perfEventFilter;

    @Option(names = "--skip-after", paramLabel = "FUNC",
            description = "perf: drop the callers of the first frame named FUNC, and the process root (repeatable).")
    java.util.List<String> perfSkipAfter = new java.util.ArrayList<>();

    @Option(names = "--inline", description = "perf: add the functions inlined into each frame of an ELF file with DWARF (as addr2line -i), tagged _[i].")
    boolean perfInline;

    @Option(names = "--context", description = "perf: with --inline, add :FILE:LINE to the expanded frames.")
    boolean perfContext;

    @Option(names = "--srcline", description = "perf: input is 'perf script -F+srcline'; add file:line to frames.")
    boolean perfSrcline;

    @Option(names = "--count-samples",
            description = "perf: count each sample once. By default a sample counts its period (perf script's period"
                    + " field: cycles, instructions...), as stackcollapse-perf.pl and inferno do.")
    boolean perfCountSamples;

    @Option(names = "--perl-compat",
            description = "perf: names exactly as stackcollapse-perf.pl makes them (quotes deleted, perl's argument stripping).")
    boolean perfPerlCompat;

    @Option(names = "--kallsyms", paramLabel = "FILE",
            description = "perf: perf.data input: name kernel frames from this kallsyms file (as perf report --kallsyms),"
                    + " not this machine's /proc/kallsyms; the kernel build-id check is not applied to it.")
    String perfKallsyms;

    private void perfOptions(FormatOptions o) {
        o.set("pid", perfPid).set("tid", perfTid).set("kernel", perfKernel).set("jit", perfJit)
                .set("all", perfAll).set("addrs", perfAddrs).set("event-filter", perfEventFilter)
                .set("skip-after", String.join("\n", perfSkipAfter)).set("inline", perfInline)
                .set("context", perfContext).set("srcline", perfSrcline).set("perl-compat", perfPerlCompat)
                .set("count-samples", perfCountSamples).set("kallsyms", perfKallsyms);
    }
    // ---- end collapse perf ----------------------------------------------------------------------

    FormatOptions options() {
        FormatOptions o = FormatOptions.none().set("lenient", lenient);
        // Format-specific options are added to the map here.
        perfOptions(o);
        otherFormatOptions(o);
        flameGraphOptions(o);
        return o;
    }

    // ---- Options of the formats other than perf (dtrace, sample, vtune, ghcprof, bpftrace, bcc) ----
    // Named as the peers name them (inferno-collapse-*, BCC profile); see docs/collapse.md.

    @Option(names = "--includeoffset", description = "dtrace, bpftrace: keep function offsets (+0x..) except on the leaf.")
    boolean includeOffset;

    @Option(names = "--no-modules", description = "sample, vtune: leave the module (library) name out of frames.")
    boolean noModules;

    @picocli.CommandLine.ArgGroup(exclusive = true, multiplicity = "0..1")
    GhcprofSource ghcSource;

    static final class GhcprofSource {
        @Option(names = "--time", description = "ghcprof: weigh by individual %%time, in tenths of a percent (default).")
        boolean time;

        @Option(names = "--ticks", description = "ghcprof: weigh by individual ticks (needs a +RTS -P profile).")
        boolean ticks;

        @Option(names = "--bytes", description = "ghcprof: weigh by individual bytes allocated (needs +RTS -P).")
        boolean bytes;
    }

    @Option(names = "--annotations", description = "bcc: tag the kernel frames after a '-' delimiter (profile -d) with _[k], as profile -a does.")
    boolean bccAnnotations;

    @Option(names = "--keep-delimiter", description = "bcc: keep the '-' frame that profile -d puts between user and kernel frames.")
    boolean bccKeepDelimiter;

    @Option(names = "--dedup-kernel-leaf", description = "bcc: drop a kernel leaf frame that repeats its caller (BCC prepends the sampled IP).")
    boolean bccDedupKernelLeaf;

    private void otherFormatOptions(FormatOptions o) {
        o.set("includeoffset", includeOffset)
                .set("nomodules", noModules)
                .set("source", ghcSource == null ? "time" : ghcSource.ticks ? "ticks" : ghcSource.bytes ? "bytes" : "time")
                .set("annotations", bccAnnotations)
                .set("keepdelimiter", bccKeepDelimiter)
                .set("dedupkernelleaf", bccDedupKernelLeaf);
    }
    // ---- end of the options of the formats other than perf ----

    // ---- Options of FlameGraph's other collapsers, named as its stackcollapse-*.pl name them ----
    @Option(names = "--include-tname", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "jstack, ibmjava: thread names as root frames (default on; --no-include-tname omits them).")
    boolean includeTname = true;

    @Option(names = "--include-tid", negatable = true,
            description = "jstack, ibmjava: keep thread ids in thread names (jstack: the -NUMBER suffix).")
    boolean includeTid;

    @Option(names = "--shorten-pkgs", negatable = true,
            description = "jstack, ibmjava, java-exceptions: shorten package names (org.example.Foo.bar -> o.e.Foo.bar).")
    boolean shortenPkgs;

    @Option(names = "--no-pkgs", description = "java-exceptions: leave package names out (Foo.bar).")
    boolean noPkgs;

    @Option(names = "--size", description = "vtune-mc: weigh by allocated bytes instead of allocation counts.")
    boolean vtuneMcSize;

    @Option(names = "-c", description = "xdebug: count calls (each leaf call once) instead of weighing by time.")
    boolean xdebugCount;

    @Option(names = "-t", description = "xdebug: weigh stacks by time in microseconds (the default).")
    boolean xdebugTime;

    @Option(names = {"--record-tid", "--record_tid"},
            description = "perf-sched: root frame comm-PID, and the waker comm-PID with the wake stack.")
    boolean schedRecordTid;

    @Option(names = {"--record-wake-stack", "--record_wake_stack"},
            description = "perf-sched: add the waking stack (leaf first) and the waker's name above the sleeping stack.")
    boolean schedRecordWakeStack;

    @Option(names = "--recurse",
            description = "perf-sched: also the waker's own last sleeping stack, after a '-' frame (implies --record-wake-stack).")
    boolean schedRecurse;

    private void flameGraphOptions(FormatOptions o) {
        o.set("includetname", includeTname).set("includetid", includeTid).set("shortenpkgs", shortenPkgs)
                .set("nopkgs", noPkgs).set("size", vtuneMcSize).set("count", xdebugCount && !xdebugTime)
                .set("record_tid", schedRecordTid).set("record_wake_stack", schedRecordWakeStack)
                .set("recurse", schedRecurse);
    }
    // ---- end of the options of FlameGraph's other collapsers ----

    @Override
    public Integer call() throws Exception {
        Collapser c = Collapsers.byName(format);
        limit.apply();
        Profile p;
        try (Input in = Input.open(input)) {
            // guess also takes the profile formats that content tells (callgrind, stackprof, ...)
            org.stackfold.format.ProfileFormat profile = c instanceof org.stackfold.collapse.GuessCollapser
                    ? org.stackfold.format.Formats.sniffed(in) : null;
            p = profile != null && !profile.name().endsWith("folded")
                    ? profile.read(in, options().withWarnings(Warnings.to(spec)))
                    : Collapsers.collapse(c, in, options(), Warnings.to(spec));
        }
        if (p.valueTypes().getFirst().unit().equals("events")) {
            // Folded text cannot carry a unit: say once that these counts are periods, not samples.
            spec.commandLine().getErr().println("stackfold: note: counts are " + p.valueTypes().getFirst().type()
                    + " (each sample weighs its period), not samples; --count-samples counts samples");
            spec.commandLine().getErr().flush();
        }
        try (AtomicOutput out = AtomicOutput.open(output, Main.stdout())) {
            // --perl-compat keeps perl's bytes, white space at the ends of names included
            new FoldedWriter(false, !perfPerlCompat).write(p, out.stream());
            out.commit();
        }
        return 0;
    }
}
