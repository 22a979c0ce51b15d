package org.stackfold.collapse;

import java.io.IOException;
import java.util.ArrayList;
import java.util.function.Consumer;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * Visual Studio profiler {@code CallTreeSummary.csv}, as {@code inferno-collapse-vsprof} reads it:
 * the header line, then {@code Level,"Function Name",Number of Calls,...} rows in tree order. The
 * weight is the number of calls: each leaf row is a stack weighted by its calls, and a caller keeps
 * its calls minus those of the callee just closed (so A called 500 times calling B 300 times is
 * 200 + 300, not 800). Counts of 1,000 and more are quoted with thousands separators.
 *
 * <p>As in inferno, the level-0 row (the process) is replaced by the first level-1 row rather than
 * becoming a root frame.
 */
public final class VsprofCollapser implements Collapser {
    static final String HEADER = "Level,Function Name,Number of Calls,Elapsed Inclusive Time %,"
            + "Elapsed Exclusive Time %,Avg Elapsed Inclusive Time,Avg Elapsed Exclusive Time,Module Name,";

    @Override
    public String name() {
        return "vsprof";
    }

    @Override
    public boolean detect(byte[] head, int length) {
        var lines = Detect.allLines(head, length);
        return !lines.isEmpty() && isHeader(lines.get(0));
    }

    private static boolean isHeader(String latin1Line) {
        String s = Text.trim(latin1Line);
        while (s.startsWith("\u00EF\u00BB\u00BF")) { // UTF-8 byte order mark, as Latin-1 chars
            s = s.substring(3);
        }
        return s.startsWith(HEADER);
    }

    private record Entry(int frame, long calls) {
    }

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        Problems problems = Problems.of(in, options);
        Stacks stacks = new Stacks();
        ArrayList<Entry> stack = new ArrayList<>();
        try (LineReader r = new LineReader(in.stream())) {
            if (!r.next()) {
                warnings.accept(in.name() + ": input ended before the start of the call graph (empty file)");
                return stacks.profile();
            }
            if (!isHeader(r.latin1())) {
                throw problems.fatal(1, "expected the CallTreeSummary.csv header line 'Level,Function Name,...'");
            }
            while (r.next()) {
                String line = Text.trimEnd(r.latin1());
                if (line.isEmpty()) {
                    continue;
                }
                try {
                    onLine(line, stack, stacks);
                } catch (BadLine e) {
                    problems.bad(r.lineNumber(), e.getMessage());
                }
            }
            write(stack, stacks);
        }
        problems.finish(warnings);
        return stacks.profile();
    }

    private static final class BadLine extends Exception {
        BadLine(String message) {
            super(message, null, false, false);
        }
    }

    private static void onLine(String line, ArrayList<Entry> stack, Stacks stacks) throws BadLine {
        long[] depthAndEnd = nextNumber(line, 0);
        long depth = depthAndEnd[0];
        int at = (int) depthAndEnd[1];
        if (at >= line.length()) {
            throw new BadLine("missing function name");
        }
        if (line.charAt(at) != '"') {
            throw new BadLine("function name is not quoted");
        }
        int close = line.indexOf('"', at + 1);
        if (close < 0) {
            throw new BadLine("function name has no closing quote");
        }
        String function = line.substring(at + 1, close);
        long calls = nextNumber(line, close + 1)[0];
        int prev = stack.size();
        if (prev < depth) {
            if (prev + 1 != depth) {
                throw new BadLine("level " + depth + " skips a level (after " + prev + ")");
            }
        } else if (prev == depth) {
            write(stack, stacks);
            if (!stack.isEmpty()) {
                stack.removeLast(); // the level-0 row meets an empty stack
            }
        } else {
            long prevCalls = 0;
            for (long i = 0; i < prev - depth + 1; i++) {
                if (prevCalls != stack.getLast().calls()) {
                    write(stack, stacks);
                }
                prevCalls = stack.removeLast().calls();
                if (stack.isEmpty()) {
                    break;
                }
                Entry top = stack.getLast();
                if (prevCalls < top.calls()) {
                    stack.set(stack.size() - 1, new Entry(top.frame(), top.calls() - prevCalls));
                }
            }
        }
        stack.add(new Entry(stacks.frame(function), calls));
    }

    private static void write(ArrayList<Entry> stack, Stacks stacks) {
        if (stack.isEmpty() || stack.getLast().calls() <= 0) {
            return;
        }
        stacks.clear();
        for (Entry e : stack) {
            stacks.pushFrame(e.frame());
        }
        stacks.set(stack.getLast().calls());
    }

    /**
     * The integer field starting at {@code from} (after an optional comma): plain, or quoted with
     * one kind of thousands separator (, . or space). Returns {value, index after the field's comma}.
     */
    static long[] nextNumber(String line, int from) throws BadLine {
        int i = from;
        if (i < line.length() && line.charAt(i) == ',') {
            i++;
        }
        String num;
        int next;
        if (i < line.length() && line.charAt(i) == '"') {
            int q = line.indexOf('"', i + 1);
            if (q < 0) {
                throw new BadLine("unterminated quoted number");
            }
            num = line.substring(i + 1, q);
            next = q + 1;
            if (next < line.length() && line.charAt(next) == ',') {
                next++;
            }
        } else {
            int c = line.indexOf(',', i);
            num = c < 0 ? line.substring(i) : line.substring(i, c);
            next = c < 0 ? line.length() : c + 1;
        }
        long n = 0;
        int group = 0;
        boolean initial = true;
        char separator = 0;
        for (int k = 0; k < num.length(); k++) {
            char c = num.charAt(k);
            if (c >= '0' && c <= '9') {
                if (group > 2) {
                    throw new BadLine("missing thousands separator in number '" + num + "'");
                }
                n = Math.addExact(Math.multiplyExact(n, 10), c - '0');
                group++;
            } else if (c == ',' || c == '.' || c == ' ') {
                if (!initial && group < 3) {
                    throw new BadLine("missing thousands separator in number '" + num + "'");
                }
                if (separator != 0 && separator != c) {
                    throw new BadLine("cannot parse an integer from '" + num + "'");
                }
                separator = c;
                initial = false;
                group = 0;
            } else {
                throw new BadLine("cannot parse an integer from '" + num + "'");
            }
        }
        return new long[] {n, next};
    }
}
