package org.stackfold.format.folded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.function.LongConsumer;
import java.util.function.LongToDoubleFunction;
import org.stackfold.io.ByteBlocks;
import org.stackfold.io.Input;
import org.stackfold.model.ByteWords;
import org.stackfold.model.FrameTable;

/**
 * The {@link WidePass} of one range of plain folded stacks in byte order: each line is compared
 * with the one before where both lie in the block (the previous stack is copied once a block, not
 * once a line), and only the bytes after the first difference are searched, for ';' and the line
 * end at once, eight at a time. So every byte is read about once beyond that comparison, where the
 * reader's general line loop searches each line for its end, then for its frames, then copies it as
 * the previous stack.
 *
 * <p>Only the plain shape is read here: {@code stack count} lines ended by '\n', spaces before a
 * count of at most 18 digits, none at the line's start, no comment, blank line, '\r' or fraction, in
 * byte order. Anything else stops the range ({@link #gaveUp}), and the caller reads the input with
 * the general loop, which knows every rule.
 */
final class WideScan implements Runnable {
    private static final long SEMICOLONS = ByteWords.broadcast(';');
    private static final long BELOW_14 = ByteWords.broadcast((char) 0x0E);
    private static final long HIGHS = 0x8080808080808080L;

    private final Input in;
    private final long from;
    private final long to;
    private final LongConsumer progress;
    final FrameTable frames = new FrameTable();
    final WidePass wide;
    byte[] firstStack;
    byte[] lastStack;
    /** A line this scan does not read (see the class comment), or counts past 2^63-1. */
    boolean gaveUp;

    // The previous stack: the array and offset it starts at (the block, or prevCopy after the
    // block moved on), its length, and where each of its frames ends.
    private byte[] prevArr;
    private int prevStart;
    private int prevLen;
    private int prevDepth;
    private byte[] prevCopy = new byte[4096];
    private int[] ends = new int[256];
    private int[] found = new int[256]; // the ';' after the first difference, offsets in the line

    WideScan(Input in, long from, long to, LongToDoubleFunction minWidth, LongConsumer progress) {
        this.in = in;
        this.from = from;
        this.to = to;
        this.progress = progress;
        this.wide = new WidePass(false, minWidth, frames);
    }

