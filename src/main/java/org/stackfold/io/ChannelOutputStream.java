package org.stackfold.io;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Buffered output to a file through one reused, aligned direct buffer. Past the first buffer the
 * bulk is written with {@code O_DIRECT} where the file system allows it: on this project's machines
 * (virtual machines), copying a 750 MB result into the page cache cost 2 s of kernel time after the
 * process had touched a gigabyte of heap, against 0.4 s written directly. Small outputs and the
 * unaligned tail go through the page cache as usual; if direct writes fail, everything does.
 */
final class ChannelOutputStream extends OutputStream {
    private static final int SIZE = 1 << 20;
    private static final int ALIGN = 4096;

    private final Path path;
    private final FileChannel plain;
    private FileChannel direct;
    private boolean directTried;
    private final ByteBuffer buf = ByteBuffer.allocateDirect(SIZE + ALIGN).alignedSlice(ALIGN).limit(SIZE);
    private long position;

    ChannelOutputStream(Path path) throws IOException {
        this.path = path;
        this.plain = FileChannel.open(path, StandardOpenOption.WRITE);
    }

    @Override
    public void write(int b) throws IOException {
        if (!buf.hasRemaining()) {
            drain(false);
        }
        buf.put((byte) b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            if (!buf.hasRemaining()) {
                drain(false);
            }
            int n = Math.min(len, buf.remaining());
            buf.put(b, off, n);
            off += n;
            len -= n;
        }
    }

    private void drain(boolean last) throws IOException {
        buf.flip();
        int n = buf.remaining();
        if (direct == null && !directTried && position > 0 && position % ALIGN == 0) {
            directTried = true;
            try {
                direct = FileChannel.open(path, StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT);
            } catch (IOException | UnsupportedOperationException e) {
                direct = null; // not on this file system: the page cache it is
            }
        }
        int aligned = direct == null || position % ALIGN != 0 ? 0 : n - n % ALIGN;
        if (aligned > 0) {
            try {
                writeFully(direct, buf.slice(0, aligned), position);
            } catch (IOException e) {
                direct.close();
                direct = null;
                aligned = 0; // write it all again below, through the page cache
            }
        }
        if (aligned < n) {
            writeFully(plain, buf.slice(aligned, n - aligned), position + aligned);
        }
        position += n;
        buf.clear().limit(SIZE);
    }

    private static void writeFully(FileChannel ch, ByteBuffer b, long at) throws IOException {
        while (b.hasRemaining()) {
            at += ch.write(b, at);
        }
    }

    /** Writes what is buffered (a flush in the middle sends its unaligned part through the page cache). */
    @Override
    public void flush() throws IOException {
        if (buf.position() > 0) {
            drain(true);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            flush();
        } finally {
            try {
                plain.close();
            } finally {
                if (direct != null) {
                    direct.close();
                }
            }
        }
    }
}
