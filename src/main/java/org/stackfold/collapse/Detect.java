package org.stackfold.collapse;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Helpers for {@link Collapser#detect}: the complete lines of an input's first bytes. */
final class Detect {
    /**
     * The head {@link GuessCollapser#choose} is trying every detector on: split into lines once for
     * all of them, not once each (a megabyte of head, two dozen detectors, on every command's start).
     */
    private static final ThreadLocal<Shared> SHARED = new ThreadLocal<>();

    private Detect() {
    }

    /** Shares the lines of {@code head} among the detectors run until {@link Shared#close()}. */
    static Shared share(byte[] head, int length) {
        Shared s = new Shared(head, length, SHARED.get());
        SHARED.set(s);
        return s;
    }

    static final class Shared implements AutoCloseable {
        private final byte[] head;
        private final int length;
        private final Shared outer;
        private List<String> lines;
        private List<String> allLines;

        private Shared(byte[] head, int length, Shared outer) {
            this.head = head;
            this.length = length;
            this.outer = outer;
        }

        private boolean of(byte[] h, int n) {
            return h == head && n == length;
        }

        @Override
        public void close() {
            if (outer == null) {
                SHARED.remove();
            } else {
                SHARED.set(outer);
            }
        }
    }

    /** The head's lines (without their {@code \n}), one char per byte; a cut-off last line is left out. */
    static List<String> lines(byte[] head, int length) {
        Shared s = SHARED.get();
        if (s == null || !s.of(head, length)) {
            return split(head, length);
        }
        if (s.lines == null) {
            s.lines = split(head, length);
        }
        return s.lines;
    }

    /** The head's lines, the last one too even when it lacks its newline (the input was that short). */
    static List<String> allLines(byte[] head, int length) {
        Shared s = SHARED.get();
        if (s == null || !s.of(head, length)) {
            return withLast(split(head, length), head, length);
        }
        if (s.allLines == null) {
            s.allLines = withLast(lines(head, length), head, length);
        }
        return s.allLines;
    }

    private static List<String> split(byte[] head, int length) {
        List<String> out = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < length; i++) {
            if (head[i] == '\n') {
                out.add(new String(head, start, i - start, StandardCharsets.ISO_8859_1));
                start = i + 1;
            }
        }
        return Collections.unmodifiableList(out);
    }

    private static List<String> withLast(List<String> lines, byte[] head, int length) {
        int start = 0;
        for (int i = length - 1; i >= 0; i--) {
            if (head[i] == '\n') {
                start = i + 1;
                break;
            }
        }
        if (start == length) {
            return lines;
        }
        List<String> out = new ArrayList<>(lines);
        out.add(new String(head, start, length - start, StandardCharsets.ISO_8859_1));
        return Collections.unmodifiableList(out);
    }
}
