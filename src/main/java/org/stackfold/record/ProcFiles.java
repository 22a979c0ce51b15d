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

    /**
     * Waits until every thread of {@code pid} is stopped (state T or t), gone or a zombie, for at most
     * {@code nanos}: a SIGSTOP is acted on only when a thread returns to user space.
     */
    static void awaitStopped(int pid, long nanos) {
        long deadline = System.nanoTime() + nanos;
        Path tasks = Path.of("/proc/" + pid + "/task");
        while (!allStopped(tasks) && System.nanoTime() < deadline) {
            java.util.concurrent.locks.LockSupport.parkNanos(100_000);
        }
    }

    /**
     * The state letter of a {@code /proc/.../stat} file (after the parenthesised comm, which may hold
     * spaces and parentheses), or '?' when it cannot be read (the task is gone).
     */
    static char state(Path stat) {
        try {
            String s = read(stat);
            int close = s.lastIndexOf(')');
            return close >= 0 && close + 2 < s.length() ? s.charAt(close + 2) : '?';
        } catch (IOException e) {
            return '?';
        }
    }

    private static boolean allStopped(Path tasks) {
        try (java.util.stream.Stream<Path> s = Files.list(tasks)) {
            for (Path t : (Iterable<Path>) s::iterator) {
                char state = state(t.resolve("stat"));
                if (state != 'T' && state != 't' && state != 'Z' && state != 'X' && state != '?') {
                    return false;
                }
            }
            return true;
        } catch (IOException | java.io.UncheckedIOException gone) {
            return true;
        }
    }
}
