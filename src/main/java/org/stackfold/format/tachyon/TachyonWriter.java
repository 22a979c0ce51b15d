package org.stackfold.format.tachyon;

import com.github.luben.zstd.EndDirective;
import com.github.luben.zstd.ZstdCompressCtx;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.stackfold.model.ByteStringPool;

/**
 * Writes a Tachyon file with the same choices as CPython 3.15.2's C writer, so that the same
 * samples in the same order give the same bytes: per-thread delta encoding (REPEAT, FULL, SUFFIX,
 * POP_PUSH chosen by the same rule), repeated samples buffered per thread in 16 KiB and flushed
 * when the stack changes, the buffer fills, or at the end (threads in first-seen order), strings
 * and frames numbered in first-use order, stacks cut to the innermost 256 frames, and zstd at
 * level 5 fed in 512 KiB chunks with no content size.
 *
 * <p>The header comes first in the file but is known only at the end, so the sample data is held
 * until {@link #finish}: in memory (compressed where zstd is on), or beyond 64 MiB in a temporary
 * file, deleted at the end.
 */
public final class TachyonWriter {
    /** Header values a caller chooses; {@code stats} may be null (no statistics block). */
    public record Settings(long startTime, long interval, int compression, int mode, int captureFeatures,
                           ByteOrder order, int pyMajor, int pyMinor, int pyMicro, TachyonFile.Stats stats) {
        public static Settings defaults() {
            return new Settings(0, 1000, Tachyon.COMPRESSION_NONE, -1, -1, ByteOrder.LITTLE_ENDIAN,
                    Tachyon.PY_MAJOR, Tachyon.PY_MINOR, Tachyon.PY_MICRO, null);
        }

        public Settings withCompression(int c) {
            return new Settings(startTime, interval, c, mode, captureFeatures, order, pyMajor, pyMinor, pyMicro, stats);
        }

        public Settings withOrder(ByteOrder o) {
            return new Settings(startTime, interval, compression, mode, captureFeatures, o, pyMajor, pyMinor, pyMicro,
                    stats);
        }

        public Settings withTiming(long start, long every) {
            return new Settings(start, every, compression, mode, captureFeatures, order, pyMajor, pyMinor, pyMicro,
                    stats);
        }

        /** The settings a file was written with (for a faithful rewrite). */
        public static Settings of(TachyonFile f) {
            return new Settings(f.startTime(), f.interval(), f.compression() == Tachyon.COMPRESSION_ZSTD
                    ? Tachyon.COMPRESSION_ZSTD : Tachyon.COMPRESSION_NONE, f.mode(), f.captureFeatures(),
                    f.byteOrder(), f.pyMajor(), f.pyMinor(), f.pyMicro(), f.stats());
        }
    }

    private record FrameKey(int file, int func, int line, int endLine, int column, int endColumn, int opcode) {
    }

    private static final class ThreadEntry {
        final long tid;
        final int interp;
        final int[] prev = new int[Tachyon.MAX_STACK_DEPTH]; // innermost first, as in the file
        int depth;
        long prevTimestamp;
        byte[] rle;
        int rleBytes;
        int rleSamples;

        ThreadEntry(long tid, int interp, long start) {
            this.tid = tid;
            this.interp = interp;
            this.prevTimestamp = start;
        }
    }

    private record ThreadKey(long tid, int interp) {
    }

    private final Settings settings;
    private final FrameSource source;
    private final ByteStringPool strings = new ByteStringPool();
    private final Map<FrameKey, Integer> frameIds = new HashMap<>();
    private final List<FrameKey> frames = new ArrayList<>();
    private int[] callerToFrame = new int[1024]; // caller id -> frame index + 1
    private final Map<ThreadKey, ThreadEntry> threadMap = new HashMap<>();
    private final List<ThreadEntry> threads = new ArrayList<>();
    private ThreadEntry lastThread;
    private final int[] cur = new int[Tachyon.MAX_STACK_DEPTH];
    private long totalSamples;
    private final long[] recordCounts = new long[4];

