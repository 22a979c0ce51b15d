package org.stackfold.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Temporary files that must not outlive the command: spills of streamed inputs and the
 * temporary halves of atomic outputs. Each is registered while it exists and deleted by a
 * shutdown hook when the JVM ends before its owner removed it (Ctrl-C, SIGTERM, SIGHUP, an
 * error on another thread). Spills go where {@code TMPDIR} says, else {@code java.io.tmpdir}.
 */
public final class TempFiles {
    private static final Set<Path> LIVE = ConcurrentHashMap.newKeySet();
    private static volatile boolean hooked;

    private TempFiles() {
    }

    /** The directory for spills: {@code $TMPDIR} when it names a directory, else {@code java.io.tmpdir}. */
    public static Path directory() {
        String env = System.getenv("TMPDIR");
        if (env != null && !env.isEmpty() && Files.isDirectory(Path.of(env))) {
            return Path.of(env);
        }
        return Path.of(System.getProperty("java.io.tmpdir"));
    }

    /**
     * Creates a new empty file in {@code dir} named {@code prefix + random + suffix}, with the
     * permissions the process's umask gives a new file, and registers it.
     */
    public static Path create(Path dir, String prefix, String suffix) throws IOException {
        for (int attempt = 0; ; attempt++) {
            Path p = dir.resolve(prefix + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36) + suffix);
            register(p);
            try {
                Files.newByteChannel(p, java.nio.file.StandardOpenOption.CREATE_NEW,
                        java.nio.file.StandardOpenOption.WRITE).close();
                return p;
            } catch (java.nio.file.FileAlreadyExistsException e) {
                LIVE.remove(p);
                if (attempt > 100) {
                    throw e;
                }
            } catch (IOException | RuntimeException e) {
                LIVE.remove(p);
                throw e;
            }
        }
    }

    /** A registered temporary file in {@link #directory()}. */
    public static Path create(String purpose) throws IOException {
        return create(directory(), "stackfold-" + purpose + "-", ".tmp");
    }

    /** Keeps {@code p} on the list of files to delete at exit. */
    public static void register(Path p) {
        if (!hooked) {
            installHook();
        }
        LIVE.add(p);
    }

    /** {@code p} was deleted or renamed into place by its owner. */
    public static void forget(Path p) {
        LIVE.remove(p);
    }

    /** Deletes {@code p} now, quietly, and forgets it. */
    public static void delete(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // the shutdown hook tries again
            return;
        }
        LIVE.remove(p);
    }

    private static synchronized void installHook() {
        if (hooked) {
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (Path p : LIVE) {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // nothing more can be done while the JVM exits
                }
            }
        }, "stackfold-temp-cleanup"));
        hooked = true;
    }
}
