package org.stackfold.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether the process's standard input or output was closed when it started ({@code <&-},
 * {@code >&-}). The JVM then reuses descriptor 0 or 1 for a file of its own (its {@code lib/modules}
 * image, its performance-data file), so reading stdin would read the JVM and writing stdout would
 * write into it. On Linux the descriptor's link in {@code /proc/self/fd} tells.
 */
public final class StandardStreams {
    private StandardStreams() {
    }

    public static boolean stdinClosed() {
        return closed(0);
    }

    public static boolean stdoutClosed() {
        return closed(1);
    }

    static boolean closed(int fd) {
        Path link = Path.of("/proc/self/fd/" + fd);
        Path target;
        try {
            target = Files.readSymbolicLink(link);
        } catch (java.nio.file.NoSuchFileException e) {
            return Files.isDirectory(Path.of("/proc/self/fd")); // Linux with the descriptor gone
        } catch (IOException | UnsupportedOperationException e) {
            return false; // not Linux: nothing to tell
        }
        String t = target.toString();
        if (t.contains("/hsperfdata_") || t.endsWith(".jsa") || t.endsWith(".aot")
                || under(t, System.getProperty("java.home"))) {
            return true;
        }
        String cp = System.getProperty("java.class.path", "");
        for (String entry : cp.split(java.io.File.pathSeparator)) {
            if (!entry.isEmpty() && entry.endsWith(".jar") && same(t, entry)) {
                return true;
            }
        }
        return false;
    }

    private static boolean under(String file, String dir) {
        if (dir == null) {
            return false;
        }
        try {
            return file.startsWith(dir + "/") || file.startsWith(Path.of(dir).toRealPath() + "/");
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean same(String file, String other) {
        try {
            return Path.of(other).toRealPath().toString().equals(file);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
