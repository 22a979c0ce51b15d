package org.stackfold.collapse;

import java.io.IOException;
import java.util.Arrays;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * An Xcode Instruments call tree copied as text (Edit > Deep Copy), as
 * {@code stackcollapse-instruments.pl} reads it: the first line is the header; every other line is
 * {@code RUNNING_TIME UNIT  PERCENT%  SELF UNIT\t \tINDENT NAME} and gives the stack from the
 * root down to it (one space or tab of indentation per level) its self time in milliseconds
 * ({@code min}, {@code s} and {@code ms} converted, rounded half to even as perl's {@code %.0f}).
 * The columns are matched with perl's regular expression (a deep copy is small, so a String per
 * line costs nothing that matters). Errors: a line that does not match (perl dies), a level skipped.
 */
public final class InstrumentsCollapser implements Collapser {
    private static final Pattern ROW = Pattern.compile(
            "\\d+\\.\\d+ (?:min|s|ms)\\s+\\d+\\.\\d+%\\s+(\\d+(?:\\.\\d+)?) (min|s|ms)\\t \\t(\\s*)(.+)");

    @Override
    public String name() {
        return "instruments";
    }

    @Override
    public boolean detect(byte[] head, int length) {
        var lines = Detect.lines(head, length);
        return lines.size() >= 2 && lines.get(0).contains("Symbol Name") && ROW.matcher(lines.get(1)).find();
    }

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        Problems problems = Problems.of(in, options);
        Stacks stacks = new Stacks();
        int[] path = new int[64];
        int known = 0; // levels of path that are set
        try (LineReader r = new LineReader(in.stream(), in.name())) {
            if (!r.next()) {
                problems.finish(warnings);
                return stacks.profile();
            }
            while (r.next()) {
                if (r.isBlank()) {
                    continue;
                }
                String line = Text.trimEnd(r.latin1());
                Matcher m = ROW.matcher(line);
                if (!m.find()) {
                    problems.bad(r.lineNumber(), "not a call tree row 'TIME UNIT  PERCENT%  SELF UNIT<tab> <tab>NAME'");
                    continue;
                }
                int depth = m.group(3).length();
                if (depth > known) {
                    problems.bad(r.lineNumber(), "indentation skips a level (depth " + depth + " after " + (known - 1) + ")");
                    continue;
                }
                if (depth == path.length) {
                    path = Arrays.copyOf(path, depth * 2);
                }
                path[depth] = stacks.frame(m.group(4));
                known = depth + 1;
                double time = Double.parseDouble(m.group(1));
                time *= switch (m.group(2)) {
                    case "min" -> 60 * 1000;
                    case "s" -> 1000;
                    default -> 1;
                };
                long ms = (long) Math.rint(time);
                if (ms > 0) {
                    stacks.clear();
                    for (int i = 0; i <= depth; i++) {
                        stacks.pushFrame(path[i]);
                    }
                    stacks.add(ms);
                }
            }
        }
        problems.finish(warnings);
        return stacks.profile();
    }
}
