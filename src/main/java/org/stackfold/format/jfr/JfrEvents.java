package org.stackfold.format.jfr;

import java.util.List;
import java.util.Locale;
import jdk.jfr.consumer.RecordedEvent;
import org.stackfold.model.Profile;

/**
 * The event types a JFR profile can be built from, by the short names {@code --event} takes. Each
 * says which JFR event names it reads and what one event weighs: 1 for samples, bytes for
 * allocations, nanoseconds for blocking events. Any other full event name (with a dot) is read
 * with weight 1 per event.
 */
record JfrEvents(String alias, List<String> eventNames, Profile.ValueType valueType, Weight weight) {
    enum Weight { ONE, ALLOCATION, DURATION }

    static final List<JfrEvents> KNOWN = List.of(
            new JfrEvents("cpu", List.of("jdk.ExecutionSample"), Profile.ValueType.SAMPLES, Weight.ONE),
            new JfrEvents("cputime", List.of("jdk.CPUTimeSample"), Profile.ValueType.SAMPLES, Weight.ONE),
            new JfrEvents("native", List.of("jdk.NativeMethodSample"), Profile.ValueType.SAMPLES, Weight.ONE),
            new JfrEvents("alloc", List.of("jdk.ObjectAllocationSample", "jdk.ObjectAllocationInNewTLAB",
                    "jdk.ObjectAllocationOutsideTLAB"), new Profile.ValueType("alloc_space", "bytes"), Weight.ALLOCATION),
            new JfrEvents("lock", List.of("jdk.JavaMonitorEnter"), new Profile.ValueType("lock", "nanoseconds"),
                    Weight.DURATION),
            new JfrEvents("wait", List.of("jdk.JavaMonitorWait"), new Profile.ValueType("wait", "nanoseconds"),
                    Weight.DURATION),
            new JfrEvents("park", List.of("jdk.ThreadPark"), new Profile.ValueType("park", "nanoseconds"),
                    Weight.DURATION));

    static String aliases() {
        return String.join(", ", KNOWN.stream().map(JfrEvents::alias).toList());
    }

    /** The selection for {@code --event}: an alias, a full event name, or null for "cpu". */
    static JfrEvents of(String name) {
        if (name == null) {
            return KNOWN.getFirst();
        }
        for (JfrEvents e : KNOWN) {
            if (e.alias.equals(name.toLowerCase(Locale.ROOT)) || e.eventNames.contains(name)) {
                return e;
            }
        }
        if (name.contains(".")) {
            return new JfrEvents(name, List.of(name), new Profile.ValueType("events", "count"), Weight.ONE);
        }
        return null;
    }

    long weightOf(RecordedEvent e) {
        return switch (weight) {
            case ONE -> 1;
            case DURATION -> Math.max(0, e.getDuration().toNanos());
            case ALLOCATION -> {
                // ObjectAllocationSample's weight estimates the bytes its sample stands for; the TLAB
                // events (async-profiler and older JDKs) give the TLAB or object size.
                if (e.hasField("weight")) {
                    yield Math.max(0, e.getLong("weight"));
                }
                if (e.hasField("tlabSize")) {
                    yield Math.max(0, e.getLong("tlabSize"));
                }
                yield e.hasField("allocationSize") ? Math.max(0, e.getLong("allocationSize")) : 1;
            }
        };
    }
}
