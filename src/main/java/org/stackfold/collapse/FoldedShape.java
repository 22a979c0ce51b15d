package org.stackfold.collapse;

/** A quick look at the first bytes of an input: whether any line could be a folded stack ({@code frames COUNT}). */
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
}
