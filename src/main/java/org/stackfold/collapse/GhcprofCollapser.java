package org.stackfold.collapse;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * GHC cost-centre profiles ({@code .prof} from {@code +RTS -p}), as {@code inferno-collapse-ghcprof}
 * reads them: the call tree under the header {@code COST CENTRE MODULE SRC no. entries %time %alloc
 * %time %alloc [ticks bytes]}, one space of indentation per level, frames {@code MODULE.COSTCENTRE}.
 * Each row adds its <em>individual</em> cost to its stack (a stack can repeat: costs add up).
 *
 * <p>Cost column (option {@code source}): {@code time} (default) = individual %time in tenths of a
 * percent (truncated, as inferno's {@code (x * 10.0) as u64}), {@code ticks}, or {@code bytes}
 * (the last two need {@code +RTS -P}). Columns are found by their header's character positions,
 * so names are decoded as UTF-8.
 */
public final class GhcprofCollapser implements Collapser {
    private static final List<String> START = List.of(
            "COST", "CENTRE", "MODULE", "SRC", "no.", "entries", "%time", "%alloc", "%time", "%alloc");

    @Override
    public String name() {
        return "ghcprof";
    }

    @Override
    public boolean detect(byte[] head, int length) {
        for (String line : Detect.lines(head, length)) {
            if (line.contains(START.getFirst()) && isHeader(line)) { // contains: a cheap test before the split
                return true;
            }
        }
        return false;
    }

    private static boolean isHeader(String line) {
        String[] words = Text.trim(line).split("\\s+", START.size() + 1);
        if (words.length < START.size()) {
            return false;
        }
        for (int i = 0; i < START.size(); i++) {
            if (!words[i].equals(START.get(i))) {
                return false;
            }
        }
        return true;
    }

    private enum Source { TIME, TICKS, BYTES }

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        Source source = switch (options.get("source", "time")) {
            case "time" -> Source.TIME;
            case "ticks" -> Source.TICKS;
            case "bytes" -> Source.BYTES;
            default -> throw new IllegalArgumentException("ghcprof source must be time, ticks or bytes");
        };
        Problems problems = Problems.of(in, options);
        Stacks stacks = new Stacks().utf8();
        try (LineReader r = new LineReader(in.stream(), in.name())) {
            int moduleCol = -1;
            int sourceCol = -1;
            while (r.next()) {
                String l = r.utf8();
                if (isHeader(l)) {
                    int[] cps = l.codePoints().toArray();
                    moduleCol = indexOf(cps, "MODULE");
                    sourceCol = switch (source) {
                        case TIME -> indexOf(cps, "%time");
                        case TICKS -> afterColumnBefore(cps, "ticks", problems, r.lineNumber());
                        case BYTES -> afterColumnBefore(cps, "bytes", problems, r.lineNumber());
                    };
                    break;
                }
            }
            if (sourceCol < 0) {
                warnings.accept(in.name() + ": File ended before start of call graph "
                        + "(no 'COST CENTRE MODULE SRC no. entries ...' header)");
                return stacks.profile();
            }
            r.next(); // the blank line under the header
            int skipBelow = Integer.MAX_VALUE; // lenient: the subtree of a skipped line goes too
            while (r.next()) {
                String line = Text.trimEnd(r.utf8());
                if (line.isEmpty()) {
                    break; // the call graph ends at the first blank line
                }
                int indent = 0;
                while (indent < line.length() && line.charAt(indent) == ' ') {
                    indent++;
                }
                if (indent > skipBelow) {
                    continue;
                }
                skipBelow = Integer.MAX_VALUE;
                if (indent > stacks.depth()) {
                    problems.bad(r.lineNumber(), "indentation skips a level (depth " + indent + " after "
                            + stacks.depth() + ")");
                    skipBelow = indent;
                    continue;
                }
                int[] cps = line.codePoints().toArray();
                String costText = field(cps, sourceCol);
                double cost;
                try {
                    cost = VtuneCollapser.parseFloat(costText);
                } catch (NumberFormatException e) {
                    problems.bad(r.lineNumber(), "invalid cost field \"" + costText + "\"");
                    skipBelow = indent;
                    continue;
                }
                double scaled = source == Source.TIME ? cost * 10.0 : cost;
                if (!(scaled < 0x1p63) && !Double.isNaN(scaled)) { // never a silent clamp to 2^63-1
                    problems.bad(r.lineNumber(), "cost \"" + costText + "\" does not fit in 64 bits");
                    skipBelow = indent;
                    continue;
                }
                long value = (long) Math.max(0, scaled);
                stacks.truncate(indent);
                stacks.push(field(cps, moduleCol) + "." + field(cps, 0));
                stacks.add(value);
            }
        }
        problems.finish(warnings);
        return stacks.profile();
    }

    private static int indexOf(int[] cps, String word) {
        int[] w = word.codePoints().toArray();
        for (int i = 0; i + w.length <= cps.length; i++) {
            if (Arrays.equals(cps, i, i + w.length, w, 0, w.length)) {
                return i;
            }
        }
        return -1;
    }

    /** inferno's one_off_end_of_col_before: one past the end of the column before {@code word}. */
    private static int afterColumnBefore(int[] cps, String word, Problems problems, long line) {
        int start = indexOf(cps, word);
        if (start < 0) {
            throw problems.fatal(line, "expected a '" + word + "' column (profile made without +RTS -P?)");
        }
        for (int i = start - 1; i >= 0; i--) {
            if (!isWhitespace(cps[i])) {
                return i + 1;
            }
        }
        throw problems.fatal(line, "expected a column before '" + word + "'");
    }

    /** The first whitespace-free run at or after code point {@code col}. */
    private static String field(int[] cps, int col) {
        int i = Math.max(0, col);
        while (i < cps.length && isWhitespace(cps[i])) {
            i++;
        }
        int j = i;
        while (j < cps.length && !isWhitespace(cps[j])) {
            j++;
        }
        return i >= cps.length ? "" : new String(cps, i, j - i);
    }

    private static boolean isWhitespace(int cp) {
        return Character.isWhitespace(cp) || Character.isSpaceChar(cp) || cp == 0x85;
    }
}
