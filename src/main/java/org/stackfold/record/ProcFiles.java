package org.stackfold.record;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads /proc and /sys files through a stream. {@code Files.readString} must not be used on them:
 * they report a size of 0, and on JDK 25 it returned "1" for /proc/sys/kernel/perf_event_max_stack
 * holding "127".
 */
final class ProcFiles {
    private ProcFiles() {
    }

    static String read(Path p) throws IOException {
        try (InputStream in = Files.newInputStream(p)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
