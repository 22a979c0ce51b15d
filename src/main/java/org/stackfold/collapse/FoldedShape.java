package org.stackfold.collapse;

/**
 * A quick look at the first bytes of an input, for messages and format choice: whether any line
 * could be a folded stack ({@code frames COUNT}), and what the content looks like otherwise.
 */
final class FoldedShape {
    private FoldedShape() {
    }

    /** True where some line ends in white space and a number after at least one other character. */
    static boolean anyLineLooksFolded(byte[] b) {
        int start = 0;
        for (int i = 0; i <= b.length; i++) {
            if (i == b.length || b[i] == '\n' || b[i] == '\r') {
                if (looksFolded(b, start, i)) {
                    return true;
                }
                start = i + 1;
            }
        }
        return false;
    }

    private static boolean looksFolded(byte[] b, int start, int end) {
        while (end > start && (b[end - 1] == ' ' || b[end - 1] == '\t')) {
            end--;
        }
        int e = end;
        while (e > start && (Character.isDigit(b[e - 1]) || b[e - 1] == '.')) {
            e--;
        }
        if (e == end || e == start || !Character.isDigit(b[end - 1])) {
            return false;
        }
        return b[e - 1] == ' ' || b[e - 1] == '\t';
    }

    /** "binary data", "JSON", "XML or HTML", "empty", or the first line, escaped and cut short. */
    static String describe(byte[] b) {
        int n = Math.min(b.length, 512);
        int controls = 0;
        for (int i = 0; i < n; i++) {
            int c = b[i] & 0xff;
            if (c == 0 || c == 0x7f || (c < 0x20 && c != '\n' && c != '\r' && c != '\t')) {
                controls++;
            }
        }
        if (controls > 0) {
            return "binary data";
        }
        int i = 0;
        while (i < b.length && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r')) {
            i++;
        }
        if (i == b.length) {
            return "only white space";
        }
        if (b[i] == '{' || b[i] == '[') {
            return "JSON that is no speedscope file";
        }
        if (b[i] == '<') {
            return "XML or HTML";
        }
        int end = i;
        while (end < b.length && b[end] != '\n' && b[end] != '\r') {
            end++;
        }
        String line = new String(b, i, Math.min(end - i, 60), java.nio.charset.StandardCharsets.UTF_8);
        // No control byte is left in the head (they make it "binary data"), except DEL.
        return "text starting '" + line.replace('\u007f', '?') + (end - i > 60 ? "...'" : "'");
    }
}
