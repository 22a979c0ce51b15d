package org.stackfold.format.tachyon;

import com.github.luben.zstd.ZstdDecompressCtx;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.stackfold.io.InputException;

/**
 * An opened Tachyon file: header, footer, statistics, string and frame tables, and the sample
 * region (a slice of the mapped file, or the decompressed zstd frame). Opening checks what CPython
 * 3.15.2's reader checks when it opens a file, in the same order, and nothing more; the records
 * are decoded lazily by {@link TachyonReplay}.
 *
 * <p>No count or length read from the file is trusted for an allocation: tables grow as entries
 * are actually parsed, and every length is checked against the bytes that remain.
 */
public final class TachyonFile {
    private static final byte[] EMPTY = new byte[0];

    private final String source;
    private final MemorySegment file;
    private final long size;
    private final ByteOrder order;
    private final ValueLayout.OfInt u32;
    private final ValueLayout.OfLong u64;
    private final ValueLayout.OfDouble f64;

    private final int version;
    private final int pyMajor;
    private final int pyMinor;
    private final int pyMicro;
    private final long startTime;
    private final long interval;
    private final long sampleCount;
    private final long threadCount;
    private final long stringTableOffset;
    private final long frameTableOffset;
    private final int compression;
    private final int config;
    private final long stringCountDeclared;
    private final long frameCountDeclared;
    private final long footerFileSize;
    private final Stats stats;

    private byte[][] strings;
    private int stringCount;
    private int[] fileIdx;
    private int[] funcIdx;
    private int[] line;
    private int[] endLine;
    private int[] column;
    private int[] endColumn;
    private int[] opcode;
    private int frameCount;

    private final MemorySegment samples;
    private final long samplesFileOffset;

    /**
     * The statistics block. {@code errorRate}/{@code missedSamples} are the stored values, meaningful
     * only where {@link #hasErrorRate}/{@link #hasMissedSamples}; {@code size} is 56, or 32 for the
     * legacy block without them.
     */
    public record Stats(double duration, double sampleRate, double errorRate, double missedSamples,
                        int present, int size) {
        public boolean hasErrorRate() {
            return (present & Tachyon.STATS_ERROR_RATE) != 0 && size >= Tachyon.STATS_SIZE;
        }

        public boolean hasMissedSamples() {
            return (present & Tachyon.STATS_MISSED) != 0 && size >= Tachyon.STATS_SIZE;
        }
    }

