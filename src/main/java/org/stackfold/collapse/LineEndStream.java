package org.stackfold.collapse;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * A text stream with Unix line ends and no UTF-8 byte-order mark: {@code \r\n} and a lone {@code \r}
 * (old Mac tools) become {@code \n}. For parsers that split on {@code \n} alone (the perf collapser's
 * word-at-a-time scan), used only where the input's head shows it needs it ({@link #needed}).
 */
public final class LineEndStream extends FilterInputStream {
    private boolean afterCr;
    private boolean started;

    public LineEndStream(InputStream in) {
        super(in);
    }

    /** True where the head starts with a byte-order mark or holds a {@code \r} not followed by {@code \n}. */
    public static boolean needed(byte[] head) {
        if (head.length >= 3 && head[0] == (byte) 0xEF && head[1] == (byte) 0xBB && head[2] == (byte) 0xBF) {
            return true;
        }
        for (int i = 0; i < head.length; i++) {
            if (head[i] == '\r' && (i + 1 == head.length || head[i + 1] != '\n')) {
                return i + 1 < head.length; // a CR last in the head may be followed by \n
            }
        }
        return false;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        while (true) {
            int n = in.read(b, off, len);
            if (n <= 0) {
                return n;
            }
            int from = off;
            if (!started) {
                started = true;
                if (n >= 3 && b[off] == (byte) 0xEF && b[off + 1] == (byte) 0xBB && b[off + 2] == (byte) 0xBF) {
                    from += 3;
                }
            }
            int w = off;
            for (int i = from; i < off + n; i++) {
                byte c = b[i];
                if (c == '\n' && afterCr) {
                    afterCr = false; // the \n of a \r\n: already written
                    continue;
                }
                afterCr = c == '\r';
                b[w++] = c == '\r' ? (byte) '\n' : c;
            }
            if (w > off) {
                return w - off;
            }
        }
    }

    @Override
    public long skip(long n) throws IOException {
        throw new IOException("not supported");
    }

    @Override
    public boolean markSupported() {
        return false;
    }
}
