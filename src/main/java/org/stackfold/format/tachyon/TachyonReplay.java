package org.stackfold.format.tachyon;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.stackfold.io.InputException;
import org.stackfold.io.Progress;

/**
 * Decodes the sample records of a {@link TachyonFile} and hands them to a {@link SampleListener},
 * one record at a time (streaming: memory does not grow with the number of samples). Checks what
 * CPython 3.15.2's replay checks, with the same outcome: records before an error have already been
 * delivered when the {@link InputException} is thrown.
 */
public final class TachyonReplay {
    private static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;

    private final TachyonFile file;
    private final MemorySegment data;
    private final long end;
    private final ValueLayout.OfLong u64;
    private final ValueLayout.OfInt u32;
    private final boolean[] frameChecked;
    private final int frameCount;
    private final long[] ts = new long[4096];

    // Threads by (thread id, interpreter id): open addressing over parallel arrays.
    private long[] keyTid = new long[64];
    private int[] keyInterp = new int[64];
    private TachyonThread[] slot = new TachyonThread[64];
    private final List<TachyonThread> threads = new ArrayList<>();
    private TachyonThread last;

    private final long[] records = new long[4];
    private long repeatSamples;
    private long samples;
    private long pos;
    private boolean trackStatus;

    public TachyonReplay(TachyonFile file) {
        this.file = file;
        this.data = file.sampleData();
        this.end = data.byteSize();
        this.u64 = file.u64();
        this.u32 = file.u32();
        this.frameCount = file.frameCount();
        this.frameChecked = new boolean[frameCount];
    }

    private Progress progress = Progress.NONE;

    /** Reports progress (bytes of sample data decoded) to a bar. */
    public TachyonReplay progress(Progress p) {
        progress = p;
        return this;
    }

    /** Also count, per thread, samples by status byte (for {@code stackfold info}). */
    public TachyonReplay trackStatus() {
        trackStatus = true;
        return this;
    }

    /** Threads in order of first appearance (after or during {@link #run}). */
    public List<TachyonThread> threads() {
        return threads;
    }

    /** Records decoded per encoding (index {@link Tachyon#REPEAT} ... {@link Tachyon#POP_PUSH}). */
    public long records(int encoding) {
        return records[encoding];
    }

    public long repeatSamples() {
        return repeatSamples;
    }

    public long samples() {
        return samples;
    }

    private InputException error(long at, String what) {
        long base = file.sampleDataFileOffset();
        if (base >= 0) {
            return InputException.atOffset(file.source(), base + at, what);
        }
        return new InputException(file.source() + ": at byte " + at + " of the decompressed sample data: " + what);
    }

    /** Decodes every record, then checks the total against the header's sample count. */
    public void run(SampleListener listener) {
        pos = 0;
        int tick = 0;
        while (pos < end) {
            if ((++tick & 0xFFFF) == 0) {
                progress.update(pos);
            }
            long recStart = pos;
            if (end - pos < Tachyon.RECORD_HEADER_SIZE) {
                throw error(pos, "Truncated sample data: " + (end - pos) + " trailing bytes");
            }
            long tid = data.get(u64, pos);
            int interp = data.get(u32, pos + 8);
            int enc = data.get(BYTE, pos + 12) & 0xFF;
            pos += Tachyon.RECORD_HEADER_SIZE;
            TachyonThread t = thread(tid, interp, recStart, listener);
            if (enc <= Tachyon.POP_PUSH) {
                listener.record(t, enc);
            }
            switch (enc) {
                case Tachyon.REPEAT -> repeat(t, listener);
                case Tachyon.FULL, Tachyon.SUFFIX, Tachyon.POP_PUSH -> change(t, enc, listener);
                default -> throw error(recStart + 12, "Unknown stack encoding: " + enc);
            }
            records[enc]++;
        }
        if (samples != file.sampleCount()) {
            throw InputException.atOffset(file.source(), Tachyon.H_SAMPLES, "Sample count mismatch: header declares " + Long.toUnsignedString(file.sampleCount())
                    + " samples but replay decoded " + samples);
        }
    }

    private TachyonThread thread(long tid, int interp, long at, SampleListener listener) {
        TachyonThread t = last;
        if (t != null && t.threadId == tid && t.interpreterId == interp) {
            return t;
        }
        int mask = slot.length - 1;
        int h = hash(tid, interp) & mask;
        while (slot[h] != null) {
            if (keyTid[h] == tid && keyInterp[h] == interp) {
                last = slot[h];
                return last;
            }
            h = (h + 1) & mask;
        }
        if (threads.size() >= file.threadCount()) {
            throw error(at, "Invalid thread count: sample data contains more unique threads than declared in header"
                    + " (declared " + file.threadCount() + ", found at least " + (threads.size() + 1) + ")");
        }
        t = new TachyonThread(tid, interp, threads.size(), file.startTime());
        if (trackStatus) {
            t.statusCounts = new long[256];
        }
        threads.add(t);
        keyTid[h] = tid;
        keyInterp[h] = interp;
        slot[h] = t;
        if (threads.size() * 2 > slot.length) {
            rehash();
        }
        last = t;
        listener.threadStarted(t);
        return t;
    }

    private static int hash(long tid, int interp) {
        long k = (tid ^ ((long) interp * 0x9E3779B97F4A7C15L)) * 0xC2B2AE3D27D4EB4FL;
        return (int) (k ^ (k >>> 32));
    }

