package org.stackfold.io;

import java.io.BufferedOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Where a command writes its result: a file, written to a temporary file beside it and renamed into
 * place on {@link #commit()}, so that a failure never leaves half a file; or standard output for
 * {@code -} or no name. Closing without committing deletes the temporary file.
 */
public final class AtomicOutput implements AutoCloseable {
    private final Path target;
    private final Path temp;
    private final OutputStream out;
    private boolean committed;

    private AtomicOutput(Path target, Path temp, OutputStream out) {
        this.target = target;
        this.temp = temp;
        this.out = out;
    }

    /** Opens {@code name} (a path, or null or {@code -} for {@code stdout}). */
    public static AtomicOutput open(String name, OutputStream stdout) throws IOException {
        if (name == null || name.equals("-")) {
            OutputStream keepOpen = new FilterOutputStream(stdout) {
                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    out.write(b, off, len);
                }

                @Override
                public void close() throws IOException {
                    flush();
                }
            };
            return new AtomicOutput(null, null, new BufferedOutputStream(keepOpen, 1 << 16));
        }
        Path target = Path.of(name).toAbsolutePath();
        if (Files.exists(target) && !Files.isRegularFile(target)) {
            if (Files.isDirectory(target)) {
                throw new InputException(name + ": is a directory");
            }
            // A device or a pipe (-o /dev/null, a fifo): written in place, since renaming over it
            // would replace it with a regular file.
            return new AtomicOutput(null, null, new BufferedOutputStream(Files.newOutputStream(target), 1 << 16));
        }
        if (Files.isSymbolicLink(target)) {
            target = target.toRealPath(); // replace the file the link names, not the link
        }
        Path dir = target.getParent();
        if (dir != null && !Files.isDirectory(dir)) {
            throw new InputException(name + ": directory " + dir + " does not exist");
        }
        Path temp = Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp");
        // A temporary file is private (0600); the result gets the target's mode, or rw-r--r--.
        try {
            Files.setPosixFilePermissions(temp, Files.exists(target) ? Files.getPosixFilePermissions(target)
                    : java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        } catch (UnsupportedOperationException ignored) {
            // not a POSIX file system: keep what it gave
        }
        return new AtomicOutput(target, temp, new ChannelOutputStream(temp));
    }

    public static AtomicOutput open(String name) throws IOException {
        return open(name, System.out);
    }

    public OutputStream stream() {
        return out;
    }

    /** The final path, or null for standard output. */
    public Path target() {
        return target;
    }

    /** Flushes and moves the result into place. */
    public void commit() throws IOException {
        out.close();
        if (temp != null) {
            try {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        }
        committed = true;
    }

    @Override
    public void close() throws IOException {
        if (!committed) {
            try {
                out.close();
            } catch (IOException ignored) {
                // the result is being thrown away anyway
            } finally {
                if (temp != null) {
                    Files.deleteIfExists(temp);
                }
            }
        }
    }
}
