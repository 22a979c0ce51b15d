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
record JfrEvents(String alias, List<String> eventNames, Profile.ValueType valueType, Weight weight,
        List<String> fallbackNames) {
    JfrEvents(String alias, List<String> eventNames, Profile.ValueType valueType, Weight weight) {
        this(alias, eventNames, valueType, weight, List.of());
    }

    enum Weight { ONE, ALLOCATION, DURATION }

    static final List<JfrEvents> KNOWN = List.of(
            new JfrEvents("cpu", List.of("jdk.ExecutionSample"), Profile.ValueType.SAMPLES, Weight.ONE),
            new JfrEvents("cputime", List.of("jdk.CPUTimeSample"), Profile.ValueType.SAMPLES, Weight.ONE),
            new JfrEvents("native", List.of("jdk.NativeMethodSample"), Profile.ValueType.SAMPLES, Weight.ONE),
            // jdk.ObjectAllocationSample stands for allocation where a recording has it (as the JDK's
            // jfr view allocation-by-*); the TLAB events only where it has none (async-profiler and
            // JDK 15 and older write those alone, and async-profiler's converter reads them).
            new JfrEvents("alloc", List.of("jdk.ObjectAllocationSample", "jdk.ObjectAllocationInNewTLAB",
                    "jdk.ObjectAllocationOutsideTLAB"), new Profile.ValueType("alloc_space", "bytes"), Weight.ALLOCATION,
                    List.of("jdk.ObjectAllocationInNewTLAB", "jdk.ObjectAllocationOutsideTLAB")),
            new JfrEvents("wall", List.of("profiler.WallClockSample"), Profile.ValueType.SAMPLES, Weight.ONE),
            new JfrEvents("lock", List.of("jdk.JavaMonitorEnter"), new Profile.ValueType("lock", "nanoseconds"),
                    Weight.DURATION),
            new JfrEvents("wait", List.of("jdk.JavaMonitorWait"), new Profile.ValueType("wait", "nanoseconds"),
                    Weight.DURATION),
            new JfrEvents("park", List.of("jdk.ThreadPark"), new Profile.ValueType("park", "nanoseconds"),
                    Weight.DURATION));

    /** True where events of this name are read only if the recording has none of the others. */
    boolean isFallback(String eventName) {
        return fallbackNames.contains(eventName);
    }

    static String aliases() {
        return String.join(", ", KNOWN.stream().map(JfrEvents::alias).toList());
    }

    /** The selection for {@code --event}: an alias, a full event name, or null for "cpu". */
    static JfrEvents of(String name) {
        if (name == null) {
            return KNOWN.getFirst();
        }
        for (JfrEvents e : KNOWN) {
            if (e.alias.equals(name.toLowerCase(Locale.ROOT))) {
                return e;
            }
            if (e.eventNames.contains(name)) {
                // a full name reads exactly that event, weighed as its alias weighs it
                return new JfrEvents(name, List.of(name), e.valueType, e.weight);
            }
        }
        if (name.contains(".")) {
            return new JfrEvents(name, List.of(name), new Profile.ValueType("events", "count"), Weight.ONE);
        }
        return null;
    }

    long weightOf(RecordedEvent e) {
        return switch (weight) {
            // async-profiler's wall-clock (and other) events stand for `samples` samples each
            case ONE -> e.hasField("samples") ? Math.max(0, e.getLong("samples")) : 1;
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