    private final byte[] buffer = new byte[Tachyon.WRITE_BUFFER_SIZE];
    private int bufferPos;
    private final List<byte[]> sampleChunks = new ArrayList<>();
    private long sampleBytes;
    private long heldBytes;
    private static final long SPILL_THRESHOLD = 64L << 20;
    private java.nio.file.Path spillPath;
    private OutputStream spill;
    private final ZstdCompressCtx zstd;
    private ByteBuffer zIn;
    private ByteBuffer zOut;
    private final byte[] scratch = new byte[Tachyon.RECORD_HEADER_SIZE + 10 + 1 + 5 * (Tachyon.MAX_STACK_DEPTH + 2)];
    private boolean finished;

    public TachyonWriter(Settings settings, FrameSource source) {
        this.settings = settings;
        this.source = source;
        if (settings.compression() == Tachyon.COMPRESSION_ZSTD) {
            zstd = new ZstdCompressCtx();
            zstd.setLevel(Tachyon.ZSTD_LEVEL);
            zIn = ByteBuffer.allocateDirect(Tachyon.WRITE_BUFFER_SIZE);
            zOut = ByteBuffer.allocateDirect(Tachyon.WRITE_BUFFER_SIZE);
        } else {
            zstd = null;
        }
    }

    public long samples() {
        return totalSamples;
    }

    /** Records written so far per encoding (repeat counts only after a flush). */
    public long records(int encoding) {
        return recordCounts[encoding];
    }

    /**
     * One sample of one thread: {@code stack[0..depth)} are the caller's frame ids, innermost first
     * (only the innermost 256 are kept). {@code timestamp} is in microseconds.
     */
    public void sample(long threadId, int interpreterId, int status, long timestamp, int[] stack, int depth) {
        ThreadEntry t = thread(threadId, interpreterId);
        long delta = timestamp - t.prevTimestamp;
        int d = Math.min(depth, Tachyon.MAX_STACK_DEPTH);
        int[] c = cur;
        for (int k = 0; k < d; k++) {
            c[k] = frameIndex(stack[k]);
        }
        int[] prev = t.prev;
        int pd = t.depth;
        boolean same = pd == d;
        for (int i = 0; same && i < d; i++) {
            same = prev[i] == c[i];
        }
        if (same) {
            if (t.rle == null) {
                t.rle = new byte[Tachyon.RLE_BUFFER_SIZE];
            }
            if (t.rleBytes + Tachyon.RLE_ENTRY_MAX > Tachyon.RLE_BUFFER_SIZE) {
                flushRle(t);
            }
            t.rleBytes = putVarint(t.rle, t.rleBytes, delta);
            t.rle[t.rleBytes++] = (byte) status;
            t.rleSamples++;
        } else {
            int shared = 0;
            int min = Math.min(pd, d);
            while (shared < min && prev[pd - 1 - shared] == c[d - 1 - shared]) {
                shared++;
            }
            int pop = pd - shared;
            int push = d - shared;
            int enc;
            if (shared == 0) {
                enc = Tachyon.FULL;
            } else if (pop == 0 && push > 0) {
                enc = Tachyon.SUFFIX;
            } else if (shared < d / 2) {
                enc = Tachyon.FULL;
            } else {
                enc = Tachyon.POP_PUSH;
            }
            flushRle(t);
            byte[] s = scratch;
            int p = recordHeader(s, t, enc);
            p = putVarint(s, p, delta);
            s[p++] = (byte) status;
            switch (enc) {
                case Tachyon.FULL -> {
                    p = putVarint(s, p, d);
                    for (int i = 0; i < d; i++) {
                        p = putVarint(s, p, c[i] & 0xFFFFFFFFL);
                    }
                }
                case Tachyon.SUFFIX -> {
                    p = putVarint(s, p, shared);
                    p = putVarint(s, p, push);
                    for (int i = 0; i < push; i++) {
                        p = putVarint(s, p, c[i] & 0xFFFFFFFFL);
                    }
                }
                default -> {
                    p = putVarint(s, p, pop);
                    p = putVarint(s, p, push);
                    for (int i = 0; i < push; i++) {
                        p = putVarint(s, p, c[i] & 0xFFFFFFFFL);
                    }
                }
            }
            write(s, 0, p);
            recordCounts[enc]++;
            System.arraycopy(c, 0, prev, 0, d);
            t.depth = d;
        }
        t.prevTimestamp = timestamp;
        totalSamples++;
    }

