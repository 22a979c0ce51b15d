package org.stackfold.io;

import java.io.BufferedInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * One input of a command: a file, or {@code -} for standard input, possibly gzip- or
 * zstd-compressed (recognised by magic bytes, not by name).
 *
 * <p>Every input is opened exactly once. A regular file keeps one {@link RandomAccessFile}: parsers
 * read ranges of it in blocks ({@link #range}) and look around in it through a {@link ByteView} to
 * decide where the ranges start, formats that need random access map it as a {@link MemorySegment}
 * (files over 2 GiB work), and it may be read as often as a reader likes. Anything
 * else (standard input, a pipe, a FIFO, {@code <(process substitution)}, a device) is one buffered
 * stream: format detection peeks at its head through mark and reset, so no byte is lost, and it can
 * be read once. Compressed content and streams are bounded by {@link #maxStreamBytes()} while
 * they are read, so a gzip bomb or {@code /dev/zero} ends in a clear error, not a full disk.
 */
public final class Input implements AutoCloseable {
    private static final int GZIP_MAGIC_0 = 0x1f;
    private static final int GZIP_MAGIC_1 = 0x8b;
    private static final int ZSTD_MAGIC = 0xFD2FB528; // little-endian frame magic
    /** Streams up to this size are read into the heap; larger ones are spilled to a file and mapped. */
    private static final int IN_MEMORY_LIMIT = 64 << 20;
    /** Default bound on the bytes of a stream or of decompressed content. */
    public static final long DEFAULT_MAX_STREAM = 4L << 30;

    private static volatile long maxStream = defaultMaxStream();

    /** How an input's bytes are compressed. */
    public enum Compression { NONE, GZIP, ZSTD }

    private final String name;
    /** The regular file, read in ranges through it, or null for a stream. */
    private final FileRange.Shared file;
    /** Its size when it was opened: what its readers read up to. */
    private final long fileSize;
    private final Path path;
    private final Compression compression;
    /** The decompressed, bounded, buffered stream of a non-regular input; null once handed out. */
    private BufferedInputStream stream;
    private boolean streamTaken;

    private Arena arena;
    private Path spill;

    private Input(String name, Path path, RandomAccessFile file, long fileSize, Compression compression,
                  InputStream stream) {
        this.name = name;
        this.path = path;
        this.file = file == null ? null : new FileRange.Shared(file);
        this.fileSize = fileSize;
        this.compression = compression;
        this.stream = stream == null ? null : new BufferedInputStream(stream, 1 << 16);
    }

    /** Opens {@code name}, a path or {@code -}; a missing or unreadable file is an {@link InputException}. */
    public static Input open(String name) {
        if (name.equals("-") && StandardStreams.stdinClosed()) {
            throw new InputException("<stdin>: standard input is closed; give a file name or pipe a profile in");
        }
        return open(name, System.in);
    }

    public static Input open(String name, InputStream stdin) {
        if (name.equals("-")) {
            return ofStream("<stdin>", stdin);
        }
        Path p = Path.of(name);
        BasicFileAttributes attrs;
        try {
            attrs = Files.readAttributes(p, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            throw new InputException(name + ": no such file");
        } catch (IOException e) {
            throw new InputException(name + ": cannot read: " + reason(e), e);
        }
        if (attrs.isDirectory()) {
            throw new InputException(name + ": is a directory");
        }
        if (!attrs.isRegularFile()) {
            // A pipe, a FIFO, /dev/stdin, a device: one stream, opened once.
            try {
                return ofStream(name, Files.newInputStream(p));
            } catch (IOException e) {
                throw new InputException(name + ": cannot read: " + reason(e), e);
            }
        }
        RandomAccessFile f;
        try {
            f = new RandomAccessFile(p.toFile(), "r");
        } catch (java.io.FileNotFoundException e) {
            // RandomAccessFile says why in its message only: "NAME (No such file or directory)"
            String why = e.getMessage() == null ? "" : e.getMessage();
            throw new InputException(name + (why.endsWith("(No such file or directory)") ? ": no such file"
                    : why.endsWith("(Permission denied)") ? ": permission denied" : ": cannot read: " + why), e);
        }
        try {
            // The file's own reads: a channel's first read would load and set up NIO for four bytes.
            byte[] magic = new byte[4];
            int n = 0;
            for (int k; n < magic.length && (k = f.read(magic, n, magic.length - n)) > 0; ) {
                n += k;
            }
            return new Input(name, p, f, attrs.size(), compressionOf(magic, n), null);
        } catch (IOException e) {
            closeQuietly(f);
            throw new InputException(name + ": cannot read: " + reason(e), e);
        }
    }

    /** Wraps bytes already in memory (tests, embedded use). */
    public static Input ofBytes(String name, byte[] data) {
        return ofStream(name, new java.io.ByteArrayInputStream(data));
    }

    /** A stream input: its compression is detected from its first bytes, which stay readable. */
    public static Input ofStream(String name, InputStream raw) {
        BufferedInputStream in = new BufferedInputStream(raw, 1 << 16);
        Compression c;
        try {
            in.mark(4);
            byte[] magic = in.readNBytes(4);
            in.reset();
            c = compressionOf(magic, magic.length);
        } catch (IOException e) {
            throw new InputException(name + ": cannot read: " + reason(e), e);
        }
        try {
            return new Input(name, null, null, 0, c, bounded(name, decompress(name, c, in)));
        } catch (IOException e) {
            throw new InputException(name + ": cannot read: " + reason(e), e);
        }
    }

    private static Compression compressionOf(byte[] b, int n) {
        if (n >= 2 && (b[0] & 0xff) == GZIP_MAGIC_0 && (b[1] & 0xff) == GZIP_MAGIC_1) {
            return Compression.GZIP;
        }
        if (n >= 4 && ((b[0] & 0xff) | (b[1] & 0xff) << 8 | (b[2] & 0xff) << 16 | (b[3] & 0xff) << 24) == ZSTD_MAGIC) {
            return Compression.ZSTD;
        }
        return Compression.NONE;
    }

    /** The bound on stream and decompressed bytes now in force. */
    public static long maxStreamBytes() {
        return maxStream;
    }

    /** Sets the bound (the CLI's {@code --max-input}); at least 1. */
    public static void setMaxStreamBytes(long bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("the input limit must be positive");
        }
        maxStream = bytes;
    }

    private static long defaultMaxStream() {
        String env = System.getenv("STACKFOLD_MAX_INPUT");
        if (env == null || env.isBlank()) {
            return DEFAULT_MAX_STREAM;
        }
        try {
            return Sizes.parse(env);
        } catch (IllegalArgumentException e) {
            return DEFAULT_MAX_STREAM; // the CLI reports the bad value as a usage error
        }
    }

    private static InputStream decompress(String name, Compression c, InputStream raw) throws IOException {
        return switch (c) {
            case NONE -> raw;
            case GZIP -> Decompression.gunzip(name, raw);
            case ZSTD -> Decompression.unzstd(name, raw);
        };
    }

    /** Fails, naming the input and the limit, once more than {@link #maxStreamBytes()} were read. */
    private static InputStream bounded(String name, InputStream in) {
        long limit = maxStream;
        return new FilterInputStream(in) {
            private long count;

            private int counted(int n) {
                if (n > 0) {
                    count += n;
                    if (count > limit) {
                        throw new InputException(name + ": more than " + Sizes.format(limit)
                                + " of data (decompressed or streamed); if that is right, raise the limit with"
                                + " --max-input SIZE or STACKFOLD_MAX_INPUT");
                    }
                }
                return n;
            }

            @Override
            public int read() throws IOException {
                int b = super.read();
                if (b >= 0) {
                    counted(1);
                }
                return b;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return counted(super.read(b, off, len));
            }

            @Override
            public long skip(long n) throws IOException {
                long s = super.skip(n);
                counted((int) Math.min(s, Integer.MAX_VALUE));
                return s;
            }
        };
    }

    /** The name to use in messages. */
    public String name() {
        return name;
    }

    /**
     * Up to {@code n} first bytes of the decompressed content, for format detection; the content can
     * still be read whole afterwards, also from a stream.
     */
    public byte[] head(int n) throws IOException {
        if (file != null) {
            try (InputStream s = stream()) {
                return s.readNBytes(n);
            }
        }
        if (stream == null) {
            throw new IllegalStateException(name + " was already read");
        }
        stream.mark(n);
        byte[] head = stream.readNBytes(n);
        stream.reset();
        return head;
    }

    /** The path of a regular file that can be opened again, or null for a stream (stdin, pipe, FIFO). */
    public Path path() {
        return path;
    }

    public Compression compression() {
        return compression;
    }

    public boolean isCompressed() {
        return compression != Compression.NONE;
    }

    /** True for gzip content (kept for callers that print it). */
    public boolean isGzip() {
        return compression == Compression.GZIP;
    }

    /** True where {@link #bytes()} maps the file rather than reading it into the heap. */
    public boolean isMappable() {
        return file != null && compression == Compression.NONE;
    }

    /**
     * The decompressed content as a stream. A regular file can be streamed any number of times; a
     * stream input once.
     */
    public InputStream stream() throws IOException {
        if (file == null) {
            if (stream == null || streamTaken) {
                throw new IllegalStateException(name + " was already read");
            }
            streamTaken = true;
            InputStream s = stream;
            stream = null;
            return s;
        }
        InputStream raw = new FileStream(new FileRange(file, name, 0, fileSize));
        return compression == Compression.NONE ? raw : bounded(name, decompress(name, compression, raw));
    }

    /**
     * The decompressed content as a segment: a read-only mapping of a plain file, or the stream
     * read into memory (spilled to an unlinked temporary file when large). Valid until {@link #close()};
     * later calls return the same segment, so a stream can be looked at and then parsed. Readers
     * that only cut ranges and look at a first line use {@link #view()} and {@link #range} instead,
     * which map nothing (see {@link ByteView} for why).
     */
    public MemorySegment bytes() throws IOException {
        if (content != null) {
            return content;
        }
        if (arena == null) {
            arena = Arena.ofShared();
        }
        if (isMappable()) {
            content = map(file.raf.getChannel());
            return content;
        }
        hold();
        content = held != null ? MemorySegment.ofArray(held) : map(spilled.raf.getChannel());
        return content;
    }

    private MemorySegment content;

    /** Whether {@link #bytes()} was called: the parsers of text need no mapping (tests hold them to it). */
    boolean mapped() {
        return content != null;
    }

    /**
     * The decompressed content for random access by one thread: a plain file (or a large stream's
     * spill) read a window at a time, a small stream's bytes in memory.
     */
    public ByteView view() throws IOException {
        if (isMappable()) {
            return ByteView.of(file, name, fileSize);
        }
        hold();
        return held != null ? ByteView.of(held) : ByteView.of(spilled, name, spilledSize);
    }

    /**
     * The content's bytes [from, to) for one reader thread: a plain (or spilled) file read in
     * blocks ({@link FileRange}: no mapping, nothing of the file resident), else a small stream's
     * bytes in memory. Close it when done.
     */
    public ByteBlocks.Source range(long from, long to) throws IOException {
        if (isMappable()) {
            return new FileRange(file, name, from, to);
        }
        hold();
        return held != null ? ByteBlocks.Source.of(held, from, to) : new FileRange(spilled, name, from, to);
    }

    /**
     * Reads a stream input (or compressed content) once, into {@link #held} when it is smaller than
     * {@link #IN_MEMORY_LIMIT}, else into an unlinked temporary file ({@link #spilled}).
     */
    private void hold() throws IOException {
        if (held != null || spilled != null) {
            return;
        }
        try (InputStream in = stream()) {
            byte[] head = in.readNBytes(IN_MEMORY_LIMIT);
            if (head.length < IN_MEMORY_LIMIT) {
                held = head;
            } else {
                spillRest(head, in);
            }
        }
    }

    /** A stream's content read into memory by {@link #hold()}, or null. */
    private byte[] held;

    /**
     * A file holding the decompressed content, for readers that need a path (JFR's parser): the
     * file itself where it is plain, else a temporary copy deleted on {@link #close()}.
     */
    public Path file() throws IOException {
        if (isMappable()) {
            return path;
        }
        if (spill == null) {
            spill = TempFiles.create("input");
            try (InputStream in = stream(); var out = Files.newOutputStream(spill)) {
                in.transferTo(out);
            }
        }
        return spill;
    }

    /**
     * Copies a large stream to a temporary file that is unlinked at once, so nothing is left behind
     * whatever happens to the process; the open file keeps its bytes until it is closed.
     */
    private void spillRest(byte[] head, InputStream in) throws IOException {
        Path tmp = TempFiles.create("input");
        RandomAccessFile f;
        try {
            f = new RandomAccessFile(tmp.toFile(), "rw");
        } finally {
            TempFiles.delete(tmp);
        }
        try {
            f.write(head);
            long size = head.length;
            byte[] block = new byte[1 << 20];
            int n;
            while ((n = in.read(block)) > 0) {
                f.write(block, 0, n);
                size += n;
            }
            spilledSize = size;
            spilled = new FileRange.Shared(f);
        } catch (IOException e) {
            closeQuietly(f);
            throw new InputException(name + ": cannot spill the input to " + TempFiles.directory()
                    + " (set TMPDIR to a larger file system): " + reason(e), e);
        } catch (RuntimeException e) {
            closeQuietly(f);
            throw e;
        }
    }

    /** A large stream spilled to an unlinked temporary file, read in ranges through it, or null. */
    private FileRange.Shared spilled;
    private long spilledSize;

    private MemorySegment map(FileChannel ch) throws IOException {
        long size = ch.size();
        if (size == 0) {
            return MemorySegment.ofArray(new byte[0]);
        }
        return ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
    }

    static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        String m = e.getMessage();
        return m == null ? e.getClass().getSimpleName() : m;
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // closing after a failure: the first error is the one to report
        }
    }

    @Override
    public void close() {
        content = null;
        held = null;
        if (arena != null) {
            arena.close();
            arena = null;
        }
        if (spilled != null) {
            closeQuietly(spilled.raf);
            spilled = null;
        }
        if (spill != null) {
            TempFiles.delete(spill);
            spill = null;
        }
        if (stream != null) {
            closeQuietly(stream);
            stream = null;
        }
        if (file != null) {
            closeQuietly(file.raf); // and its channel
        }
    }

    /** Reads a file from the start through its own {@link FileRange}, so several readers never share a position. */
    private static final class FileStream extends InputStream {
        private final FileRange range;

        FileStream(FileRange range) {
            this.range = range;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return len == 0 ? 0 : range.read(b, off, len);
        }

        @Override
        public long skip(long n) {
            return range.skip(n);
        }

        @Override
        public int available() {
            return (int) Math.min(Integer.MAX_VALUE, range.remaining());
        }

        @Override
        public void close() {
            // the file belongs to the Input
        }
    }
}
