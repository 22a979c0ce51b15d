package org.stackfold.format.folded;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import org.stackfold.io.Input;
import org.stackfold.model.FrameTable;

/**
 * Reads folded (or differential folded) records in input order, without merging them: what a flame
 * chart needs, where the x axis is time. The line rules are {@link FoldedReader}'s (trimmed lines,
 * blank lines and {@code # } headers skipped, the count found from the end, fractions truncated);
 * bad lines are skipped and counted. Differential when the first record has two trailing counts.
 */
public final class OrderedFoldedReader {
    /** Receives each record: frame ids root first in {@code frames[0, depth)}. */
    public interface Sink {
        /** {@code count2} is the second ("after") count of a differential record, -1 for a plain one. */
        void record(int[] frames, int depth, long count, long count2);
    }

    /** What a read found. */
    public record Stats(long lines, long records, long skipped, long fractional, boolean differential) {
    }

    /** A count, its lost fraction counted in {@code fractional[0]}; see {@link FoldedSyntax#parseCount}. */
    private static long parse(byte[] b, int s, int e, long[] fractional) {
        if (FoldedSyntax.losesFraction(b, s, e)) {
            fractional[0]++;
        }
        return FoldedSyntax.parseCount(b, s, e);
    }

    private OrderedFoldedReader() {
    }

    public static Stats read(Input in, FrameTable frames, Sink sink) throws IOException {
        long lines = 0, records = 0, skipped = 0;
        long[] fractional = {0};
        Boolean differential = null;
        int[] ids = new int[64];
        byte[] buf = new byte[1 << 16];
        int filled = 0;
        int pos = 0; // start of the current line in buf
        int scan = 0; // where to continue looking for a line end
        boolean afterCr = false; // the last line ended with '\r': a '\n' right after it ends nothing
        try (InputStream s = in.stream()) {
            boolean eof = false;
            while (!eof || pos < filled) {
                int nl = -1;
                for (int i = scan; i < filled; i++) {
                    if (FoldedSyntax.isLineEnd(buf[i])) {
                        nl = i;
                        break;
                    }
                }
                if (nl >= 0 && afterCr && nl == pos && buf[nl] == '\n') {
                    afterCr = false; // the '\n' of a "\r\n"
                    pos = nl + 1;
                    scan = pos;
                    continue;
                }
                afterCr = nl >= 0 && buf[nl] == '\r';
                if (nl < 0 && !eof) {
                    scan = filled;
                    if (pos > 0) {
                        System.arraycopy(buf, pos, buf, 0, filled - pos);
                        filled -= pos;
                        scan -= pos;
                        pos = 0;
                    }
                    if (filled == buf.length) {
                        if (buf.length >= FoldedReader.MAX_LINE) {
                            throw org.stackfold.io.InputException.atLine(in.name(), lines + 1, "line too long");
                        }
                        buf = Arrays.copyOf(buf, buf.length * 2);
                    }
                    int n = s.read(buf, filled, buf.length - filled);
                    if (n < 0) {
                        eof = true;
                    } else {
                        filled += n;
                    }
                    continue;
                }
                int end = nl < 0 ? filled : nl;
                lines++;
                // --- one line in buf[pos, end)
                int st = pos, e = end;
                if (lines == 1 && e - st >= 3 && buf[st] == (byte) 0xEF && buf[st + 1] == (byte) 0xBB
                        && buf[st + 2] == (byte) 0xBF) {
                    st += 3; // a UTF-8 byte-order mark is not part of the first frame
                }
                while (e > st && FoldedSyntax.isSpace(buf[e - 1])) {
                    e--;
                }
                while (st < e && FoldedSyntax.isSpace(buf[st])) {
                    st++;
                }
                boolean skip = st == e || (buf[st] == '#' && (st + 1 == e || buf[st + 1] == ' '));
                if (!skip) {
                    int c = FoldedSyntax.numberStart(buf, st, e);
                    if (c == e || c == st || !FoldedSyntax.isSpace(buf[c - 1])) {
                        skipped++;
                    } else {
                        long count = parse(buf, c, e, fractional);
                        int stackEnd = c - 1;
                        while (stackEnd > st && FoldedSyntax.isSpace(buf[stackEnd - 1])) {
                            stackEnd--;
                        }
                        long count2 = -1;
                        int c1 = FoldedSyntax.numberStart(buf, st, stackEnd);
                        boolean two = c1 < stackEnd && c1 > st && FoldedSyntax.isSpace(buf[c1 - 1]);
                        if (differential == null) {
                            differential = two;
                        }
                        if (differential && two) {
                            count2 = count;
                            count = parse(buf, c1, stackEnd, fractional);
                            stackEnd = c1 - 1;
                            while (stackEnd > st && FoldedSyntax.isSpace(buf[stackEnd - 1])) {
                                stackEnd--;
                            }
                        } else if (differential) {
                            count2 = count; // a plain line in a differential file: unchanged
                        }
                        if (count < 0 || count2 < -1 || stackEnd == st) {
                            skipped++;
                        } else {
                            int depth = 0;
                            int f0 = st;
                            for (int j = st; j <= stackEnd; j++) {
                                if (j == stackEnd || buf[j] == ';') {
                                    if (depth == ids.length) {
                                        ids = Arrays.copyOf(ids, depth * 2);
                                    }
                                    ids[depth++] = frames.plain(buf, f0, j - f0);
                                    f0 = j + 1;
                                }
                            }
                            sink.record(ids, depth, count, count2);
                            records++;
                        }
                    }
                }
                pos = nl < 0 ? filled : nl + 1;
                scan = pos;
                if (nl < 0) {
                    break;
                }
            }
        }
        return new Stats(lines, records, skipped, fractional[0], differential != null && differential);
    }
}