    @Override
    public void run() {
        ByteBlocks.Stop stop;
        try (ByteBlocks.Source bytes = in.range(from, to)) {
            stop = ByteBlocks.read(bytes, to - from, FoldedReader.MAX_LINE, this::lines,
                    done -> progress.accept(from + done));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (stop != null) {
            gaveUp = true;
            return;
        }
        if (prevArr != null) {
            wide.endRange(prevArr, prevStart, ends, prevDepth);
            lastStack = Arrays.copyOfRange(prevArr, prevStart, prevStart + prevLen);
        }
    }

    /** The whole lines of a block; see {@link ByteBlocks.Consumer}. */
    private int lines(byte[] b, int start, int filled, boolean last) {
        while (start < filled) {
            int next = line(b, start, filled, last);
            if (next < 0) {
                if (next == -1) {
                    return -1;
                }
                break; // the line goes on in the next block
            }
            start = next;
        }
        if (prevArr == b) { // the block is about to move: keep the previous stack
            if (prevCopy.length < prevLen) {
                prevCopy = new byte[Math.max(prevLen, prevCopy.length * 2)];
            }
            System.arraycopy(b, prevStart, prevCopy, 0, prevLen);
            prevArr = prevCopy;
            prevStart = 0;
        }
        return start;
    }

    /** Reads the line at b[pos]; the next line's start, -1 to give up, -2 where it does not end in b. */
    private int line(byte[] b, int pos, int filled, boolean last) {
        // The first difference from the previous stack (which holds no '\n', so neither does the
        // part of this line equal to it).
        int m = 0;
        if (prevArr != null) {
            int len = Math.min(prevLen, filled - pos);
            int mm = Arrays.mismatch(prevArr, prevStart, prevStart + len, b, pos, pos + len);
            m = mm < 0 ? len : mm;
        }
        int k0 = FoldedSyntax.framesBefore(ends, prevDepth, m); // shared; frame k0 may be, ending at m
        // The ';' and the line end after the difference.
        int semis = 0;
        int p = pos + m;
        int end;
        while (true) {
            if (p + 8 <= filled) {
                long w = ByteWords.word(b, p);
                // ';', or a byte below 0x0E ('\n', '\r', and tabs and the like, passed over below)
                long hits = ByteWords.matches(w, SEMICOLONS) | (w - BELOW_14) & ~w & HIGHS;
                if (hits == 0) {
                    p += 8;
                    continue;
                }
                p += ByteWords.firstIndex(hits);
            } else {
                while (p < filled && !isMark(b[p])) {
                    p++;
                }
                if (p == filled) {
                    if (!last) {
                        return -2;
                    }
                    end = filled; // the last line, without a line end
                    break;
                }
            }
            byte c = b[p];
            if (c != ';') {
                if (c == '\n') {
                    end = p;
                    break;
                }
                if (c == '\r') {
                    return -1;
                }
                p++; // another byte below 0x0E, part of a name
                continue;
            }
            if (semis == found.length) {
                found = Arrays.copyOf(found, semis * 2);
            }
            found[semis++] = p - pos;
            p++;
        }
        // The count: digits after spaces, after the stack.
        int c = end;
        long count = 0;
        long scale = 1;
        while (c > pos && isDigit(b[c - 1])) {
            c--;
            count += (b[c] - '0') * scale;
            scale *= 10;
        }
        if (end - c == 0 || end - c > 18 || c == pos || !FoldedSyntax.isSpace(b[c - 1])) {
            return -1;
        }
        int stackEnd = c - 1;
        while (stackEnd > pos && FoldedSyntax.isSpace(b[stackEnd - 1])) {
            stackEnd--;
        }
        int stackLen = stackEnd - pos;
        if (stackLen == 0 || b[pos] == '#' || FoldedSyntax.isSpace(b[pos])) {
            return -1;
        }
        int next = end + 1;
        boolean defer = false;
        if (prevArr != null) {
            if (m >= stackLen) {
                if (m == stackLen && stackLen == prevLen) {
                    return add(count, next); // the same stack again: the same leaf
                }
                return -1; // a prefix of the previous stack: out of order
            }
            int order = FoldedSyntax.follows(prevArr, prevStart, prevLen, b, pos, stackLen, m);
            if (order == FoldedSyntax.BEFORE) {
                return -1;
            }
            defer = order == FoldedSyntax.GOES_ON;
        } else {
            firstStack = Arrays.copyOfRange(b, pos, pos + stackLen);
        }
        int k = k0 < prevDepth && ends[k0] == m && b[pos + m] == ';' ? k0 + 1 : k0;
        boolean comesBack = wide.leave(k, defer, prevArr, prevStart, prevLen, ends, prevDepth, b, pos, stackLen);
        // This stack's frames from k0 on end at the ';' found, then at the stack's end.
        int depth = k0 + semis + 1;
        if (depth > ends.length) {
            ends = Arrays.copyOf(ends, Math.max(depth, ends.length * 2));
        }
        System.arraycopy(found, 0, ends, k0, semis);
        ends[depth - 1] = stackLen;
        wide.enter(k, depth, comesBack, b, pos, ends, prevArr == null);
        prevArr = b;
        prevStart = pos;
        prevLen = stackLen;
        prevDepth = depth;
        return add(count, next);
    }

    private int add(long count, int next) {
        long before = wide.cum0;
        wide.add(count, 0, prevDepth - 1);
        return wide.cum0 < before ? -1 : next; // past 2^63-1
    }

    /** This range as {@link FoldedReader#readWide} joins it with the others. */
    FoldedReader.WideRange range() {
        return new FoldedReader.WideRange(frames, wide.rootFrames(), firstStack, lastStack, wide);
    }

    private static boolean isMark(byte c) {
        return c == ';' || c == '\n' || c == '\r';
    }

    private static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }
}
