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
    /** Streams up to this size are read into the heap; larger ones are spilled to a file and mapped. */
    private static final int IN_MEMORY_LIMIT = 64 << 20;

    private InputStream stdin;
    private Arena arena;
    private Path spill;

    private Input(String name, Path path, boolean gzip, InputStream stdin) {
        this.name = name;
        this.path = path;
        this.gzip = gzip;
        if (stdin != null) {
            // Kept decompressed and buffered, so that head() can peek and stream() still sees it all.
            try {
                this.stdin = new BufferedInputStream(gzip ? gunzip(name, stdin) : stdin, 1 << 16);
            } catch (IOException e) {
                throw new InputException(name + ": not valid gzip: " + e.getMessage(), e);
            }
        }
    }

    /** Decompresses, turning a truncated or corrupt gzip stream into an {@link InputException} naming the input. */
    private static InputStream gunzip(String name, InputStream raw) throws IOException {
        InputStream in;
        try {
            in = new GZIPInputStream(raw, 1 << 16);
        } catch (java.io.EOFException | java.util.zip.ZipException e) {
            throw corrupt(name, e);
        }
        return new java.io.FilterInputStream(in) {
            @Override
            public int read() throws IOException {
                try {
                    return super.read();
                } catch (java.io.EOFException | java.util.zip.ZipException e) {
                    throw corrupt(name, e);
                }
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                try {
                    return super.read(b, off, len);
                } catch (java.io.EOFException | java.util.zip.ZipException e) {
                    throw corrupt(name, e);
                }
            }
        };
    }

    private static InputException corrupt(String name, IOException e) {
        return new InputException(name + ": truncated or corrupt gzip data"
                + (e.getMessage() == null ? "" : " (" + e.getMessage() + ")"), e);
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

    /**
     * Up to {@code n} first bytes of the decompressed content, for format detection; the content can
     * still be read whole afterwards, also from standard input.
     */
    public byte[] head(int n) throws IOException {
        if (path != null) {
            try (InputStream s = stream()) {
                return s.readNBytes(n);
            }
        }
        if (stdin == null) {
            throw new IllegalStateException(name + " was already read");
        }
        stdin.mark(n);
        byte[] head = stdin.readNBytes(n);
        stdin.reset();
        return head;
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
            InputStream s = stdin;
            stdin = null;
            return s; // already decompressed, see head()
        }
        return gzip ? gunzip(name, raw) : raw;
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
            return map(path);
        }
        // A stream (stdin, gzip): small ones are read into memory; a large one is spilled to a
        // temporary file and mapped, so the heap never has to hold a whole profile.
        try (InputStream in = stream()) {
            byte[] head = in.readNBytes(IN_MEMORY_LIMIT);
            if (head.length < IN_MEMORY_LIMIT) {
                return MemorySegment.ofArray(head);
            }
            spill = Files.createTempFile("stackfold-", ".input");
            try (var out = Files.newOutputStream(spill)) {
                out.write(head);
                in.transferTo(out);
            }
            return map(spill);
        }
    }

    private MemorySegment map(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size == 0) {
                return MemorySegment.ofArray(new byte[0]);
            }
            return ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
        }
    }

    @Override
    public void close() {
        if (arena != null) {
            arena.close();
            arena = null;
        }
        if (spill != null) {
            try {
                Files.deleteIfExists(spill);
            } catch (IOException ignored) {
                // a leftover in the temporary directory is harmless
            }
            spill = null;
        }
    }
}
