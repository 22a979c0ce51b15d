package org.stackfold.record;

/** The kernel's sample rate limit, as RecordCommand reads it (the test cannot see the cli package's class). */
final class RecordCommandAccess {
    private RecordCommandAccess() {
    }

    static long maxSampleRate() {
        try {
            return Long.parseLong(ProcFiles.read(java.nio.file.Path.of("/proc/sys/kernel/perf_event_max_sample_rate")).strip());
        } catch (java.io.IOException | RuntimeException e) {
            return 0;
        }
    }
}
