package org.stackfold.cli;

import org.stackfold.format.FormatOptions;
import picocli.CommandLine.Option;

/**
 * How inputs are read, for every command that reads profiles: the limit on streamed and
 * decompressed bytes, and the options of the formats that hold more than one view of a profile
 * (JFR events, pprof sample types, speedscope profiles, Tachyon threads and status). The same
 * options mean the same in convert, top, info, fold, diff, flamegraph and view.
 */
final class InputOptions {
    @picocli.CommandLine.Mixin
    InputLimit limit;

    // ---- JFR, pprof, speedscope (format.jfr / .pprof / .speedscope) ----
    @Option(names = "--event", paramLabel = "EVENT",
            description = "JFR: events to read: cpu (default), cputime, native, alloc, wall, lock, wait, park, or a full event name; "
                    + "several of one unit with commas (cpu,native). Callgrind: the event by name or index (default the first).")
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

    @Option(names = "--all-frames",
            description = "pprof: keep the frames the profile's drop_frames would remove (pprof's -all_frames).")
    boolean allFrames;

    @Option(names = "--profile", paramLabel = "NAME",
            description = "speedscope: read only this profile (name or index); default: all, merged.")
    String profileName;

    // ---- Tachyon (CPython profiling.sampling --binary): see docs/formats/tachyon.md ----
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

    @Option(names = "--kallsyms", paramLabel = "FILE",
            description = "perf.data: name kernel frames from this kallsyms file (as perf report --kallsyms),"
                    + " not this machine's /proc/kallsyms; the kernel build-id check is not applied to it.")
    String kallsyms;

    /** Adds these options to {@code o} and sets the input limit. */
    FormatOptions apply(FormatOptions o) {
        limit.apply();
        return o.set("event", event).set("kallsyms", kallsyms).set("thread-frames", threadFrames).set("lines", lines).set("bci", bci)
                .set("timeline", timeline).set("sample-type", sampleType).set("profile", profileName)
                .set("all-frames", allFrames ? true : null)
                .set("tachyon.naming", tachyonNaming).set("tachyon.stacks", tachyonStacks)
                .set("tachyon.threads", tachyonThreads).set("tachyon.status", tachyonStatus)
                .set("tachyon.from", tachyonFrom).set("tachyon.to", tachyonTo)
                .set("tachyon.keep-internal", tachyonKeepInternal ? true : null);
    }
}
