package org.stackfold.io;

import java.io.IOException;

/**
 * Random access to an input's bytes for the few looks a reader takes before it parses: where to cut
 * its ranges, what its first record says. A file is read a window at a time, content held in memory
 * is looked at in place; one thread at a time.
 *
 * <p>Why not a mapping of the file ({@link Input#bytes()}): the first mapping of a run initialises
 * the JDK's foreign-memory classes and spins method-handle classes that no AOT cache keeps, and
 * closing the mapping's shared arena stops every thread in a handshake. A one-shot command paid about
 * 20 ms of wall time for it (measured beside an AOT cache: 9 ms for the first heap segment, 13-15 ms
 * to map and close a file), for a few KiB of lookups.
 */
public final class ByteView {
    private static final int WINDOW = 64 << 10;

    private final String name;
    private final long size;
    /** The whole content, or null for a file. */
    private final byte[] array;
    private final FileRange.Shared file;
    private byte[] window;
    private long windowAt;
    private int windowLength;

    private ByteView(String name, long size, byte[] array, FileRange.Shared file) {
        this.name = name;
        this.size = size;
        this.array = array;
        this.file = file;
    }

    /** A view of bytes in memory. */
    public static ByteView of(byte[] data) {
        return new ByteView("<bytes>", data.length, data, null);
    }

    /** A view of a file that was {@code size} bytes when opened. */
    static ByteView of(FileRange.Shared file, String name, long size) {
        return new ByteView(name, size, null, file);
    }

    public long size() {
        return size;
    }

    /** The byte at {@code at}, in {@code [0, size())}. */
    public byte get(long at) {
        if (array != null) {
            return array[(int) at];
        }
        long i = at - windowAt;
        if (i < 0 || i >= windowLength) {
            load(at);
            i = at - windowAt;
        }
        return window[(int) i];
    }

    /** {@code dst[off, off + n)} = the bytes at {@code [at, at + n)}. */
    public void copy(long at, byte[] dst, int off, int n) {
        if (array != null) {
            System.arraycopy(array, (int) at, dst, off, n);
            return;
        }
        while (n > 0) {
            long i = at - windowAt;
            if (i < 0 || i >= windowLength) {
                load(at);
                i = at - windowAt;
            }
            int k = (int) Math.min(n, windowLength - i);
            System.arraycopy(window, (int) i, dst, off, k);
            at += k;
            off += k;
            n -= k;
        }
    }

    /**
     * Reads the window holding {@code at}, from the 4 KiB boundary at or before it: the cut finders
     * look back a byte or two from where they land, then read on.
     */
    private void load(long at) {
        if (at < 0 || at >= size) {
            throw new IndexOutOfBoundsException("offset " + at + " outside [0, " + size + ")");
        }
        if (window == null) {
            window = new byte[(int) Math.min(WINDOW, size)];
        }
        long from = at & ~4095L;
        int length = (int) Math.min(window.length, size - from);
        try {
            int filled = 0;
            while (filled < length) {
                filled += FileRange.readAt(file, name, from + filled, size, window, filled, length - filled);
            }
        } catch (IOException e) {
            throw new InputException(name + ": cannot read: " + Input.reason(e), e);
        }
        windowAt = from;
        windowLength = length;
    }
}
