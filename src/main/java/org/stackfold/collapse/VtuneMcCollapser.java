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
 * VTune memory-consumption top-down CSV, made with {@code amplxe-cl -R top-down -call-stack-mode
 * all -column="Allocations:Self","Allocation Size:Self","Module" -report-out allocations.csv
 * -format csv -csv-delimiter comma -r RESULT}, as {@code stackcollapse-vtune-mc.pl} reads it: a
 * {@code war:} line before the header is skipped, then the header; every row
 * {@code INDENT function,size,deallocated size,allocations,module} (quotes removed, one space of
 * indentation per level) gives the stack from the root down to it, frames {@code function(module)},
 * its allocation count, or with {@code size} its allocated bytes. Columns are cut with perl's
 * regular expression (its lazy name match decides where names with commas end). Errors: a row that
 * does not match, a level skipped, a value that is not a whole number.
 */
public final class VtuneMcCollapser implements Collapser {
    private static final Pattern ROW = Pattern.compile(
            "(\\s*)(.*?),([0-9]*?\\.?[0-9]*?),([0-9]*?\\.?[0-9]*?),([0-9]*?\\.?[0-9]*?),(.*)");
    static final String HEADER = "Function Stack,Allocation Size:Self,Deallocation Size:Self,Allocations:Self,Module";

    @Override
    public String name() {
        return "vtune-mc";
    }

    @Override
    public boolean detect(byte[] head, int length) {
        for (String line : Detect.lines(head, length)) {
            String t = Text.trim(line.replace("\"", ""));
            if (t.startsWith("\uFEFF")) {
                t = t.substring(1);
            }
            if (t.equals(HEADER)) {
                return true;
            }
            if (!t.startsWith("war:")) {
                return false;
            }
        }
        return false;
    }

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        boolean size = options.flag("size");
        Problems problems = Problems.of(in, options);
        Stacks stacks = new Stacks();
        int[] path = new int[64];
        int known = 0;
        long rows = 0;
        try (LineReader r = new LineReader(in.stream(), in.name())) {
            while (r.next()) {
                String line = r.latin1();
                if (rows == 0 && line.startsWith("war:")) {
                    continue;
                }
                if (rows++ == 0) {
                    continue; // the header
                }
                if (line.endsWith("\r")) {
                    line = line.substring(0, line.length() - 1);
                }
                if (line.isBlank()) {
                    continue;
                }
                Matcher m = ROW.matcher(line.replace("\"", ""));
                if (!m.find()) {
                    problems.bad(r.lineNumber(), "not a row 'function,size,deallocated size,allocations,module'");
                    continue;
                }
                int depth = m.group(1).length();
                if (depth > known) {
                    problems.bad(r.lineNumber(), "indentation skips a level (depth " + depth + " after " + (known - 1) + ")");
                    continue;
                }
                if (depth == path.length) {
                    path = Arrays.copyOf(path, depth * 2);
                }
                path[depth] = stacks.frame(m.group(2) + "(" + m.group(6) + ")");
                known = depth + 1;
                String value = size ? m.group(3) : m.group(5);
                if (value.isEmpty()) {
                    continue;
                }
                long v = wholeNumber(value);
                if (v < 0) {
                    problems.bad(r.lineNumber(), "value '" + value + "' is not a whole number");
                    continue;
                }
                if (v > 0) {
                    stacks.clear();
                    for (int i = 0; i <= depth; i++) {
                        stacks.pushFrame(path[i]);
                    }
                    stacks.add(v);
                }
            }
        }
        problems.finish(warnings);
        return stacks.profile();
    }

    /** A count as VTune writes it ({@code 12}, or {@code 12.0}); -1 for a fraction or too many digits. */
    static long wholeNumber(String value) {
        int dot = value.indexOf('.');
        if (dot < 0) {
            return Text.parseCount(value);
        }
        for (int i = dot + 1; i < value.length(); i++) {
            if (value.charAt(i) != '0') {
                return -1;
            }
        }
        return dot == 0 ? 0 : Text.parseCount(value.substring(0, dot));
    }
}
