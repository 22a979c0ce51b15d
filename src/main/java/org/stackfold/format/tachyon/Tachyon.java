package org.stackfold.format.tachyon;

/**
 * Constants of CPython's "Tachyon" sampling-profiler file (CPython 3.15, format version 1). Layout:
 * a 64-byte header, the sample records (raw or one zstd frame), the string table, the frame table,
 * an optional statistics block and a 32-byte footer. Fixed-width fields use the writer's byte order.
 * See docs/formats/tachyon.md.
 */
public final class Tachyon {
    private Tachyon() {
    }

    /** "TACH" read as a u32 in the writer's byte order. */
    public static final int MAGIC = 0x54414348;
    /** The magic as it reads when the file has the other byte order. */
    public static final int MAGIC_SWAPPED = 0x48434154;
    public static final int VERSION = 1;

    public static final int HEADER_SIZE = 64;
    public static final int FOOTER_SIZE = 32;

    // Header offsets.
    static final int H_MAGIC = 0;
    static final int H_VERSION = 4;
    static final int H_PY_MAJOR = 8;
    static final int H_PY_MINOR = 9;
    static final int H_PY_MICRO = 10;
    static final int H_START_TIME = 12;
    static final int H_INTERVAL = 20;
    static final int H_SAMPLES = 28;
    static final int H_THREADS = 36;
    static final int H_STRING_TABLE = 40;
    static final int H_FRAME_TABLE = 48;
    static final int H_COMPRESSION = 56;
    static final int H_CONFIG = 60;

    // Footer offsets (relative to the footer's start, file size - 32).
    static final int F_STRINGS = 0;
    static final int F_FRAMES = 4;
    static final int F_FILE_SIZE = 8;

    public static final int COMPRESSION_NONE = 0;
    public static final int COMPRESSION_ZSTD = 1;
    /** CPython's writer uses this zstd level. */
    public static final int ZSTD_LEVEL = 5;
    /** CPython's reader refuses sample data that decompresses to more than this. */
    public static final long MAX_DECOMPRESSED = 1L << 30;
    /** CPython's writer hands its record buffer to zstd (or the file) in chunks of this size. */
    static final int WRITE_BUFFER_SIZE = 512 * 1024;

    // Record encodings.
    public static final int REPEAT = 0;
    public static final int FULL = 1;
    public static final int SUFFIX = 2;
    public static final int POP_PUSH = 3;
    static final String[] ENCODING_NAMES = {"repeat", "full", "suffix", "pop-push"};

    /** thread id u64, interpreter id u32, encoding u8. */
    public static final int RECORD_HEADER_SIZE = 13;
    /** Writer keeps the innermost 256 frames; reader's per-thread stack holds 256. */
    public static final int MAX_STACK_DEPTH = 256;
    /** Per-thread buffer of repeated samples in CPython's writer, and the worst-case entry size. */
    static final int RLE_BUFFER_SIZE = 16 * 1024;
    static final int RLE_ENTRY_MAX = 11;

    // Status bits of a sample.
    public static final int STATUS_HAS_GIL = 0x01;
    public static final int STATUS_ON_CPU = 0x02;
    public static final int STATUS_UNKNOWN = 0x04;
    public static final int STATUS_GIL_REQUESTED = 0x08;
    public static final int STATUS_HAS_EXCEPTION = 0x10;
    public static final int STATUS_MAIN_THREAD = 0x20;

    /** Line/column "not available"; opcode "none". */
    public static final int NO_LOCATION = -1;
    public static final int NO_OPCODE = 255;
    /** The writer maps opcodes outside 0..254 to {@link #NO_OPCODE}. */
    public static final int MAX_REAL_OPCODE = 254;

    // Config word at header offset 60.
    static final int CONFIG_MODE_MASK = 7;
    static final int CONFIG_FEATURES_KNOWN = 8;
    static final int CONFIG_FEATURES_SHIFT = 4;
    public static final String[] MODES = {"wall", "cpu", "gil", "all", "exception"};
    public static final String[] FEATURES = {"all_threads", "native", "gc", "opcodes", "blocking"};

    // Statistics block ("TACHSTAT").
    static final byte[] STATS_MAGIC = {'T', 'A', 'C', 'H', 'S', 'T', 'A', 'T'};
    public static final int STATS_SIZE = 56;
    public static final int STATS_LEGACY_SIZE = 32;
    static final int STATS_VERSION = 1;
    public static final int STATS_ERROR_RATE = 1;
    public static final int STATS_MISSED = 2;

    /** Python version this implementation mirrors (written into headers it makes). */
    public static final int PY_MAJOR = 3;
    public static final int PY_MINOR = 15;
    public static final int PY_MICRO = 2;

    /** Name of a mode number, or "unknown". */
    public static String modeName(int mode) {
        return mode >= 0 && mode < MODES.length ? MODES[mode] : mode < 0 ? "unknown" : "mode " + mode;
    }
}
