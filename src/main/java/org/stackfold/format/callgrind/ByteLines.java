package org.stackfold.format.callgrind;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import org.stackfold.io.InputException;

/**
 * The lines of a stream as ranges of one reused byte array ({@code buf[start, end)}, without the
 * line break or a carriage return before it), so a parser never makes a String per line.
 */
final class ByteLines {
    private static final int MAX_LINE = 256 << 20;

    private final InputStream in;
    private final String source;
    byte[] buf = new byte[1 << 16];
    private int limit;
    private int next;
    private boolean eof;
    int start;
    int end;
    long lineNumber;

    ByteLines(InputStream in, String source) {
        this.in = in;
        this.source = source;
    }

    /** Moves to the next line; false at the end of the input. */
    boolean next() throws IOException {
        int scanFrom = next;
        while (true) {
            for (int i = scanFrom; i < limit; i++) {
                if (buf[i] == '\n') {
                    take(i);
                    next = i + 1;
                    return true;
                }
            }
            if (eof) {
                if (next < limit) {
                    take(limit);
                    next = limit;
                    return true;
                }
                return false;
            }
            scanFrom = fill();
        }
    }

    private void take(int lineEnd) {
        start = next;
        end = lineEnd > start && buf[lineEnd - 1] == '\r' ? lineEnd - 1 : lineEnd;
        lineNumber++;
    }

    /** Reads more, keeping the unfinished line; returns where to go on looking for its end. */
    private int fill() throws IOException {
        int kept = limit - next;
        if (next > 0) {
            System.arraycopy(buf, next, buf, 0, kept);
            next = 0;
            limit = kept;
        }
        if (limit == buf.length) {
            if (buf.length >= MAX_LINE) {
                throw InputException.atLine(source, lineNumber + 1, "a line longer than 256 MiB");
            }
            buf = Arrays.copyOf(buf, buf.length * 2);
        }
        int n = in.read(buf, limit, buf.length - limit);
        if (n < 0) {
            eof = true;
        } else {
            limit += n;
        }
        return kept;
    }
}
