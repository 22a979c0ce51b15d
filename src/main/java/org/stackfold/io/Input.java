package org.stackfold.io;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.GZIPInputStream;

/**
 * One input of a command: a file, or {@code -} for standard input, possibly gzip-compressed
 * (recognised by its magic bytes, not its name).
 *
 * <p>A plain regular file is memory-mapped as a {@link MemorySegment} (files over 2 GiB work);
 * anything else (stdin, gzip, a pipe) is offered as a stream. Readers that want bytes in memory call
 * {@link #bytes()}, which maps where it can and reads the stream fully where it can't.
 */
public final class Input implements AutoCloseable {
    private static final int GZIP_MAGIC_0 = 0x1f;
    private static final int GZIP_MAGIC_1 = 0x8b;

    private final String name;
    private final Path path;
    private final boolean gzip;
    private InputStream stdin;
    private Arena arena;

    private Input(String name, Path path, boolean gzip, InputStream stdin) {
        this.name = name;
        this.path = path;
        this.gzip = gzip;
        this.stdin = stdin;
    }

    /** Opens {@code name}, a path or {@code -}; a missing or unreadable file is an {@link InputException}. */
    public static Input open(String name) {
        return open(name, System.in);
    }

    public static Input open(String name, InputStream stdin) {
        if (name.equals("-")) {
            BufferedInputStream in = new BufferedInputStream(stdin, 1 << 16);
            boolean gz;
            try {
                in.mark(2);
                gz = in.read() == GZIP_MAGIC_0 && in.read() == GZIP_MAGIC_1;
                in.reset();
            } catch (IOException e) {
                throw new InputException("<stdin>: cannot read: " + e.getMessage(), e);
            }
            return new Input("<stdin>", null, gz, in);
        }
        Path p = Path.of(name);
        if (Files.isDirectory(p)) {
            throw new InputException(name + ": is a directory");
        }
        boolean gz;
        try (InputStream in = Files.newInputStream(p)) {
            gz = in.read() == GZIP_MAGIC_0 && in.read() == GZIP_MAGIC_1;
        } catch (NoSuchFileException e) {
            throw new InputException(name + ": no such file");
        } catch (IOException e) {
            throw new InputException(name + ": cannot read: " + e.getMessage(), e);
        }
        return new Input(name, p, gz, null);
    }

    /** Wraps bytes already in memory (tests, embedded use). */
    public static Input ofBytes(String name, byte[] data) {
        return new Input(name, null, data.length >= 2 && (data[0] & 0xff) == GZIP_MAGIC_0
                && (data[1] & 0xff) == GZIP_MAGIC_1, new java.io.ByteArrayInputStream(data));
    }

    /** The name to use in messages. */
    public String name() {
        return name;
    }

    /** The file's path, or null for standard input. */
    public Path path() {
        return path;
    }

    public boolean isGzip() {
        return gzip;
    }

    /** True where {@link #bytes()} maps the file rather than reading it into the heap. */
    public boolean isMappable() {
        return path != null && !gzip && Files.isRegularFile(path);
    }

    /** The decompressed content as a stream. */
    public InputStream stream() throws IOException {
        InputStream raw;
        if (path != null) {
            raw = Files.newInputStream(path);
        } else {
            if (stdin == null) {
                throw new IllegalStateException(name + " was already read");
            }
            raw = stdin;
            stdin = null;
        }
        return gzip ? new GZIPInputStream(raw, 1 << 16) : raw;
    }

    /**
     * Fills {@code buf} with up to its length of the decompressed content's first bytes without
     * consuming anything, so that standard input too can be recognised by content before it is read.
     */
    public int peek(byte[] buf) throws IOException {
        if (path != null) {
            try (InputStream s = stream()) {
                return s.readNBytes(buf, 0, buf.length);
            }
        }
        if (stdin == null) {
            throw new IllegalStateException(name + " was already read");
        }
        InputStream raw = stdin.markSupported() ? stdin : new BufferedInputStream(stdin, 1 << 16);
        stdin = raw;
        raw.mark(1 << 20);
        try {
            if (!gzip) {
                return raw.readNBytes(buf, 0, buf.length);
            }
            InputStream keepOpen = new java.io.FilterInputStream(raw) {
                @Override
                public void close() {
                }
            };
            try (GZIPInputStream g = new GZIPInputStream(keepOpen, 512)) {
                return g.readNBytes(buf, 0, buf.length);
            } catch (java.io.EOFException | java.util.zip.ZipException e) {
                return 0; // a broken gzip stream: the reader will say so
            }
        } finally {
            raw.reset();
        }
    }

    /**
     * The decompressed content as a segment: a read-only mapping of a plain file, or the stream
     * read into memory. Valid until {@link #close()}.
     */
    public MemorySegment bytes() throws IOException {
        if (arena == null) {
            arena = Arena.ofShared();
        }
        if (isMappable()) {
            try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
                long size = ch.size();
                if (size == 0) {
                    return MemorySegment.ofArray(new byte[0]);
                }
                return ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
            }
        }
        try (InputStream in = stream()) {
            return MemorySegment.ofArray(in.readAllBytes());
        } catch (OutOfMemoryError e) {
            throw new InputException(name + ": too large to read into memory; decompress it to a file first");
        }
    }

    @Override
    public void close() {
        if (arena != null) {
            arena.close();
            arena = null;
        }
    }
}
