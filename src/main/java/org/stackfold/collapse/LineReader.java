package org.stackfold.collapse;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.stackfold.io.InputException;

/**
 * Reads an input line by line on bytes, for the collapsers. A line is the bytes up to its end
 * (excluded): {@code \n}, {@code \r\n} or a lone {@code \r}; the last line may lack it. A UTF-8
 * byte-order mark at the start is dropped. {@link #start()}/{@link #end()} index {@link #buffer()}
 * and are valid until the next {@link #next()}. Line numbers count from 1.
 *
 * <p>{@link #latin1()} gives the line as a String with one char per byte: the text formats that
 * collapsers read are ASCII in every byte that matters (delimiters, digits, indentation), and a
 * Latin-1 string keeps every other byte as it came, so names survive invalid UTF-8 untouched and
 * {@link Stacks} turns them back into the same bytes. It costs one array copy.
 */
public final class LineReader implements AutoCloseable {
    /** Longest line accepted: a longer one is surely not the text the collapser expects. */
    static final int MAX_LINE = 1 << 26;

    private final InputStream in;
    private final String source;
    private byte[] buf = new byte[1 << 16];
    private int pos;   // start of unread data
    private int limit; // end of data in buf
    private boolean eof;
    private int start;
    private int end;
    private long line;
    private boolean afterCr; // the last line ended with '\r': a '\n' right after it ends nothing

    public LineReader(InputStream in) {
        this(in, "<input>");
    }

    /** {@code source} names the input in errors. */
    public LineReader(InputStream in, String source) {
        this.in = in;
        this.source = source;
    }

    /** Advances to the next line; false at the end of input. */
    public boolean next() throws IOException {
        while (true) {
            for (int i = pos; i < limit; i++) {
                byte c = buf[i];
                if (c == '\n' || c == '\r') {
                    if (c == '\n' && afterCr && i == pos) {
                        afterCr = false; // the '\n' of a "\r\n"
                        pos = i + 1;
                        continue;
                    }
                    afterCr = c == '\r';
                    found(pos, i);
                    pos = i + 1;
                    return true;
                }
            }
            if (eof) {
                if (pos < limit) {
                    found(pos, limit);
                    pos = limit;
                    return true;
                }
                return false;
            }
            fill();
        }
    }

    private void found(int s, int e) {
        start = s;
        end = e;
        if (line++ == 0 && e - s >= 3 && buf[s] == (byte) 0xEF && buf[s + 1] == (byte) 0xBB
                && buf[s + 2] == (byte) 0xBF) {
            start += 3; // a UTF-8 byte-order mark is not part of the first line
        }
    }

    private void fill() throws IOException {
        if (pos > 0) {
            System.arraycopy(buf, pos, buf, 0, limit - pos);
            limit -= pos;
            pos = 0;
        }
        if (limit == buf.length) {
            if (buf.length >= MAX_LINE) {
                throw InputException.atLine(source, line + 1, "line longer than 64 MiB; is this the right format?");
            }
            buf = Arrays.copyOf(buf, buf.length * 2); // a line longer than the buffer
        }
        int n = in.read(buf, limit, buf.length - limit);
        if (n < 0) {
            eof = true;
        } else {
            limit += n;
        }
    }

    /** Reads lines up to and including the first that starts with {@code prefix}; false at the end. */
    public boolean skipTo(String prefix) throws IOException {
        while (next()) {
            if (latin1().startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    public byte[] buffer() {
        return buf;
    }

    public int start() {
        return start;
    }

    public int end() {
        return end;
    }

    /** The current line's number, from 1. */
    public long lineNumber() {
        return line;
    }

    /** The current line, one char per byte. */
    public String latin1() {
        return new String(buf, start, end - start, StandardCharsets.ISO_8859_1);
    }

    /** The current line decoded as UTF-8 (malformed bytes become U+FFFD). */
    public String utf8() {
        return new String(buf, start, end - start, StandardCharsets.UTF_8);
    }

    /** True where the line, trimmed of ASCII whitespace, is empty. */
    public boolean isBlank() {
        for (int i = start; i < end; i++) {
            if (!Text.isSpace(buf[i])) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
