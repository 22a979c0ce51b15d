package org.stackfold.io;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Serves a byte range of a (memory-mapped) segment to a line parser through one reused array: the
 * parser sees a block, consumes whole lines, and the unconsumed tail is moved to the front before
 * the next block is copied behind it. Parsers then work on {@code byte[]} at full speed whatever
 * the size of the file, and a line longer than a block grows the array up to a limit.
 */
public final class ByteBlocks {
    public static final int BLOCK = 4 << 20;

    /** A parser of whole lines. */
    public interface Consumer {
        /**
         * Consumes the lines in {@code buf[start, filled)} and returns where the first unconsumed
         * byte is; when {@code last} is true there is no more input and the rest is one final line
         * without a line end. Returning -1 stops the reading.
         */
        int consume(byte[] buf, int start, int filled, boolean last);
    }

    /** Why reading stopped early, or null. */
    public record Stop(String reason) {
    }

    private ByteBlocks() {
    }

    /**
     * Feeds {@code data[from, to)} to {@code consumer}. Returns null when all was consumed, or a
     * {@link Stop} when the consumer stopped or a line was longer than {@code maxLine}.
     */
    public static Stop read(MemorySegment data, long from, long to, int maxLine, Consumer consumer,
                            java.util.function.LongConsumer progress) {
        byte[] buf = new byte[(int) Math.min(BLOCK, Math.max(16, to - from))];
        long pos = from; // file offset of buf[0]
        int filled = 0;
        int start = 0;
        long lastReport = from;
        while (true) {
            if (start > 0) {
                System.arraycopy(buf, start, buf, 0, filled - start);
                pos += start;
                filled -= start;
                start = 0;
            }
            long remaining = to - (pos + filled);
            if (remaining > 0 && filled == buf.length) {
                if (buf.length >= maxLine) {
                    return new Stop("line longer than " + (maxLine >> 20) + " MiB");
                }
                buf = Arrays.copyOf(buf, (int) Math.min(maxLine, (long) buf.length * 2));
            }
            int n = (int) Math.min(remaining, buf.length - filled);
            if (n > 0) {
                MemorySegment.copy(data, ValueLayout.JAVA_BYTE, pos + filled, buf, filled, n);
                filled += n;
            }
            boolean last = pos + filled >= to;
            start = consumer.consume(buf, start, filled, last);
            if (start < 0) {
                return new Stop("stopped");
            }
            if (last) {
                progress.accept(to);
                return null;
            }
            if (pos + start - lastReport > (8 << 20)) {
                lastReport = pos + start;
                progress.accept(lastReport);
            }
        }
    }
}