    private ThreadEntry thread(long tid, int interp) {
        ThreadEntry t = lastThread;
        if (t != null && t.tid == tid && t.interp == interp) {
            return t;
        }
        ThreadKey k = new ThreadKey(tid, interp);
        t = threadMap.get(k);
        if (t == null) {
            t = new ThreadEntry(tid, interp, settings.startTime());
            threadMap.put(k, t);
            threads.add(t);
        }
        lastThread = t;
        return t;
    }

    private int frameIndex(int callerId) {
        if (callerId < callerToFrame.length) {
            int f = callerToFrame[callerId];
            if (f != 0) {
                return f - 1;
            }
        } else {
            callerToFrame = Arrays.copyOf(callerToFrame, Math.max(callerId + 1, callerToFrame.length * 2));
        }
        byte[] file = source.file(callerId);
        byte[] func = source.function(callerId);
        int fi = strings.intern(file, 0, file.length);
        int fn = strings.intern(func, 0, func.length);
        int op = source.opcode(callerId);
        if (op < 0 || op > Tachyon.MAX_REAL_OPCODE) {
            op = Tachyon.NO_OPCODE;
        }
        FrameKey key = new FrameKey(fi, fn, source.line(callerId), source.endLine(callerId),
                source.column(callerId), source.endColumn(callerId), op);
        Integer id = frameIds.get(key);
        if (id == null) {
            id = frames.size();
            frames.add(key);
            frameIds.put(key, id);
        }
        callerToFrame[callerId] = id + 1;
        return id;
    }

    private int recordHeader(byte[] s, ThreadEntry t, int enc) {
        putLong(s, 0, t.tid);
        putInt(s, 8, t.interp);
        s[12] = (byte) enc;
        return Tachyon.RECORD_HEADER_SIZE;
    }

    private void flushRle(ThreadEntry t) {
        if (t.rleSamples == 0) {
            return;
        }
        byte[] s = scratch;
        int p = recordHeader(s, t, Tachyon.REPEAT);
        p = putVarint(s, p, t.rleSamples);
        write(s, 0, p);
        write(t.rle, 0, t.rleBytes);
        recordCounts[Tachyon.REPEAT]++;
        t.rleBytes = 0;
        t.rleSamples = 0;
    }

    private void write(byte[] src, int off, int len) {
        while (len > 0) {
            int n = Math.min(len, buffer.length - bufferPos);
            System.arraycopy(src, off, buffer, bufferPos, n);
            bufferPos += n;
            off += n;
            len -= n;
            if (bufferPos == buffer.length) {
                flushBuffer();
            }
        }
    }

    private void flushBuffer() {
        if (bufferPos == 0) {
            return;
        }
        if (zstd == null) {
            emit(Arrays.copyOf(buffer, bufferPos));
        } else {
            zIn.clear();
            zIn.put(buffer, 0, bufferPos);
            zIn.flip();
            while (zIn.hasRemaining()) {
                zOut.clear();
                zstd.compressDirectByteBufferStream(zOut, zIn, EndDirective.CONTINUE);
                drainZstd();
            }
        }
        bufferPos = 0;
    }

