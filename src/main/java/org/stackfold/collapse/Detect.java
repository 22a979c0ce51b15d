package org.stackfold.collapse;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Helpers for {@link Collapser#detect}: the complete lines of an input's first bytes. */
final class Detect {
    private Detect() {
    }

    /** The head's lines (without their {@code \n}), one char per byte; a cut-off last line is left out. */
    static List<String> lines(byte[] head, int length) {
        List<String> out = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < length; i++) {
            if (head[i] == '\n') {
                out.add(new String(head, start, i - start, StandardCharsets.ISO_8859_1));
                start = i + 1;
            }
        }
        return out;
    }

    /** The head's lines, the last one too even when it lacks its newline (the input was that short). */
    static List<String> allLines(byte[] head, int length) {
        List<String> out = lines(head, length);
        int start = 0;
        for (int i = length - 1; i >= 0; i--) {
            if (head[i] == '\n') {
                start = i + 1;
                break;
            }
        }
        if (start < length) {
            out.add(new String(head, start, length - start, StandardCharsets.ISO_8859_1));
        }
        return out;
    }
}
