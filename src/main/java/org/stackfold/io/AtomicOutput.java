package org.stackfold.io;

import java.io.BufferedOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Where a command writes its result: a file, written to a temporary file beside it and renamed into
 * place on {@link #commit()}, so that a failure never leaves half a file; or standard output for
 * {@code -} or no name. Closing without committing deletes the temporary file, and so does the JVM's
 * shutdown on a signal ({@link TempFiles}).
 *
 * <p>A new file gets the permissions the umask gives (as a shell redirection would); a replaced file
 * keeps its own. A name ending in {@code .gz} or {@code .zst} is written gzip- or zstd-compressed
 * unless the caller writes an already compressed format ({@link #openUncompressed}). Every I/O error
 * names the user's path, never the temporary one.
 */
public final class AtomicOutput implements AutoCloseable {
    /** Longest file name most file systems take, in bytes. */
    private static final int NAME_MAX = 255;

    /** How the bytes given to {@link #stream()} are stored. */
    public enum Compression { NONE, GZIP, ZSTD }

    private final String name;
    private final Path target;
    private final Path temp;
    private final OutputStream out;
    private boolean committed;

    private AtomicOutput(String name, Path target, Path temp, OutputStream out) {
        this.name = name;
        this.target = target;
        this.temp = temp;
        this.out = out;
    }

    /** Opens {@code name} (a path, or null or {@code -} for {@code stdout}), compressed by its ending. */
    public static AtomicOutput open(String name, OutputStream stdout) throws IOException {
        return open(name, stdout, compressionOf(name));
    }

    /** As {@link #open(String, OutputStream)} for a writer whose format is compressed already (pprof). */
    public static AtomicOutput openUncompressed(String name, OutputStream stdout) throws IOException {
        return open(name, stdout, Compression.NONE);
    }

    public static AtomicOutput open(String name) throws IOException {
        return open(name, System.out);
    }

    /** The compression a file name asks for: {@code .gz} gzip, {@code .zst} zstd. */
    public static Compression compressionOf(String name) {
        if (name == null) {
            return Compression.NONE;
        }
        String lower = name.toLowerCase(Locale.ROOT);
        return lower.endsWith(".gz") ? Compression.GZIP : lower.endsWith(".zst") ? Compression.ZSTD : Compression.NONE;
    }

    private static AtomicOutput open(String name, OutputStream stdout, Compression compression) throws IOException {
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
            return new AtomicOutput("standard output", null, null,
                    new NamedErrors("standard output", new BufferedOutputStream(keepOpen, 1 << 16)));
        }
        if (name.isEmpty()) {
            throw new InputException("the output file name is empty");
        }
        Path target = Path.of(name).toAbsolutePath();
        if (name.endsWith("/")) {
            throw new InputException(name + ": names a directory; give a file name"
                    + (Files.isDirectory(target) ? "" : " (and that directory does not exist)"));
        }
        if (Files.exists(target) && !Files.isRegularFile(target)) {
            if (Files.isDirectory(target)) {
                throw new InputException(name + ": is a directory");
            }
            // A device or a pipe (-o /dev/null, a fifo): written in place, since renaming over it
            // would replace it with a regular file.
            try {
                return new AtomicOutput(name, null, null, new NamedErrors(name,
                        compress(compression, new BufferedOutputStream(Files.newOutputStream(target), 1 << 16))));
            } catch (IOException e) {
                throw new InputException(name + ": cannot write: " + Input.reason(e), e);
            }
        }
        if (Files.isSymbolicLink(target)) {
            try {
                target = target.toRealPath(); // replace the file the link names, not the link
            } catch (IOException e) {
                throw new InputException(name + ": a symbolic link to nowhere (" + Input.reason(e) + ")", e);
            }
        }
        Path dir = target.getParent();
        if (dir != null && !Files.isDirectory(dir)) {
            throw new InputException(name + ": directory " + dir + " does not exist");
        }
        if (Files.exists(target) && !Files.isWritable(target)) {
            throw new InputException(name + ": permission denied (the file is read-only)");
        }
        Path temp;
        try {
            temp = TempFiles.create(dir, tempPrefix(target), ".tmp");
        } catch (IOException e) {
            throw new InputException(name + ": cannot write in " + dir + ": " + Input.reason(e), e);
        }
        try {
            return new AtomicOutput(name, target, temp, new NamedErrors(name, compress(compression, new ChannelOutputStream(temp))));
        } catch (IOException | RuntimeException e) {
            TempFiles.delete(temp);
            throw e instanceof IOException io ? new InputException(name + ": cannot write: " + Input.reason(io), e)
                    : (RuntimeException) e;
        }
    }

    /** ".NAME." where that leaves room for the random part and ".tmp", else a short fixed prefix. */
    private static String tempPrefix(Path target) {
        String prefix = "." + target.getFileName() + ".";
        return prefix.getBytes(StandardCharsets.UTF_8).length + 13 + 4 <= NAME_MAX ? prefix : ".stackfold-";
    }

    private static OutputStream compress(Compression c, OutputStream out) throws IOException {
        return switch (c) {
            case NONE -> out;
            case GZIP -> new java.util.zip.GZIPOutputStream(out, 1 << 16);
            // zstd-jni is loaded only when a .zst output is asked for.
            case ZSTD -> new com.github.luben.zstd.ZstdOutputStream(out, 3);
        };
    }

    public OutputStream stream() {
        return out;
    }

    /** The final path, or null for standard output and devices. */
    public Path target() {
        return target;
    }

    /** Flushes and moves the result into place, with the replaced file's permissions. */
    public void commit() throws IOException {
        out.close();
        if (temp != null) {
            try {
                if (Files.exists(target)) {
                    Files.setPosixFilePermissions(temp, Files.getPosixFilePermissions(target));
                }
            } catch (UnsupportedOperationException | IOException ignored) {
                // not a POSIX file system, or the file vanished: keep the new file's own mode
            }
            try {
                try {
                    Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
                }
            } catch (IOException e) {
                throw new IOException(name + ": cannot replace the file: " + Input.reason(e), e);
            }
            TempFiles.forget(temp);
        }
        committed = true;
    }

    @Override
    public void close() throws IOException {
        if (!committed) {
            try {
                out.close();
            } catch (IOException | RuntimeException ignored) {
                // the result is being thrown away anyway
            } finally {
                if (temp != null) {
                    TempFiles.delete(temp);
                }
            }
        }
    }

    /** Puts the user's name for the output in front of every I/O error (never the temporary file's). */
    private static final class NamedErrors extends FilterOutputStream {
        private final String name;

        NamedErrors(String name, OutputStream out) {
            super(out);
            this.name = name;
        }

        private IOException named(IOException e) {
            String m = e.getMessage();
            if (m != null && m.startsWith(name + ": ")) {
                return e;
            }
            return new IOException(name + ": " + Input.reason(e), e);
        }

        @Override
        public void write(int b) throws IOException {
            try {
                out.write(b);
            } catch (IOException e) {
                throw named(e);
            }
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            try {
                out.write(b, off, len);
            } catch (IOException e) {
                throw named(e);
            }
        }

        @Override
        public void flush() throws IOException {
            try {
                out.flush();
            } catch (IOException e) {
                throw named(e);
            }
        }

        @Override
        public void close() throws IOException {
            try {
                out.close();
            } catch (IOException e) {
                throw named(e);
            }
        }
    }
}
