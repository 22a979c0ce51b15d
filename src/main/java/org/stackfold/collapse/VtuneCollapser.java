package org.stackfold.collapse;

import java.io.IOException;
import java.util.function.Consumer;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * Intel VTune top-down CSV ({@code vtune -report top-down -format csv}, header
 * {@code Function Stack,CPU Time:Self,Module}), as {@code inferno-collapse-vtune} reads it: one space
 * of indentation per level; a function name with commas is quoted; every row with a self time
 * becomes a stack weighted by that time in milliseconds (rounded), frames {@code module`function}
 * ({@code nomodules}: the function only).
 */
public final class VtuneCollapser implements Collapser {
    static final String HEADER = "Function Stack,CPU Time:Self,Module";

    @Override
    public String name() {
        return "vtune";
    }

    @Override
    public boolean detect(byte[] head, int length) {
        for (String line : Detect.allLines(head, length)) {
            if (line.startsWith(HEADER)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        boolean noModules = options.flag("nomodules");
        Problems problems = Problems.of(in, options);
        Stacks stacks = new Stacks();
        try (LineReader r = new LineReader(in.stream(), in.name())) {
            if (!r.skipTo(HEADER)) {
                warnings.accept(in.name() + ": File ended before header ('" + HEADER + "')");
                return stacks.profile();
            }
            int skipBelow = Integer.MAX_VALUE; // lenient: the subtree of a skipped line goes too
            while (r.next()) {
                String line = Text.trimEnd(r.latin1());
                if (line.isEmpty()) {
                    continue;
                }
                int spaces = 0;
                while (spaces < line.length() && line.charAt(spaces) == ' ') {
                    spaces++;
                }
                int depth = spaces + 1;
                if (depth > skipBelow) {
                    continue;
                }
                skipBelow = Integer.MAX_VALUE;
                int prev = stacks.depth();
                if (depth > prev + 1) {
                    problems.bad(r.lineNumber(), "indentation skips a level (depth " + depth + " after " + prev + ")");
                    skipBelow = depth;
                    continue;
                }
                String[] parts = parts(line.substring(spaces), noModules);
                if (parts == null) {
                    problems.bad(r.lineNumber(), "cannot parse stack line (expected function,time,module)");
                    skipBelow = depth;
                    continue;
                }
                double time;
                try {
                    time = parseFloat(parts[1]);
                } catch (NumberFormatException e) {
                    problems.bad(r.lineNumber(), "invalid 'CPU Time:Self' value '" + parts[1] + "'");
                    skipBelow = depth;
                    continue;
                }
                if (!(time * 1000.0 < 0x1p63) && !Double.isNaN(time)) { // never a silent clamp to 2^63-1
                    problems.bad(r.lineNumber(), "'CPU Time:Self' value '" + parts[1]
                            + "' does not fit: more than 2^63-1 milliseconds");
                    skipBelow = depth;
                    continue;
                }
                stacks.truncate(depth - 1);
                stacks.push(parts[2].isEmpty() ? parts[0] : parts[2] + "`" + parts[0]);
                long ms = Math.round(time * 1000.0);
                if (ms > 0) {
                    stacks.set(ms);
                }
            }
        }
        problems.finish(warnings);
        return stacks.profile();
    }

    /** {function, time, module}, or null. */
    private static String[] parts(String line, boolean noModules) {
        String func;
        String rest;
        if (line.startsWith("\"")) {
            int q = line.indexOf("\",", 1);
            if (q < 0) {
                return null;
            }
            func = line.substring(1, q);
            rest = line.substring(q + 2);
        } else {
            int c = line.indexOf(',');
            if (c < 0) {
                return null;
            }
            func = line.substring(0, c);
            rest = line.substring(c + 1);
        }
        int c = rest.indexOf(',');
        String time = c < 0 ? rest : rest.substring(0, c);
        String module = "";
        if (!noModules) {
            if (c < 0) {
                return null;
            }
            module = rest.substring(c + 1);
        }
        return new String[] {func, time, module};
    }

    /** A decimal number as Rust's f64 parser takes it (no hex, no trailing letters such as 'd'/'f'). */
    static double parseFloat(String s) {
        if (s.isEmpty() || !s.chars().allMatch(ch -> (ch >= '0' && ch <= '9') || ch == '.' || ch == '-'
                || ch == '+' || ch == 'e' || ch == 'E')) {
            throw new NumberFormatException(s);
        }
        return Double.parseDouble(s);
    }
}