    private void drainZstd() {
        zOut.flip();
        if (zOut.hasRemaining()) {
            byte[] b = new byte[zOut.remaining()];
            zOut.get(b);
            emit(b);
        }
    }

    private void emit(byte[] chunk) {
        sampleBytes += chunk.length;
        if (spill != null) {
            writeSpill(chunk);
            return;
        }
        sampleChunks.add(chunk);
        heldBytes += chunk.length;
        if (heldBytes > SPILL_THRESHOLD) {
            // Large outputs go to a temporary file so that memory stays bounded.
            try {
                spillPath = org.stackfold.io.TempFiles.create("tachyon-samples");
                spill = new java.io.BufferedOutputStream(java.nio.file.Files.newOutputStream(spillPath), 1 << 20);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            for (byte[] c : sampleChunks) {
                writeSpill(c);
            }
            sampleChunks.clear();
        }
    }

    private void writeSpill(byte[] chunk) {
        try {
            spill.write(chunk);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Flushes everything and writes the whole file to {@code out}. */
    public void finish(OutputStream out) throws IOException {
        if (finished) {
            throw new IllegalStateException("already finished");
        }
        finished = true;
        for (ThreadEntry t : threads) {
            flushRle(t);
        }
        flushBuffer();
        if (zstd != null) {
            zIn.clear();
            zIn.flip();
            boolean done;
            do {
                zOut.clear();
                done = zstd.compressDirectByteBufferStream(zOut, zIn, EndDirective.END);
                drainZstd();
            } while (!done);
            zstd.close();
        }
        long stringTableOffset = Tachyon.HEADER_SIZE + sampleBytes;
        ByteArrayOut tables = new ByteArrayOut();
        byte[] v = new byte[10];
        for (int i = 0; i < strings.size(); i++) {
            byte[] b = strings.bytes(i);
            tables.write(v, 0, putVarint(v, 0, b.length));
            tables.write(b, 0, b.length);
        }
        long frameTableOffset = stringTableOffset + tables.size();
        byte[] fb = new byte[64];
        for (FrameKey f : frames) {
            int p = putVarint(fb, 0, f.file() & 0xFFFFFFFFL);
            p = putVarint(fb, p, f.func() & 0xFFFFFFFFL);
            p = putZigzag(fb, p, f.line());
            p = putZigzag(fb, p, f.line() != Tachyon.NO_LOCATION && f.endLine() != Tachyon.NO_LOCATION
                    ? f.endLine() - f.line() : 0);
            p = putZigzag(fb, p, f.column());
            p = putZigzag(fb, p, f.column() != Tachyon.NO_LOCATION && f.endColumn() != Tachyon.NO_LOCATION
                    ? f.endColumn() - f.column() : 0);
            fb[p++] = (byte) f.opcode();
            tables.write(fb, 0, p);
        }
        TachyonFile.Stats st = settings.stats();
        if (st != null) {
            byte[] sb;
            if (st.size() == Tachyon.STATS_LEGACY_SIZE) {
                sb = new byte[Tachyon.STATS_LEGACY_SIZE];
                putDouble(sb, 0, st.duration());
                putDouble(sb, 8, st.sampleRate());
                System.arraycopy(Tachyon.STATS_MAGIC, 0, sb, 16, 8);
                putInt(sb, 24, Tachyon.STATS_VERSION);
                putInt(sb, 28, Tachyon.STATS_LEGACY_SIZE);
            } else {
                sb = new byte[Tachyon.STATS_SIZE];
                putDouble(sb, 0, st.duration());
                putDouble(sb, 8, st.sampleRate());
                putDouble(sb, 16, Double.isNaN(st.errorRate()) ? 0 : st.errorRate());
                putDouble(sb, 24, Double.isNaN(st.missedSamples()) ? 0 : st.missedSamples());
                putInt(sb, 32, st.present());
                System.arraycopy(Tachyon.STATS_MAGIC, 0, sb, 40, 8);
                putInt(sb, 48, Tachyon.STATS_VERSION);
                putInt(sb, 52, Tachyon.STATS_SIZE);
            }
            tables.write(sb, 0, sb.length);
        }
        long fileSize = stringTableOffset + tables.size() + Tachyon.FOOTER_SIZE;
        byte[] footer = new byte[Tachyon.FOOTER_SIZE];
        putInt(footer, Tachyon.F_STRINGS, strings.size());
        putInt(footer, Tachyon.F_FRAMES, frames.size());
        putLong(footer, Tachyon.F_FILE_SIZE, fileSize);

        byte[] h = new byte[Tachyon.HEADER_SIZE];
        putInt(h, Tachyon.H_MAGIC, Tachyon.MAGIC);
        putInt(h, Tachyon.H_VERSION, Tachyon.VERSION);
        h[Tachyon.H_PY_MAJOR] = (byte) settings.pyMajor();
        h[Tachyon.H_PY_MINOR] = (byte) settings.pyMinor();
        h[Tachyon.H_PY_MICRO] = (byte) settings.pyMicro();
        putLong(h, Tachyon.H_START_TIME, settings.startTime());
        putLong(h, Tachyon.H_INTERVAL, settings.interval());
        putLong(h, Tachyon.H_SAMPLES, totalSamples);
        putInt(h, Tachyon.H_THREADS, threads.size());
        putLong(h, Tachyon.H_STRING_TABLE, stringTableOffset);
        putLong(h, Tachyon.H_FRAME_TABLE, frameTableOffset);
        putInt(h, Tachyon.H_COMPRESSION, settings.compression());
        int config = settings.mode() + 1;
        if (settings.captureFeatures() >= 0) {
            config |= Tachyon.CONFIG_FEATURES_KNOWN | settings.captureFeatures() << Tachyon.CONFIG_FEATURES_SHIFT;
        }
        putInt(h, Tachyon.H_CONFIG, config);

        out.write(h);
        if (spill != null) {
            try {
                spill.close();
                java.nio.file.Files.copy(spillPath, out);
            } finally {
                org.stackfold.io.TempFiles.delete(spillPath);
            }
        }
        for (byte[] c : sampleChunks) {
            out.write(c);
        }
        sampleChunks.clear();
        tables.writeTo(out);
        out.write(footer);
        out.flush();
    }

    // ---- encoding helpers ----

    static int putVarint(byte[] b, int p, long v) {
        while (Long.compareUnsigned(v, 0x80) >= 0) {
            b[p++] = (byte) (v | 0x80);
            v >>>= 7;
        }
        b[p++] = (byte) v;
        return p;
    }

    static int putZigzag(byte[] b, int p, int v) {
        return putVarint(b, p, ((v << 1) ^ (v >> 31)) & 0xFFFFFFFFL);
    }

    private void putInt(byte[] b, int p, int v) {
        if (settings.order() == ByteOrder.BIG_ENDIAN) {
            v = Integer.reverseBytes(v);
        }
        b[p] = (byte) v;
        b[p + 1] = (byte) (v >>> 8);
        b[p + 2] = (byte) (v >>> 16);
        b[p + 3] = (byte) (v >>> 24);
    }

    private void putLong(byte[] b, int p, long v) {
        if (settings.order() == ByteOrder.BIG_ENDIAN) {
            v = Long.reverseBytes(v);
        }
        for (int i = 0; i < 8; i++) {
            b[p + i] = (byte) (v >>> (8 * i));
        }
    }

    private void putDouble(byte[] b, int p, double d) {
        putLong(b, p, Double.doubleToRawLongBits(d));
    }

    /** A growable byte array for the tables (they follow the sample data). */
    private static final class ByteArrayOut extends java.io.ByteArrayOutputStream {
        ByteArrayOut() {
            super(1 << 12);
        }
    }
}
