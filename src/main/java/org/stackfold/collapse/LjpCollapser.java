package org.stackfold.collapse;

import java.io.IOException;
import java.util.function.Consumer;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * lightweight-java-profiler traces ({@code traces.txt}), as {@code stackcollapse-ljp.awk} reads
 * them: after what is between parentheses is removed from a line (the first {@code (} to the last
 * {@code )}), a line of three fields {@code COUNT FRAMES LEAF} starts a stack, a line of one field
 * is the next caller, and a line starting with the field {@code Total} ends the input. Lines with
 * other numbers of fields are skipped. Unlike the awk script, the last stack counts when the input
 * ends without a {@code Total} line. Error: a count that is not a whole number.
 */
public final class LjpCollapser implements Collapser {
    @Override
    public String name() {
        return "ljp";
    }

    @Override
    public boolean detect(byte[] head, int length) {
        // "COUNT DEPTH  method(File.java:N)" followed by indented "method(File.java:N)" lines.
        boolean start = false;
        for (String line : Detect.lines(head, length)) {
            String t = Text.trim(line);
            if (!t.endsWith(")")) { // both shapes end so: most lines skip the regexes (detectors run on every input)
                start = false;
                continue;
            }
            String[] f = t.replaceAll("\\(.*\\)", "").trim().split("[ \\t]+");
            if (f.length == 3 && Text.parseCount(f[0]) >= 0 && Text.parseCount(f[1]) >= 0) {
                start = true;
            } else if (start && f.length == 1 && line.startsWith(" ")) {
                return true;
            } else {
                start = false;
            }
        }
        return false;
    }

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        Problems problems = Problems.of(in, options);
        Stacks stacks = new Stacks();
        LeafFirst stack = new LeafFirst();
        long count = 0;
        int[] fields = new int[8]; // start, end pairs of the first 4 fields
        try (LineReader r = new LineReader(in.stream(), in.name())) {
            while (r.next()) {
                byte[] b = r.buffer();
                int s = r.start();
                int e = Bytes.lineEnd(r);
                int open = Bytes.indexOf(b, s, e, '(');
                int close = open < 0 ? -1 : Bytes.lastIndexOf(b, open, e, ')');
                int cutFrom = close < 0 ? -1 : open; // awk's gsub(/\(.*\)/, "")
                int cutTo = close < 0 ? -1 : close + 1;
                int n = split(b, s, e, cutFrom, cutTo, fields);
                if (n >= 1 && fields[1] - fields[0] == 5 && Bytes.startsWith(b, fields[0], fields[1], "Total")) {
                    break;
                }
                if (n == 3) {
                    if (count > 0) {
                        stack.addTo(stacks, count);
                    }
                    stack.clear();
                    count = Bytes.parseCount(b, fields[0], fields[1]);
                    if (count < 0) {
                        problems.bad(r.lineNumber(), "trace count '" + Bytes.latin1(b, fields[0], fields[1])
                                + "' is not a whole number");
                        count = 0;
                        continue;
                    }
                    stack.add(frame(stacks, b, fields[4], fields[5], cutFrom, cutTo));
                } else if (n == 1 && count > 0) {
                    stack.add(frame(stacks, b, fields[0], fields[1], cutFrom, cutTo));
                }
            }
        }
        if (count > 0) {
            stack.addTo(stacks, count);
        }
        problems.finish(warnings);
        return stacks.profile();
    }

    /** The field {@code [from, to)} without the removed {@code [cutFrom, cutTo)} inside it. */
    private static int frame(Stacks stacks, byte[] b, int from, int to, int cutFrom, int cutTo) {
        if (cutFrom < from || cutFrom >= to) {
            return stacks.frame(b, from, to - from);
        }
        byte[] name = new byte[(to - from) - (cutTo - cutFrom)];
        System.arraycopy(b, from, name, 0, cutFrom - from);
        System.arraycopy(b, cutTo, name, cutFrom - from, to - cutTo);
        return stacks.frame(name, 0, name.length);
    }

    /**
     * awk's fields of the line with {@code [cutFrom, cutTo)} removed: fills up to 4 start/end pairs
     * (a field may span the cut, as it does once awk has deleted it) and returns the field count,
     * capped at 4.
     */
    private static int split(byte[] b, int s, int e, int cutFrom, int cutTo, int[] out) {
        int n = 0;
        boolean in = false;
        int i = s;
        while (i < e && n < 4) {
            if (i == cutFrom) {
                i = cutTo;
                continue;
            }
            boolean space = b[i] == ' ' || b[i] == '\t';
            if (!space && !in) {
                out[2 * n] = i;
                in = true;
            } else if (space && in) {
                out[2 * n + 1] = i;
                n++;
                in = false;
            }
            i++;
        }
        if (in) {
            out[2 * n + 1] = i;
            n++;
        }
        return n;
    }
}
