package org.stackfold.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Serves a byte range of a file through positional reads into the parser's own block, for one
 * reader thread (positional reads leave the channel's position alone, so threads can share it).
 *
 * <p>Why reads and not a mapping: a parser passes over its range once, and a mapping costs a page
 * fault and a page-table entry for every 4 KiB of it, then a TLB miss on every page the parser's
 * copy touches and the unmapping's shootdown, where a read copies from the kernel's own mapping of
 * the page cache into a block that stays in the core's cache. Measured on the Firecracker VMs this
 * project runs on (page faults about 11 µs each): 419 MB read in 0.05-0.06 s of CPU against
 * 0.19-0.23 s through 32 MiB mapped windows; {@code collapse perf} of it 0.80 -> 0.65 s, {@code info}
 * of a 757 MB folded file 1.05 -> 0.87 s wall, peak RSS 118 -> 59 MB (docs/performance.md, round
 * reads). Nothing of the file counts in the resident set either.
 */
final class FileRange implements ByteBlocks.Source {
    private final FileChannel channel;
    private final String name;
    private final long to;
    private long at;

    FileRange(FileChannel channel, String name, long from, long to) {
        this.channel = channel;
        this.name = name;
        this.at = from;
        this.to = to;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (at >= to) {
            return -1;
        }
        int n = channel.read(ByteBuffer.wrap(b, off, (int) Math.min(len, to - at)), at);
        if (n < 0) {
            throw InputException.atOffset(name, at, "the file ended while it was being read (it was "
                    + to + " bytes or more when opened): was it truncated?");
        }
        at += n;
        return n;
    }
}
