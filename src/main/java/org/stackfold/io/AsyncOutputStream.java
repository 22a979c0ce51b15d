package org.stackfold.io;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Hands full buffers to a second thread that writes them, so that producing output (a tree walk)
 * and the kernel's copying it into the page cache run on both cores at once: writing a 750 MB
 * folded file costs about as much kernel time as producing it. Buffers are made as the output grows:
 * 64 KiB, then twice as big each time up to {@link #CHUNK}, at most {@link #IN_FLIGHT} of that size
 * in use, reused (four made up front cost a small
 * command 4 MB of zeroed, faulted-in memory: 6-8 ms of a 0.2 s {@code fold} on this project's VMs).
 */
public final class AsyncOutputStream extends OutputStream {
    private static final int CHUNK = 1 << 20;
    private static final int IN_FLIGHT = 4;
    private static final int FIRST = 64 << 10;
    private static final Chunk END = new Chunk(new byte[0], 0);

    private record Chunk(byte[] data, int length) {
    }

    private final OutputStream out;
    private final BlockingQueue<Chunk> full = new ArrayBlockingQueue<>(IN_FLIGHT + 1);
    private final BlockingQueue<byte[]> free = new ArrayBlockingQueue<>(IN_FLIGHT + 1);
    private final Thread writer;
    private volatile IOException failure;
    private byte[] buf = new byte[FIRST];
    private int used;
    private int made; // buffers of CHUNK bytes
    private boolean closed;

    public AsyncOutputStream(OutputStream out) {
        this.out = out;
        writer = Thread.ofPlatform().name("stackfold-writer").daemon(true).start(this::drain);
    }

    private void drain() {
        try {
            for (Chunk c = full.take(); c != END; c = full.take()) {
                if (failure == null) {
                    try {
                        // 64 KiB writes: larger ones cost the JDK a native buffer per call.
                        for (int off = 0; off < c.length(); off += 1 << 16) {
                            out.write(c.data(), off, Math.min(1 << 16, c.length() - off));
                        }
                    } catch (IOException e) {
                        failure = e;
                    }
                }
                // Only buffers of CHUNK bytes are used again; at most IN_FLIGHT exist, so the
                // queue has room for all of them and handing one back never waits: the producer
                // stops taking them once it closes, and a writer waiting here would hang close().
                if (c.data().length == CHUNK) {
                    free.offer(c.data());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void write(int b) throws IOException {
        if (used == buf.length) {
            handOff();
        }
        buf[used++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            if (used == buf.length) {
                handOff();
            }
            int n = Math.min(len, buf.length - used);
            System.arraycopy(b, off, buf, used, n);
            used += n;
            off += n;
            len -= n;
        }
    }

    private void handOff() throws IOException {
        handOff(true);
    }

    private void handOff(boolean more) throws IOException {
        check();
        if (buf == null) {
            throw new IOException("stream closed");
        }
        try {
            full.put(new Chunk(buf, used));
            buf = more ? nextBuffer() : null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException();
        }
        used = 0;
    }

    /**
     * The next buffer: twice the last up to CHUNK bytes; of CHUNK, one the writer is done with, or
     * a new one while fewer than IN_FLIGHT exist (the writer gives back only those of CHUNK bytes).
     */
    private byte[] nextBuffer() throws InterruptedException {
        if (buf.length < CHUNK) {
            int size = Math.min(CHUNK, buf.length * 2);
            if (size == CHUNK) {
                made++;
            }
            return new byte[size];
        }
        byte[] b = made < IN_FLIGHT ? free.poll() : free.take();
        if (b == null) {
            made++;
            return new byte[CHUNK];
        }
        return b;
    }

    private void check() throws IOException {
        if (failure != null) {
            // A new exception each time: the same one thrown twice cannot be suppressed by itself.
            throw new IOException(failure.getMessage(), failure);
        }
    }

    /** Writes what is buffered and waits until the writer thread has passed everything on. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        IOException failed = null;
        if (used > 0) {
            try {
                handOff(false);
            } catch (IOException e) {
                failed = e; // the writer still ends: it goes on taking, and skips writing
            }
        }
        try {
            full.put(END);
            writer.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException();
        }
        if (failed != null) {
            throw failed;
        }
        check();
        out.flush();
    }
}
