package org.stackfold.format.folded;

import org.stackfold.io.ByteView;

/**
 * Whether folded text is differential ({@code stack before after}) or plain. A file's name says so
 * ({@code .diff.folded}); otherwise the first record does, for every command alike, so that `fold`
 * of a difffolded.pl output named {@code x.txt} keeps both columns instead of reading
 * {@code a;b 3 0} as the stack {@code a;b 3} with no samples.
 */
public final class FoldedKind {
    private FoldedKind() {
    }

    /** The same decision on the head of an input ({@code whole} where the head is the whole input). */
    public static boolean isDifferential(byte[] head, boolean whole) {
        ByteView data = ByteView.of(head);
        return isDifferential(data, FoldedSyntax.bomLength(data), whole);
    }

    /**
     * True where the first record (after blank lines and comments) ends in two counts, as
     * flamegraph.pl decides; {@code start} skips a byte-order mark. Where {@code data} is only the
     * head of the input ({@code whole} false), a first line that runs past it counts as plain.
     */
    public static boolean isDifferential(ByteView data, long start, boolean whole) {
        long size = data.size();
        while (start < size) {
            long end = start;
            while (end < size && !FoldedSyntax.isLineEnd(data.get(end))) {
                end++;
            }
            int len = (int) Math.min(end - start, 1 << 20);
            byte[] line = new byte[len];
            data.copy(start, line, 0, len);
            int e = len;
            while (e > 0 && FoldedSyntax.isSpace(line[e - 1])) {
                e--;
            }
            int s = 0;
            while (s < e && FoldedSyntax.isSpace(line[s])) {
                s++;
            }
            if (e > s && !(line[s] == '#' && (s + 1 == e || line[s + 1] == ' '))) {
                int c1 = FoldedSyntax.numberStart(line, s, e);
                if (c1 > s && FoldedSyntax.isSpace(line[c1 - 1])) {
                    int b = c1 - 1;
                    while (b > s && FoldedSyntax.isSpace(line[b - 1])) {
                        b--;
                    }
                    int c2 = FoldedSyntax.numberStart(line, s, b);
                    if (c2 > s && c2 < b && FoldedSyntax.isSpace(line[c2 - 1])) {
                        return whole || end < size;
                    }
                }
                return false;
            }
            start = end + 1;
        }
        return false;
    }
}
