package org.stackfold.format.perfdata;

/**
 * Whether this machine's {@code /proc/kallsyms} may name a recording's kernel addresses, as perf
 * decides: where the file recorded the kernel's build id ({@code [kernel.kallsyms]} in its BUILD_ID
 * feature or pipe records), only if the running kernel's ({@code /sys/kernel/notes}) is the same;
 * where it recorded none but its OS release, only on that release. Otherwise kernel frames stay
 * {@code [unknown]} rather than take another kernel's names.
 */
final class KernelCheck {
    private KernelCheck() {
    }

    /** Why kallsyms must not name the file's kernel addresses, or null where it may. */
    static String problem(PerfDataFile file) {
        String recorded = file.buildIds.get("[kernel.kallsyms]");
        if (recorded != null) {
            String running = BuildIds.runningKernel();
            if (running == null) {
                return "the recording's kernel has build id " + recorded
                        + " and this machine's cannot be read (/sys/kernel/notes)";
            }
            if (!BuildIds.same(recorded, running)) {
                return "the recording's kernel has build id " + recorded + ", this machine's " + running
                        + " (recorded on another kernel)";
            }
            return null;
        }
        String release = file.features.get("os release");
        if (release != null && !release.isBlank()) {
            String running = System.getProperty("os.version");
            if (running != null && !running.equals(release.strip())) {
                return "recorded on kernel " + release.strip() + ", this machine runs " + running;
            }
        }
        return null;
    }
}
