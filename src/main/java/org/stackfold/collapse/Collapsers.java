package org.stackfold.collapse;

import java.util.ArrayList;
import java.io.IOException;
import java.util.List;
import java.util.function.Consumer;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.Profile;

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

    /**
     * Collapses an input with {@code c}, as every command does: where not one record parsed, the
     * input is not this format, and that is a one-line error saying what it looks like (the
     * collapser's own warnings about it are then left out, so the error stays one line).
     */
    public static Profile collapse(Collapser c, Input in, FormatOptions options, Consumer<String> warnings)
            throws IOException {
        if (c instanceof GuessCollapser) {
            return c.collapse(in, options, warnings); // no match is already its error
        }
        byte[] head = in.head(NoRecords.HEAD);
        List<String> held = new ArrayList<>();
        Profile p = c.collapse(in, options, held::add);
        if (p.isEmpty()) {
            throw NoRecords.error(c, in.name(), head);
        }
        held.forEach(warnings);
        return p;
    }

    public static Collapser byName(String name) {
        for (Collapser c : ALL) {
            if (c.name().equalsIgnoreCase(name)) {
                return c;
            }
        }
        throw new org.stackfold.io.UsageException("unknown collapse format '" + name + "'; known: "
                + String.join(", ", ALL.stream().map(Collapser::name).toList()));
    }
}
