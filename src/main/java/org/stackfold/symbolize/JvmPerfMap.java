package org.stackfold.symbolize;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Asks a running HotSpot JVM to write {@code /tmp/perf-PID.map} now ({@code jcmd PID
 * Compiler.perfmap}, JDK 17+): a snapshot of its code cache, which moves as methods are compiled and
 * flushed, so it is taken when the profile's process snapshot is. Best effort: a JVM that cannot be
 * attached (another user, an old JDK, no jcmd) keeps whatever map it has.
 */
final class JvmPerfMap {
    private static final long TIMEOUT_SECONDS = 30;

    private JvmPerfMap() {
    }

    /** Runs jcmd against {@code pid}, whose /proc directory is {@code procDir}; true when it succeeded. */
    static boolean request(int pid, Path procDir) {
        for (Path jcmd : candidates(procDir)) {
            if (!Files.isExecutable(jcmd)) {
                continue;
            }
            try {
                Process p = new ProcessBuilder(jcmd.toString(), Integer.toString(pid), "Compiler.perfmap")
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    return false;
                }
                return p.exitValue() == 0;
            } catch (IOException e) {
                // try the next jcmd
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    /** The target's own JDK's jcmd first (it matches its attach protocol), then ours. */
    private static List<Path> candidates(Path procDir) {
        List<Path> out = new ArrayList<>();
        try {
            Path exe = Files.readSymbolicLink(procDir.resolve("exe"));
            if (exe.getParent() != null) {
                out.add(exe.getParent().resolve("jcmd"));
            }
        } catch (IOException | UnsupportedOperationException e) {
            // no access to the target's executable
        }
        out.add(Path.of(System.getProperty("java.home"), "bin", "jcmd"));
        return out;
    }
}
