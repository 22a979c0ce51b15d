package org.stackfold.io;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Serves bytes (a range of a file, of an array or a stream) to a line parser through one
 * reused array: the parser sees a block, consumes whole lines, and the unconsumed tail is moved to
 * the front before more bytes are read behind it. Parsers then work on {@code byte[]} at full
 * speed whatever the size of the input, and a line longer than a block grows the array up to a limit.
 */
public final class ByteBlocks {
    /**
     * 256 KiB: a block is parsed while it is still in the core's own cache (2 MiB of L2 here),
     * beside the parser's tables (the folded reader's names, perf's caches); 4 MiB blocks were 3-5%
     * slower for folded stacks and 10% for perf script text (600 -> 546 ms a pass over perf-400mb
     * under C1, docs/performance.md).
     */
    public static final int BLOCK = 256 << 10;

    /** Where the bytes come from: like {@link InputStream#read(byte[], int, int)}, -1 at the end. */
    @FunctionalInterface
    public interface Source extends AutoCloseable {
        int read(byte[] b, int off, int len) throws IOException;

        /** Releases what the source holds; nothing for most. */
        @Override
        default void close() {
        }

        /** The bytes {@code data[from, to)}. */
        static Source of(byte[] data, long from, long to) {
            long[] at = {from};
            return (b, off, len) -> {
                long remaining = to - at[0];
                if (remaining <= 0) {
                    return -1;
                }
                int n = (int) Math.min(remaining, len);
                System.arraycopy(data, (int) at[0], b, off, n);
                at[0] += n;
                return n;
            };
        }
    }

    /** A parser of whole lines. */
    @FunctionalInterface
    public interface Consumer {
        /**
         * Consumes the lines in {@code buf[start, filled)} and returns where the first unconsumed
         * byte is; when {@code last} is true there is no more input and the rest is one final line
         * without a line end. Returning -1 stops the reading.
         */
        int consume(byte[] buf, int start, int filled, boolean last);
    }

    /** Why reading stopped early. */
    public record Stop(String reason) {
    }

    private ByteBlocks() {
    }

    /**
     * Feeds everything {@code source} gives to {@code consumer}, in blocks of up to {@link #BLOCK}
     * bytes ({@code sizeHint} caps the first block for small inputs). Returns null when all was
     * consumed, or a {@link Stop} when the consumer stopped or a line was longer than
     * {@code maxLine}. {@code progress} hears the bytes consumed so far, every few MiB.
     */
    public static Stop read(Source source, long sizeHint, int maxLine, Consumer consumer,
                            java.util.function.LongConsumer progress) throws IOException {
        byte[] buf = new byte[(int) Math.min(BLOCK, Math.max(16, sizeHint))];
        long pos = 0; // offset of buf[0] in the input
        int filled = 0;
        int start = 0;
        long lastReport = 0;
        boolean last = false;
        while (true) {
            if (start > 0) {
                System.arraycopy(buf, start, buf, 0, filled - start);
                pos += start;
                filled -= start;
                start = 0;
            }
            if (filled == buf.length) {
                if (buf.length >= maxLine) {
                    return new Stop("line longer than " + (maxLine >> 20) + " MiB");
                }
                buf = Arrays.copyOf(buf, (int) Math.min(maxLine, (long) buf.length * 2));
            }
            while (filled < buf.length) { // a stream may return less than asked
                int n = source.read(buf, filled, buf.length - filled);
                if (n < 0) {
                    last = true;
                    break;
                }
                filled += n;
            }
            start = consumer.consume(buf, start, filled, last);
            if (start < 0) {
                return new Stop("stopped");
            }
            if (last) {
                progress.accept(pos + filled);
                return null;
            }
            if (pos + start - lastReport > (8 << 20)) {
                lastReport = pos + start;
                progress.accept(lastReport);
            }
        }
    }
}
