package org.stackfold.collapse;

/**
 * Splits a folded-stack line ({@code frame;frame;... COUNT}) on bytes: the count after the last
 * space, the stack before it. For collapsers whose input is itself folded (recursive, BCC).
 */
final class FoldedLine {
    /** End of the stack part (exclusive) of the last parsed line. */
    int stackEnd;
    long count;

    /**
     * Advances {@code r} to the next line that parses (blank lines skipped, bad ones reported to
     * {@code problems}, which fails or counts them); false at the end of the input.
     */
    boolean next(LineReader r, Problems problems) throws java.io.IOException {
        while (r.next()) {
            if (r.isBlank()) {
                continue;
            }
            String error = parse(r.buffer(), r.start(), r.end());
            if (error == null) {
                return true;
            }
            problems.bad(r.lineNumber(), error);
        }
        return false;
    }

    /** Parses {@code buf[start, end)} (a trailing {@code \r} is ignored); returns an error text or null. */
    String parse(byte[] buf, int start, int end) {
        if (end > start && buf[end - 1] == '\r') {
            end--;
        }
        int space = -1;
        for (int i = end - 1; i >= start; i--) {
            if (buf[i] == ' ') {
                space = i;
                break;
            }
        }
        if (space < 0) {
            return "no count (expected 'frame;frame;... COUNT')";
        }
        if (space + 1 == end) {
            return "empty count after the last space";
        }
        long v = 0;
        for (int i = space + 1; i < end; i++) {
            int d = buf[i] - '0';
            if (d < 0 || d > 9) {
                return "count '" + new String(buf, space + 1, end - space - 1,
                        java.nio.charset.StandardCharsets.ISO_8859_1) + "' is not a whole number";
            }
            if (v > (Long.MAX_VALUE - d) / 10) {
                return "count is too large";
            }
            v = v * 10 + d;
        }
        stackEnd = space;
        count = v;
        return null;
    }
}
