package org.stackfold.io;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A progress bar on stderr for long inputs. It draws only when stderr is a terminal and only once
 * the work has run for {@link #DELAY_NANOS}, so quick runs, pipes and CI logs never see it.
 * {@link #update} is cheap enough to call every few megabytes from a parser's loop.
 */
public final class Progress implements AutoCloseable {
    private static final long DELAY_NANOS = 1_500_000_000L;
    private static final long REDRAW_NANOS = 100_000_000L;
    private static final boolean STDERR_IS_TERMINAL = detectTerminal();
    public static final Progress NONE = new Progress(null, 0, false);

    private final String label;
    private final long total;
    private final boolean enabled;
    private final long start = System.nanoTime();
    private long lastDraw;
    private boolean drawn;

    private Progress(String label, long total, boolean enabled) {
        this.label = label;
        this.total = total;
        this.enabled = enabled;
    }

    /** A bar for work of {@code total} units (bytes, usually). */
    public static Progress start(String label, long total) {
        return STDERR_IS_TERMINAL && total > 0 ? new Progress(label, total, true) : NONE;
    }

    private static boolean detectTerminal() {
        if (Boolean.getBoolean("stackfold.noProgress") || System.getenv("CI") != null) {
            return false;
        }
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (Exception e) {
            return false;
        }
    }

    public synchronized void update(long done) {
        if (!enabled) {
            return;
        }
        long now = System.nanoTime();
        if (now - start < DELAY_NANOS || now - lastDraw < REDRAW_NANOS) {
            return;
        }
        lastDraw = now;
        drawn = true;
        int pct = (int) Math.min(100, done * 100 / total);
        int width = 30;
        int filled = pct * width / 100;
        PrintStream err = System.err;
        err.print("\r" + label + " [" + "#".repeat(filled) + " ".repeat(width - filled) + "] " + pct + "%");
        err.flush();
    }

    @Override
    public synchronized void close() {
        if (drawn) {
            System.err.print("\r\033[K");
            System.err.flush();
        }
    }
}
