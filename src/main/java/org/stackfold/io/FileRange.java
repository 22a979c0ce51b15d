package org.stackfold.io;

import java.io.IOException;
import java.io.RandomAccessFile;

/**
 * Serves a byte range of a file by plain reads of its {@link RandomAccessFile} into the parser's own
 * block, for one reader thread. Ranges of one file on several threads share the file ({@link Shared}):
 * each read seeks (where the file is not already there) and reads under its lock.
 *
 * <p>Why reads and not a mapping: a parser passes over its range once, and a mapping costs a page
 * fault and a page-table entry for every 4 KiB of it, then a TLB miss on every page the parser's
 * copy touches and the unmapping's shootdown, where a read copies from the kernel's own mapping of
 * the page cache into a block that stays in the core's cache. Measured on the Firecracker VMs this
 * project runs on (page faults about 11 µs each): 419 MB read in 0.05-0.06 s of CPU against
 * 0.19-0.23 s through 32 MiB mapped windows; {@code collapse perf} of it 0.80 -> 0.65 s, {@code info}
 * of a 757 MB folded file 1.05 -> 0.87 s wall, peak RSS 118 -> 59 MB. Nothing of the file counts in
 * the resident set either.
 *
 * <p>Why {@code RandomAccessFile} and not {@code FileChannel}'s positional reads: a channel read
 * goes through a dozen small JDK methods (the temporary direct buffer, the interruptible-I/O
 * bookkeeping), which run interpreted for the first thousand reads and then cost C1 about 20 ms to
 * compile; {@code RandomAccessFile.read} is one native call. {@code collapse perf} of 419 MB: 30 ms
 * less CPU (medians of 15 alternated runs; docs/performance.md, round reads).
 */
final class FileRange implements ByteBlocks.Source {
    /**
     * A file and where its position is, known without asking the kernel (getFilePointer is a system
     * call: one a read for nothing, where a single range reads the file from start to end).
     */
    static final class Shared {
        final RandomAccessFile raf;
        private long position = -1; // unknown

        Shared(RandomAccessFile raf) {
            this.raf = raf;
        }
    }

    private final Shared shared;
    private final String name;
    private final long to;
    private long at;

    FileRange(Shared shared, String name, long from, long to) {
        this.shared = shared;
        this.name = name;
        this.at = from;
        this.to = to;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (at >= to) {
            return -1;
        }
        int n = readAt(shared, name, at, to, b, off, len);
        at += n;
        return n;
    }

    /** Moves on by up to {@code n} bytes without reading them; how many. */
    long skip(long n) {
        long s = Math.max(0, Math.min(n, to - at));
        at += s;
        return s;
    }

    /** The bytes of the range not read yet. */
    long remaining() {
        return to - at;
    }

    /**
     * Reads up to {@code len} bytes at {@code at} (before {@code to}, the size the file had when it
     * was opened) into {@code b[off...]}: at least one; a file that ends sooner was truncated.
     */
    static int readAt(Shared s, String name, long at, long to, byte[] b, int off, int len) throws IOException {
        int n;
        synchronized (s) {
            if (s.position != at) {
                s.raf.seek(at);
            }
            s.position = -1; // a failed read leaves it unknown
            n = s.raf.read(b, off, (int) Math.min(len, to - at));
            if (n > 0) {
                s.position = at + n;
            }
        }
        if (n < 0) {
            throw InputException.atOffset(name, at, "the file ended while it was being read (it was "
                    + to + " bytes or more when opened): was it truncated?");
        }
        return n;
    }
}