    private void rehash() {
        int n = slot.length * 2;
        long[] kt = new long[n];
        int[] ki = new int[n];
        TachyonThread[] s = new TachyonThread[n];
        for (TachyonThread t : threads) {
            int h = hash(t.threadId, t.interpreterId) & (n - 1);
            while (s[h] != null) {
                h = (h + 1) & (n - 1);
            }
            kt[h] = t.threadId;
            ki[h] = t.interpreterId;
            s[h] = t;
        }
        keyTid = kt;
        keyInterp = ki;
        slot = s;
    }

    private void repeat(TachyonThread t, SampleListener listener) {
        long countAt = pos;
        long count = varint(pos, "Malformed varint for RLE count");
        if (count > 0xFFFFFFFFL) {
            throw error(countAt, "Malformed varint for RLE count (exceeds u32)");
        }
        long max = (end - pos) / 2;
        if (count > max) {
            throw error(countAt, "Invalid RLE count " + count + " exceeds maximum possible " + max);
        }
        long p = pos;
        long prev = t.prevTimestamp;
        int n = 0;
        int runStatus = -1;
        long[] buf = ts;
        MemorySegment d = data;
        long e = end;
        for (long i = 0; i < count; i++) {
            long delta;
            if (p < e) {
                int b = d.get(BYTE, p);
                if (b >= 0) {
                    delta = b;
                    p++;
                } else {
                    pos = p;
                    delta = varint(p, "Malformed varint in RLE sample data");
                    p = pos;
                }
            } else {
                throw error(p, "Malformed varint in RLE sample data");
            }
            if (p >= e) {
                throw error(p, "Unexpected end of sample data in RLE");
            }
            int status = d.get(BYTE, p++) & 0xFF;
            prev += delta;
            if (status != runStatus || n == buf.length) {
                if (n > 0) {
                    deliver(t, runStatus, n, listener);
                }
                runStatus = status;
                n = 0;
            }
            buf[n++] = prev;
        }
        if (n > 0) {
            deliver(t, runStatus, n, listener);
        }
        t.prevTimestamp = prev;
        repeatSamples += count;
        pos = p;
    }

    private void deliver(TachyonThread t, int status, int n, SampleListener listener) {
        t.samples += n;
        samples += n;
        if (t.statusCounts != null) {
            t.statusCounts[status] += n;
        }
        listener.samples(t, status, ts, n);
    }

    private void change(TachyonThread t, int enc, SampleListener listener) {
        long delta = varint(pos, "Malformed varint in sample data");
        if (pos >= end) {
            throw error(pos, "Unexpected end of sample data (status byte)");
        }
        int status = data.get(BYTE, pos++) & 0xFF;
        int[] stack = t.stack;
        int depth = t.depth;
        int kept;
        if (enc == Tachyon.FULL) {
            long at = pos;
            long newDepth = u32(at, "Malformed varint in sample data");
            if (newDepth > Tachyon.MAX_STACK_DEPTH) {
                throw error(at, "Stack depth " + newDepth + " exceeds capacity " + Tachyon.MAX_STACK_DEPTH);
            }
            int d = (int) newDepth;
            // The file lists frames innermost first; the stack is kept root first.
            int[] fresh = scratch;
            for (int k = 0; k < d; k++) {
                fresh[d - 1 - k] = frameIndex();
            }
            // A FULL record may still share a bottom with the previous stack.
            kept = 0;
            int lim = Math.min(d, depth);
            while (kept < lim && stack[kept] == fresh[kept]) {
                kept++;
            }
            System.arraycopy(fresh, kept, stack, kept, d - kept);
            t.depth = d;
        } else {
            long at = pos;
            long first = u32(at, "Malformed varint in sample data");
            long push = u32(pos, "Malformed varint in sample data");
            if (enc == Tachyon.SUFFIX) {
                if (first > depth) {
                    throw error(at, "Shared count " + first + " exceeds current stack depth " + depth);
                }
                kept = (int) first;
            } else {
                kept = first >= depth ? 0 : depth - (int) first; // CPython clamps an over-long pop
            }
            long newDepth = kept + push;
            if (newDepth > Tachyon.MAX_STACK_DEPTH) {
                throw error(at, "Final stack depth " + newDepth + " exceeds capacity " + Tachyon.MAX_STACK_DEPTH);
            }
            int d = (int) newDepth;
            for (int k = 0; k < push; k++) {
                stack[d - 1 - k] = frameIndex();
            }
            t.depth = d;
        }
        t.prevTimestamp += delta;
        ts[0] = t.prevTimestamp;
        listener.stackChanged(t, kept);
        deliver(t, status, 1, listener);
    }

    private final int[] scratch = new int[Tachyon.MAX_STACK_DEPTH];

    private int frameIndex() {
        long at = pos;
        long f = u32(at, "Malformed varint in sample data");
        if (f >= frameCount) {
            throw error(at, "Invalid frame index: " + f + " (the frame table has " + frameCount + " entries)");
        }
        int fi = (int) f;
        if (!frameChecked[fi]) {
            if (!file.frameStringsValid(fi)) {
                throw error(at, "Invalid string index in frame " + fi);
            }
            frameChecked[fi] = true;
        }
        return fi;
    }

    private long u32(long at, String what) {
        long v = varint(at, what);
        if (v > 0xFFFFFFFFL || v < 0) {
            throw error(at, what + " (value exceeds u32)");
        }
        return v;
    }

    /** Reads an unsigned LEB128 varint of up to 10 bytes at {@code at}; leaves {@link #pos} after it. */
    private long varint(long at, String what) {
        long p = at;
        long v = 0;
        int shift = 0;
        while (true) {
            if (p >= end) {
                throw error(at, what);
            }
            int b = data.get(BYTE, p++);
            v |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                pos = p;
                return v;
            }
            shift += 7;
            if (shift >= 64) {
                throw error(at, what);
            }
        }
    }
}