    private TachyonFile(String source, MemorySegment file) {
        this.source = source;
        this.file = file;
        this.size = file.byteSize();
        if (size < Tachyon.HEADER_SIZE) {
            throw error(0, "File too small for header (" + size + " bytes, need 64)");
        }
        int magic = file.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), Tachyon.H_MAGIC);
        if (magic == Tachyon.MAGIC) {
            order = ByteOrder.LITTLE_ENDIAN;
        } else if (magic == Tachyon.MAGIC_SWAPPED) {
            order = ByteOrder.BIG_ENDIAN;
        } else {
            throw error(0, String.format("Invalid magic number: 0x%08x (not a Tachyon file)", magic));
        }
        u32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(order);
        u64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(order);
        f64 = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(order);

        version = file.get(u32, Tachyon.H_VERSION);
        pyMajor = file.get(ValueLayout.JAVA_BYTE, Tachyon.H_PY_MAJOR) & 0xFF;
        pyMinor = file.get(ValueLayout.JAVA_BYTE, Tachyon.H_PY_MINOR) & 0xFF;
        pyMicro = file.get(ValueLayout.JAVA_BYTE, Tachyon.H_PY_MICRO) & 0xFF;
        if (version == 0) {
            throw error(Tachyon.H_VERSION, "Unsupported format version 0 (this reader supports version 1)");
        }
        if (Integer.compareUnsigned(version, Tachyon.VERSION) > 0) {
            throw error(Tachyon.H_VERSION, "Binary file was created with Python " + pyMajor + "." + pyMinor + "."
                    + pyMicro + " (format version " + Integer.toUnsignedString(version)
                    + "), but this reader supports format version 1");
        }
        startTime = file.get(u64, Tachyon.H_START_TIME);
        interval = file.get(u64, Tachyon.H_INTERVAL);
        sampleCount = file.get(u64, Tachyon.H_SAMPLES);
        threadCount = file.get(u32, Tachyon.H_THREADS) & 0xFFFFFFFFL;
        stringTableOffset = file.get(u64, Tachyon.H_STRING_TABLE);
        frameTableOffset = file.get(u64, Tachyon.H_FRAME_TABLE);
        compression = file.get(u32, Tachyon.H_COMPRESSION);
        config = file.get(u32, Tachyon.H_CONFIG);
        if ((config & Tachyon.CONFIG_MODE_MASK) > 5) {
            throw error(Tachyon.H_CONFIG, "Invalid profiling mode in header: " + (config & Tachyon.CONFIG_MODE_MASK));
        }
        checkOffsets();
        if (size < Tachyon.HEADER_SIZE + Tachyon.FOOTER_SIZE) {
            throw error(size, "File too small for footer (" + size + " bytes, need 96)");
        }
        stats = readStats();
        long footer = size - Tachyon.FOOTER_SIZE;
        stringCountDeclared = file.get(u32, footer + Tachyon.F_STRINGS) & 0xFFFFFFFFL;
        frameCountDeclared = file.get(u32, footer + Tachyon.F_FRAMES) & 0xFFFFFFFFL;
        footerFileSize = file.get(u64, footer + Tachyon.F_FILE_SIZE);
        long maxStrings = size - stringTableOffset;
        if (stringCountDeclared > maxStrings) {
            throw error(footer + Tachyon.F_STRINGS, "Invalid string count " + stringCountDeclared
                    + " exceeds maximum possible " + maxStrings);
        }
        long maxFrames = (size - frameTableOffset) / 7;
        if (frameCountDeclared > maxFrames) {
            throw error(footer + Tachyon.F_FRAMES, "Invalid frame count " + frameCountDeclared
                    + " exceeds maximum possible " + maxFrames);
        }
        if (stringCountDeclared > Integer.MAX_VALUE - 8 || frameCountDeclared > Integer.MAX_VALUE - 8) {
            throw error(footer, "More than 2^31 strings or frames: more than this reader supports");
        }
        if (compression == Tachyon.COMPRESSION_ZSTD) {
            samples = decompress(file.asSlice(Tachyon.HEADER_SIZE, stringTableOffset - Tachyon.HEADER_SIZE));
            samplesFileOffset = -1;
        } else {
            // CPython 3.15.2 treats every compression value other than 1 as uncompressed.
            samples = file.asSlice(Tachyon.HEADER_SIZE, stringTableOffset - Tachyon.HEADER_SIZE);
            samplesFileOffset = Tachyon.HEADER_SIZE;
        }
        readStrings();
        readFrames();
    }

    /** Opens a whole file held in a segment (see {@code Input.bytes()}); bad content is an {@link InputException}. */
    public static TachyonFile open(String source, MemorySegment file) {
        return new TachyonFile(source, file);
    }

    InputException error(long offset, String what) {
        return InputException.atOffset(source, offset, what);
    }

    private void checkOffsets() {
        if (Long.compareUnsigned(stringTableOffset, size) > 0) {
            throw error(Tachyon.H_STRING_TABLE, "Invalid string table offset: "
                    + Long.toUnsignedString(stringTableOffset) + " exceeds file size " + size);
        }
        if (Long.compareUnsigned(frameTableOffset, size) > 0) {
            throw error(Tachyon.H_FRAME_TABLE, "Invalid frame table offset: "
                    + Long.toUnsignedString(frameTableOffset) + " exceeds file size " + size);
        }
        if (stringTableOffset < Tachyon.HEADER_SIZE) {
            throw error(Tachyon.H_STRING_TABLE, "Invalid string table offset: " + stringTableOffset
                    + " is before data section");
        }
        if (frameTableOffset < Tachyon.HEADER_SIZE) {
            throw error(Tachyon.H_FRAME_TABLE, "Invalid frame table offset: " + frameTableOffset
                    + " is before data section");
        }
        if (stringTableOffset > frameTableOffset) {
            throw error(Tachyon.H_STRING_TABLE, "Invalid table offsets: string table (" + stringTableOffset
                    + ") is after frame table (" + frameTableOffset + ")");
        }
    }

    private Stats readStats() {
        long sig = size - Tachyon.FOOTER_SIZE - 16;
        if (sig < 0 || mismatch(sig)) {
            return null;
        }
        int statsVersion = file.get(u32, sig + 8);
        long statsSize = file.get(u32, sig + 12) & 0xFFFFFFFFL;
        if (statsSize < Tachyon.STATS_LEGACY_SIZE || statsSize > size - Tachyon.FOOTER_SIZE) {
            throw error(sig + 12, "Invalid profiling statistics size " + statsSize);
        }
        if (statsVersion != Tachyon.STATS_VERSION) {
            return null; // a later extension version: ignored, as CPython does
        }
        long start = size - Tachyon.FOOTER_SIZE - statsSize;
        double duration = file.get(f64, start);
        double rate = file.get(f64, start + 8);
        double errorRate = Double.NaN;
        double missed = Double.NaN;
        int present = 0;
        if (statsSize >= Tachyon.STATS_SIZE) {
            // Kept raw even where the present bit is clear, so a rewrite gives the same bytes.
            present = file.get(u32, start + 32);
            errorRate = file.get(f64, start + 16);
            missed = file.get(f64, start + 24);
        }
        boolean ok = Double.isFinite(duration) && duration >= 0 && Double.isFinite(rate) && rate >= 0
                && ((present & Tachyon.STATS_ERROR_RATE) == 0 || (Double.isFinite(errorRate) && errorRate >= 0))
                && ((present & Tachyon.STATS_MISSED) == 0 || Double.isFinite(missed));
        if (!ok) {
            throw error(start, "Invalid profiling statistics values (duration " + duration + ", rate " + rate
                    + ", error rate " + errorRate + ", missed " + missed + ")");
        }
        return new Stats(duration, rate, errorRate, missed, present, (int) statsSize);
    }

    private boolean mismatch(long at) {
        for (int i = 0; i < 8; i++) {
            if (file.get(ValueLayout.JAVA_BYTE, at + i) != Tachyon.STATS_MAGIC[i]) {
                return true;
            }
        }
        return false;
    }

    /**
     * Decompresses the sample region (one zstd frame) into native memory grown with
     * {@code realloc}, as CPython does, refusing more than 1 GiB as CPython does. Native memory
     * outside the JVM's heap and direct-buffer limits, so a large profile or a decompression bomb
     * never ends in an OutOfMemoryError: at worst in an {@link InputException}.
     */
    private MemorySegment decompress(MemorySegment compressed) {
        long n = compressed.byteSize();
        if (n == 0) {
            return MemorySegment.ofArray(EMPTY);
        }
        NativeBuffer out = new NativeBuffer(Math.min(Math.max(n * 4, 1 << 16), Tachyon.MAX_DECOMPRESSED));
        long inPos = 0;
        boolean done = false;
        ByteBuffer src = ByteBuffer.allocateDirect(0);
        ByteBuffer dst = ByteBuffer.allocateDirect(1 << 17);
        MemorySegment dstSeg = MemorySegment.ofBuffer(dst);
        try (ZstdDecompressCtx ctx = new ZstdDecompressCtx()) {
            while (true) {
                if (!src.hasRemaining() && inPos < n) {
                    int take = (int) Math.min(n - inPos, 1 << 24);
                    if (src.capacity() < take) {
                        src = ByteBuffer.allocateDirect(take);
                    }
                    src.clear();
                    MemorySegment.ofBuffer(src).copyFrom(compressed.asSlice(inPos, take));
                    src.limit(take);
                    inPos += take;
                }
                dst.clear();
                try {
                    done = ctx.decompressDirectByteBufferStream(dst, src);
                } catch (RuntimeException e) {
                    out.free();
                    throw error(Tachyon.HEADER_SIZE, "zstd decompression error: " + e.getMessage());
                }
                int got = dst.position();
                if (got > 0) {
                    if (out.size + got > Tachyon.MAX_DECOMPRESSED) {
                        out.free();
                        throw error(Tachyon.HEADER_SIZE, "Decompressed sample data exceeds the maximum size of 1 GiB"
                                + " (CPython's limit too)");
                    }
                    if (!out.append(dstSeg, got)) {
                        out.free();
                        throw error(Tachyon.HEADER_SIZE, "not enough memory to decompress the sample data ("
                                + (out.size + got) + " bytes so far)");
                    }
                }
                if (!src.hasRemaining() && inPos >= n && (done || got == 0)) {
                    break;
                }
            }
        }
        if (!done) {
            out.free();
            throw error(stringTableOffset, "Incomplete zstd frame: sample data may be truncated");
        }
        return out.finish();
    }

    /** A malloc/realloc buffer, freed when its final segment becomes unreachable. */
    private static final class NativeBuffer {
        private static final Linker LINKER = Linker.nativeLinker();
        private static final MethodHandle MALLOC = LINKER.downcallHandle(LINKER.defaultLookup().find("malloc").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
        private static final MethodHandle REALLOC = LINKER.downcallHandle(LINKER.defaultLookup().find("realloc").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
        private static final MethodHandle FREE = LINKER.downcallHandle(LINKER.defaultLookup().find("free").orElseThrow(),
                FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));

        private MemorySegment mem;
        private long capacity;
        long size;

        NativeBuffer(long initial) {
            mem = call(MALLOC, MemorySegment.NULL, initial);
            if (mem.equals(MemorySegment.NULL)) {
                throw new InputException("not enough memory for " + initial + " bytes of sample data");
            }
            capacity = initial;
            mem = mem.reinterpret(capacity);
        }

        boolean append(MemorySegment from, int len) {
            if (size + len > capacity) {
                long cap = Math.min(Tachyon.MAX_DECOMPRESSED, Math.max(capacity * 2, size + len));
                MemorySegment bigger = call(REALLOC, mem, cap);
                if (bigger.equals(MemorySegment.NULL)) {
                    return false;
                }
                mem = bigger.reinterpret(cap);
                capacity = cap;
            }
            MemorySegment.copy(from, 0, mem, size, len);
            size += len;
            return true;
        }

        MemorySegment finish() {
            MemorySegment m = mem;
            mem = null;
            return m.reinterpret(size, Arena.ofAuto(), NativeBuffer::release);
        }

        void free() {
            if (mem != null) {
                release(mem);
                mem = null;
            }
        }

        private static void release(MemorySegment m) {
            try {
                FREE.invokeExact(m);
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }

        private static MemorySegment call(MethodHandle h, MemorySegment p, long size) {
            try {
                return h == MALLOC ? (MemorySegment) h.invokeExact(size) : (MemorySegment) h.invokeExact(p, size);
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }
    }

    private void readStrings() {
        long pos = stringTableOffset;
        int cap = (int) Math.min(stringCountDeclared, 1024);
        strings = new byte[cap][];
        for (long i = 0; i < stringCountDeclared; i++) {
            long start = pos;
            long len = 0;
            int shift = 0;
            while (true) {
                if (pos >= size) {
                    throw error(start, "Malformed varint in string table (string " + i + ")");
                }
                int b = file.get(ValueLayout.JAVA_BYTE, pos++);
                len |= (long) (b & 0x7F) << shift;
                if (b >= 0) {
                    break;
                }
                shift += 7;
                if (shift >= 64) {
                    throw error(start, "Malformed varint in string table (string " + i + ")");
                }
            }
            if (Long.compareUnsigned(len, 0xFFFFFFFFL) > 0) {
                throw error(start, "Malformed varint in string table (string " + i + " length exceeds u32)");
            }
            if (len > Integer.MAX_VALUE - 8) {
                throw error(start, "String " + i + " of " + len + " bytes is longer than this reader supports (2 GiB)");
            }
            if (len > size - pos) {
                throw error(start, "String table overflow: string " + i + " of " + len + " bytes runs past the end of the file");
            }
            if (stringCount == strings.length) {
                strings = Arrays.copyOf(strings, (int) Math.min((long) stringCount * 2, stringCountDeclared));
            }
            strings[stringCount++] = len == 0 ? EMPTY : utf8(file.asSlice(pos, len).toArray(ValueLayout.JAVA_BYTE));
            pos += len;
        }
    }

    /** CPython decodes table strings with UTF-8 "replace"; valid UTF-8 is kept as is. */
    private static byte[] utf8(byte[] b) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b));
            return b;
        } catch (CharacterCodingException e) {
            return new String(b, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8);
        }
    }

    private void readFrames() {
        int cap = (int) Math.min(frameCountDeclared, 1024);
        fileIdx = new int[cap];
        funcIdx = new int[cap];
        line = new int[cap];
        endLine = new int[cap];
        column = new int[cap];
        endColumn = new int[cap];
        opcode = new int[cap];
        long[] p = {frameTableOffset};
        for (long i = 0; i < frameCountDeclared; i++) {
            if (frameCount == fileIdx.length) {
                int c = (int) Math.min((long) frameCount * 2, frameCountDeclared);
                fileIdx = Arrays.copyOf(fileIdx, c);
                funcIdx = Arrays.copyOf(funcIdx, c);
                line = Arrays.copyOf(line, c);
                endLine = Arrays.copyOf(endLine, c);
                column = Arrays.copyOf(column, c);
                endColumn = Arrays.copyOf(endColumn, c);
                opcode = Arrays.copyOf(opcode, c);
            }
            int f = frameCount;
            fileIdx[f] = tableU32(p, "filename", i);
            funcIdx[f] = tableU32(p, "funcname", i);
            int ln = zigzag(tableU32(p, "lineno", i));
            int endDelta = zigzag(tableU32(p, "end_lineno_delta", i));
            int col = zigzag(tableU32(p, "column", i));
            int endColDelta = zigzag(tableU32(p, "end_column_delta", i));
            if (p[0] >= size) {
                throw error(p[0], "Unexpected end of frame table (opcode of frame " + i + ")");
            }
            opcode[f] = file.get(ValueLayout.JAVA_BYTE, p[0]++) & 0xFF;
            line[f] = ln;
            endLine[f] = ln == Tachyon.NO_LOCATION ? Tachyon.NO_LOCATION : ln + endDelta;
            column[f] = col;
            endColumn[f] = col == Tachyon.NO_LOCATION ? Tachyon.NO_LOCATION : col + endColDelta;
            frameCount++;
        }
    }

    private int tableU32(long[] p, String field, long frame) {
        long pos = p[0];
        long v = 0;
        int shift = 0;
        while (true) {
            if (pos >= size) {
                throw error(p[0], "Malformed varint in frame table (" + field + " of frame " + frame + ")");
            }
            int b = file.get(ValueLayout.JAVA_BYTE, pos++);
            v |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                break;
            }
            shift += 7;
            if (shift >= 64) {
                throw error(p[0], "Malformed varint in frame table (" + field + " of frame " + frame + ")");
            }
        }
        if (Long.compareUnsigned(v, 0xFFFFFFFFL) > 0) {
            throw error(p[0], "Malformed varint in frame table (" + field + " of frame " + frame + " exceeds u32)");
        }
        p[0] = pos;
        return (int) v;
    }

    static int zigzag(int z) {
        return (z >>> 1) ^ -(z & 1);
    }

    // ---- accessors ----

    public String source() {
        return source;
    }

    public long size() {
        return size;
    }

    public ByteOrder byteOrder() {
        return order;
    }

    public int version() {
        return version;
    }

    public int pyMajor() {
        return pyMajor;
    }

    public int pyMinor() {
        return pyMinor;
    }

    public int pyMicro() {
        return pyMicro;
    }

    /** Start time in microseconds of a monotonic clock (unsigned). */
    public long startTime() {
        return startTime;
    }

    public long interval() {
        return interval;
    }

    /** Thread-samples the header declares (unsigned). */
    public long sampleCount() {
        return sampleCount;
    }

    public long threadCount() {
        return threadCount;
    }

    public long stringTableOffset() {
        return stringTableOffset;
    }

    public long frameTableOffset() {
        return frameTableOffset;
    }

    public int compression() {
        return compression;
    }

    public int configWord() {
        return config;
    }

    /** Profiling mode (0 wall, 1 cpu, 2 gil, 3 all, 4 exception), or -1 where unknown. */
    public int mode() {
        return (config & Tachyon.CONFIG_MODE_MASK) - 1;
    }

    /** Capture-feature bits, or -1 where the writer did not record them. */
    public int captureFeatures() {
        return (config & Tachyon.CONFIG_FEATURES_KNOWN) == 0 ? -1 : config >>> Tachyon.CONFIG_FEATURES_SHIFT;
    }

    public long footerFileSize() {
        return footerFileSize;
    }

    /** The statistics block, or null where absent (or of an unknown version). */
    public Stats stats() {
        return stats;
    }

    public int stringCount() {
        return stringCount;
    }

    public byte[] string(int i) {
        return strings[i];
    }

    public int frameCount() {
        return frameCount;
    }

    /** String index of a frame's file name (unchecked: see {@link #frameStringsValid}). */
    public int frameFile(int f) {
        return fileIdx[f];
    }

    public int frameFunc(int f) {
        return funcIdx[f];
    }

    public int frameLine(int f) {
        return line[f];
    }

    public int frameEndLine(int f) {
        return endLine[f];
    }

    public int frameColumn(int f) {
        return column[f];
    }

    public int frameEndColumn(int f) {
        return endColumn[f];
    }

    /** 0..254, or {@link Tachyon#NO_OPCODE}. */
    public int frameOpcode(int f) {
        return opcode[f];
    }

    /** CPython checks a frame's string indices only when a sample uses the frame. */
    public boolean frameStringsValid(int f) {
        return Integer.compareUnsigned(fileIdx[f], stringCount) < 0 && Integer.compareUnsigned(funcIdx[f], stringCount) < 0;
    }

    /** The sample records: a slice of the file, or the decompressed data. */
    public MemorySegment sampleData() {
        return samples;
    }

    /** File offset of the first sample byte, or -1 where the data was decompressed. */
    public long sampleDataFileOffset() {
        return samplesFileOffset;
    }

    /** Size of the sample region as stored in the file. */
    public long storedSampleBytes() {
        return stringTableOffset - Tachyon.HEADER_SIZE;
    }

    ValueLayout.OfInt u32() {
        return u32;
    }

    ValueLayout.OfLong u64() {
        return u64;
    }
}
