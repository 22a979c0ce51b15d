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
 *
 * <p>Passive: jcmd runs only where the JVM's attach listener already runs (its socket
 * {@code /proc/PID/root/tmp/.java_pidN} exists), so it connects and never has to start the listener
 * with SIGQUIT, which a JVM started with {@code -XX:+DisableAttachMechanism} answers with a thread
 * dump on its own stdout.
 */
final class JvmPerfMap {
    private static final long TIMEOUT_SECONDS = 30;

    private JvmPerfMap() {
    }

    /** Runs jcmd against {@code pid}, whose /proc directory is {@code procDir}; true when it succeeded. */
    static boolean request(int pid, Path procDir) {
        if (!listening(pid, procDir)) {
            return false;
        }
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

    /** Whether the JVM's attach listener runs: a socket {@code .java_pidN} in its /tmp (N its pid in its namespace). */
    static boolean listening(int pid, Path procDir) {
        int nsPid = pid;
        try {
            for (String line : Files.readAllLines(procDir.resolve("status"))) {
                if (line.startsWith("NSpid:")) {
                    String[] f = line.substring(6).strip().split("\\s+");
                    nsPid = Integer.parseInt(f[f.length - 1]);
                }
            }
            var a = Files.readAttributes(procDir.resolve("root/tmp/.java_pid" + nsPid),
                    java.nio.file.attribute.BasicFileAttributes.class, java.nio.file.LinkOption.NOFOLLOW_LINKS);
            return a.isOther();
        } catch (IOException | RuntimeException e) {
            return false;
        }
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
