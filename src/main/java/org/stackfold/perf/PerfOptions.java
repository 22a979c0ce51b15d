package org.stackfold.perf;

import java.util.ArrayList;
import java.util.List;
import org.stackfold.format.FormatOptions;

/**
 * What {@code stackfold collapse perf} was asked to do. Names follow stackcollapse-perf.pl and
 * inferno-collapse-perf; {@link #from(FormatOptions)} reads them from the CLI's option map.
 *
 * @param pid          root frame {@code comm-PID}
 * @param tid          root frame {@code comm-PID/TID} (PID is {@code ?} where perf printed one id)
 * @param kernel       append {@code _[k]} to kernel frames
 * @param jit          append {@code _[j]} to JIT frames (perf map files, jitdump {@code jitted-*.so})
 * @param addrs        unresolved symbols become {@code [module <pc>]} instead of {@code [module]}
 * @param eventFilter  only samples of this event; null = the first event in the input
 * @param skipAfter    function names: frames below (callers of) the first match are dropped, and the
 *                     process root with them (inferno's {@code --skip-after})
 * @param inline       frames of ELF files with DWARF get their inlined frames (org.stackfold.symbolize)
 * @param context      with {@code inline}: FILE:LINE after each expanded frame
 * @param srcline      input is {@code perf script -F+srcline}: source lines follow frames
 * @param perlCompat   reproduce stackcollapse-perf.pl's names: delete quotes, perl's argument
 *                     stripping, no Rust repair, perl's kernel/JIT module tests, perl's srcline order
 * @param lenient      skip unrecognised lines and count them instead of failing
 * @param threads      worker threads (default: available processors)
 * @param chunkBytes   smallest input range worth a thread of its own (tests lower it)
 * @param countSamples each sample counts 1, not its period (perf script's period field)
 * @param kallsyms     perf.data: name kernel frames from this kallsyms file (perf's {@code --kallsyms}),
 *                     without the kernel build-id check; null = this machine's /proc/kallsyms, checked
 */
public record PerfOptions(boolean pid, boolean tid, boolean kernel, boolean jit, boolean addrs,
                          String eventFilter, List<String> skipAfter, boolean inline, boolean context,
                          boolean srcline, boolean perlCompat, boolean lenient, int threads,
                          long chunkBytes, boolean countSamples, String kallsyms) {
    /**
     * Each range builds its own line cache, stack cache and tree, and the trees are merged: a second
     * range cost 0.09 s more CPU on the 419 MB benchmark (1.06 s against 0.97 s, whole process),
     * for 0.28 s less wall time. CPU is the bar (issue 13), so a file gets a second thread from
     * 1 GiB on (docs/performance.md, round perfcpu).
     */
    public static final long DEFAULT_CHUNK_BYTES = 512L << 20;

    public PerfOptions {
        skipAfter = List.copyOf(skipAfter);
        threads = Math.max(1, threads);
        chunkBytes = Math.max(1, chunkBytes);
    }

    public static PerfOptions defaults() {
        return new PerfOptions(false, false, false, false, false, null, List.of(), false, false, false,
                false, false, Runtime.getRuntime().availableProcessors(), DEFAULT_CHUNK_BYTES, false, null);
    }

    /**
     * Reads the option map: {@code pid tid kernel jit all addrs inline context srcline perl-compat
     * lenient} (booleans), {@code event-filter}, {@code kallsyms} (strings), {@code skip-after} (names separated by
     * newlines), {@code threads}, {@code chunk-bytes}.
     */
    public static PerfOptions from(FormatOptions o) {
        boolean all = o.flag("all");
        List<String> skip = new ArrayList<>();
        String s = o.get("skip-after", "");
        for (String name : s.split("\n")) {
            if (!name.isEmpty()) {
                skip.add(name);
            }
        }
        String filter = o.get("event-filter", null);
        if (filter != null && filter.isEmpty()) {
            filter = null;
        }
        String kallsyms = o.get("kallsyms", null);
        if (kallsyms != null && kallsyms.isEmpty()) {
            kallsyms = null;
        }
        return new PerfOptions(o.flag("pid"), o.flag("tid"), o.flag("kernel") || all, o.flag("jit") || all,
                o.flag("addrs"), filter, skip, o.flag("inline"), o.flag("context"), o.flag("srcline"),
                o.flag("perl-compat"), o.flag("lenient"),
                (int) o.getLong("threads", Runtime.getRuntime().availableProcessors()),
                o.getLong("chunk-bytes", DEFAULT_CHUNK_BYTES), o.flag("count-samples"), kallsyms);
    }
}
