package org.stackfold.collapse;

import java.io.IOException;
import java.util.function.Consumer;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * wallClockProfiler reports (github.com/jasonrohrer/wallClockProfiler), as
 * {@code stackcollapse-wcp.pl} reads them: everything before the {@code Full stacks} line is
 * skipped; then (each line trimmed) {@code PERCENT% ===== (N samples)} gives the weight of the
 * stack that follows, {@code K: function   (at file:line)} lines are its frames, leaf first (the
 * whole text after {@code K: } is the name), and a blank line counts it. Unlike perl, a stack at
 * the end of the input without a blank line after it still counts.
 */
public final class WcpCollapser implements Collapser {
    @Override
    public String name() {
        return "wcp";
    }

    @Override
    public boolean detect(byte[] head, int length) {
        boolean full = false;
        for (String line : Detect.lines(head, length)) {
            String t = Text.trim(line);
            if (t.startsWith("Full stacks")) {
                full = true;
            } else if (full && t.endsWith(" samples)") && t.contains("% =")) {
                return true;
            }
        }
        return false;
    }

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        Problems problems = Problems.of(in, options);
        Stacks stacks = new Stacks();
        LeafFirst stack = new LeafFirst();
        long samples = 0;
        boolean started = false;
        try (LineReader r = new LineReader(in.stream(), in.name())) {
            while (r.next()) {
                byte[] b = r.buffer();
                int s = Bytes.skipSpace(b, r.start(), r.end());
                int e = Bytes.trimEnd(b, s, r.end());
                if (Bytes.startsWith(b, s, e, "Full stacks")) {
                    started = true;
                    continue;
                }
                if (!started) {
                    continue;
                }
                long weight = samplesLine(b, s, e);
                if (weight == -2) {
                    problems.bad(r.lineNumber(), "sample count is too large");
                } else if (weight >= 0) {
                    samples = weight;
                    continue;
                }
                int digits = Bytes.skipDigits(b, s, e);
                if (digits > s && Bytes.startsWith(b, digits, e, ": ")) {
                    stack.add(stacks.frame(b, digits + 2, e - digits - 2));
                } else if (s == e && !stack.isEmpty()) {
                    stack.addTo(stacks, samples);
                    stack.clear();
                }
            }
        }
        if (!stack.isEmpty()) {
            stack.addTo(stacks, samples);
        }
        problems.finish(warnings);
        return stacks.profile();
    }

    /** perl's {@code ^\d+\.\d+% =+ \((\d+) samples\)}: the sample count, -1 for another line, -2 too large. */
    private static long samplesLine(byte[] b, int s, int e) {
        int p = Bytes.skipDigits(b, s, e);
        if (p == s || p >= e || b[p] != '.') {
            return -1;
        }
        int q = Bytes.skipDigits(b, p + 1, e);
        if (q == p + 1 || !Bytes.startsWith(b, q, e, "% =")) {
            return -1;
        }
        q += 2;
        while (q < e && b[q] == '=') {
            q++;
        }
        if (!Bytes.startsWith(b, q, e, " (")) {
            return -1;
        }
        int n = Bytes.skipDigits(b, q + 2, e);
        if (n == q + 2 || !Bytes.startsWith(b, n, e, " samples)")) {
            return -1;
        }
        long v = Bytes.parseCount(b, q + 2, n);
        return v == -1 ? -1 : v;
    }
}
