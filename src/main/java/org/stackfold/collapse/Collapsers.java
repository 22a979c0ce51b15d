package org.stackfold.collapse;

import java.util.ArrayList;
import java.util.List;
import org.stackfold.io.InputException;

/** The registry of collapsers, in the order {@code collapse guess} tries them. */
public final class Collapsers {
    private static final List<Collapser> ALL = new ArrayList<>(List.of(
            // Collapsers register here.
            // guess tries them in this order (inferno's: dtrace, perf, sample, vtune, vsprof, xctrace, ghcprof)
            new DtraceCollapser(),
            new PerfSchedCollapser(), // perf script text too: before perf, taken only with sched_stat events
            new org.stackfold.collapse.perf.PerfCollapser(),
            new SampleCollapser(),
            new VtuneCollapser(),
            new VsprofCollapser(),
            new GhcprofCollapser(),
            new XctraceCollapser(),
            new BpftraceCollapser(),
            // FlameGraph's other collapsers (stackcollapse-*.pl), each detected by content
            new JstackCollapser(),
            new IbmjavaCollapser(),
            new GdbCollapser(),
            new ElfutilsCollapser(),
            new FaulthandlerCollapser(),
            new StapCollapser(),
            new GoCollapser(),
            new ChromeTracingCollapser(),
            new InstrumentsCollapser(),
            new AixCollapser(),
            new PmcCollapser(),
            new LjpCollapser(),
            new WcpCollapser(),
            new VtuneMcCollapser(),
            new XdebugCollapser(),
            new JavaExceptionsCollapser(), // last: an exception in any log would do
            new BccCollapser(),
            new RecursiveCollapser(),
            new GuessCollapser()
    ));

    private Collapsers() {
    }

    public static List<Collapser> all() {
        return List.copyOf(ALL);
    }

    public static Collapser byName(String name) {
        for (Collapser c : ALL) {
            if (c.name().equalsIgnoreCase(name)) {
                return c;
            }
        }
        throw new InputException("unknown collapse format '" + name + "'; known: "
                + String.join(", ", ALL.stream().map(Collapser::name).toList()));
    }
}
