package org.stackfold.collapse;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.stackfold.format.Formats;
import org.stackfold.format.ProfileFormat;
import org.stackfold.io.InputException;
import org.stackfold.io.Printable;

/**
 * The error of a collapser that parsed not one record: a perf script given to
 * {@code collapse bpftrace} is not an empty profile but the wrong command. The message says what
 * was expected and what the input looks like, from its first bytes.
 */
final class NoRecords {
    /** Bytes read ahead to say what an input looks like. */
    static final int HEAD = 64 << 10;

    private NoRecords() {
    }

    static InputException error(Collapser expected, String source, byte[] head) {
        return new InputException(source + ": no " + expected.name() + " record found; " + lookOf(expected, head));
    }

    /** What the head looks like, as a clause: "it looks like perf script output (stackfold collapse perf)". */
    static String lookOf(Collapser expected, byte[] head) {
        int n = head.length;
        if (isBlank(head)) {
            return "the input is empty";
        }
        byte[] probe = GuessCollapser.probe(head, HEAD);
        Collapser other = GuessCollapser.choose(probe, probe.length);
        if (other != null && other != expected) {
            return "it looks like " + other.name() + " output (stackfold collapse " + other.name() + ")";
        }
        for (ProfileFormat f : Formats.all()) {
            if (f.canRead() && !f.name().contains("folded") && f.sniff(head, n)) {
                return "it is a " + f.name() + " profile (stackfold convert, info, top and flamegraph read it)";
            }
        }
        List<String> lines = Detect.allLines(probe, probe.length);
        String first = lines.stream().filter(l -> !l.isBlank()).findFirst().orElse("");
        if (isBinary(head)) {
            return "it is not text (binary data)";
        }
        if (first.strip().matches("(?s).*\\S\\s+\\d+")) {
            return "it looks like folded stacks, which need no collapsing (stackfold fold, info, top and flamegraph read them)";
        }
        String shown = new String(first.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8).strip();
        return "its first line is '" + Printable.of(shown.length() > 60 ? shown.substring(0, 60) + "..." : shown) + "'";
    }

    private static boolean isBlank(byte[] b) {
        for (byte c : b) {
            if (!Text.isSpace(c & 0xff)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isBinary(byte[] b) {
        int controls = 0;
        int n = Math.min(b.length, 4096);
        for (int i = 0; i < n; i++) {
            int c = b[i] & 0xff;
            if (c == 0) {
                return true;
            }
            if (c < 0x20 && !Text.isSpace(c) && c != 0x1b) {
                controls++;
            }
        }
        return controls * 10 > n;
    }
}
