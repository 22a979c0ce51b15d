package org.stackfold.format.perfdata;

/**
 * perf's names of the generic hardware and software events ({@code evsel__hw_names},
 * {@code evsel__sw_names}), for files that carry no EVENT_DESC: perf 3.x pipe files name their events
 * no other way, and {@code perf script} names them so.
 */
final class EventNames {
    private static final String[] HARDWARE = {"cycles", "instructions", "cache-references", "cache-misses",
        "branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles"};
    private static final String[] SOFTWARE = {"cpu-clock", "task-clock", "page-faults", "context-switches",
        "cpu-migrations", "minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
        "bpf-output", "cgroup-switches"};

    private EventNames() {
    }

    /** perf's name of a generic event, else {@code type:config} in hex (a made-up name). */
    static String of(int type, long config) {
        if (type == 0 && config >= 0 && config < HARDWARE.length) {
            return HARDWARE[(int) config];
        }
        if (type == 1 && config >= 0 && config < SOFTWARE.length) {
            return SOFTWARE[(int) config];
        }
        return type + ":" + Long.toHexString(config);
    }

    /** True where {@code name} is a made-up {@code type:config} name. */
    static boolean madeUp(String name) {
        return name.matches("\\d+:[0-9a-f]+");
    }
}
