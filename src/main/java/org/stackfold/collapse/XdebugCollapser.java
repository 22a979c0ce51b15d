package org.stackfold.collapse;

import java.io.IOException;
import java.util.function.Consumer;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * Xdebug function traces in the computer-readable format ({@code xdebug.mode=trace},
 * {@code xdebug.trace_format=1}), as {@code stackcollapse-xdebug.php} reads them: the lines between
 * {@code TRACE START} and {@code TRACE END} (or the summary line starting with a tab) are
 * tab-separated {@code LEVEL FN_NO IS_EXIT TIME MEMORY FUNCTION ...} (runs of tabs count as one, as
 * the script's {@code sed} makes them). An entry pushes {@code FUNCTION}, an exit pops it.
 *
 * <ul>
 *   <li>By time (default, the script's {@code -t}): the time between consecutive lines goes to the
 *       stack open during it, in microseconds (the trace's 6 decimals; the script multiplies by
 *       10^6 in floating point and prints the sums unrounded).
 *   <li>By count ({@code -c}, option {@code count}): each exit that follows an entry (a leaf call)
 *       counts its stack once.
 * </ul>
 *
 * Return-value lines ({@code R}, from {@code xdebug.collect_return}) are skipped (the script takes
 * them for exits). Error: an exit without an open entry (the script warns and skips it), a time
 * that is not a decimal number.
 */
public final class XdebugCollapser implements Collapser {
    @Override
    public String name() {
        return "xdebug";
    }

    @Override
    public boolean detect(byte[] head, int length) {
        for (String line : Detect.lines(head, length)) {
            if (line.startsWith("TRACE START")) {
                return true;
            }
            if (!line.startsWith("Version: ") && !line.startsWith("File format: ")) {
                return false;
            }
        }
        return false;
    }

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        boolean byCount = options.flag("count");
        Problems problems = Problems.of(in, options);
        Stacks stacks = new Stacks();
        int[] f = new int[12]; // start, end pairs of the first 6 fields
        long previous = 0;
        boolean wasExit = false;
        try (LineReader r = new LineReader(in.stream(), in.name())) {
            if (!r.skipTo("TRACE START")) {
                problems.finish(warnings);
                return stacks.profile();
            }
            while (r.next()) {
                byte[] b = r.buffer();
                int s = r.start();
                int e = Bytes.lineEnd(r);
                if (e > s && b[s] == '\t' || Bytes.startsWith(b, s, e, "TRACE END")) {
                    break;
                }
                int n = fields(b, s, e, f);
                if (n < 4) {
                    problems.bad(r.lineNumber(), "not a trace line 'LEVEL<tab>FN_NO<tab>IS_EXIT<tab>TIME...'");
                    continue;
                }
                int exitLen = f[5] - f[4];
                if (exitLen == 1 && b[f[4]] == 'R') {
                    continue;
                }
                boolean exit = !(exitLen == 0 || exitLen == 1 && b[f[4]] == '0');
                long time = micros(b, f[6], f[7]);
                if (time < 0 && !byCount) {
                    problems.bad(r.lineNumber(), "time '" + Bytes.latin1(b, f[6], f[7]) + "' is not a decimal number");
                    continue;
                }
                if (exit) {
                    if (stacks.depth() == 0) {
                        problems.bad(r.lineNumber(), "function exit without an entry before it");
                        continue;
                    }
                    if (byCount) {
                        if (!wasExit) {
                            stacks.add(1);
                        }
                    } else if (time - previous != 0) {
                        stacks.add(time - previous);
                    }
                    stacks.truncate(stacks.depth() - 1);
                } else {
                    if (n < 6) {
                        problems.bad(r.lineNumber(), "function entry without a function name");
                        continue;
                    }
                    if (!byCount && stacks.depth() > 0 && time - previous != 0) {
                        stacks.add(time - previous);
                    }
                    stacks.pushFrame(stacks.frame(b, f[10], f[11] - f[10]));
                }
                wasExit = exit;
                previous = time;
            }
        }
        problems.finish(warnings);
        return stacks.profile();
    }

    /** The first 6 tab-separated fields (runs of tabs are one separator); returns how many there are. */
    private static int fields(byte[] b, int s, int e, int[] out) {
        int n = 0;
        int i = s;
        while (n < 6) {
            int tab = Bytes.indexOf(b, i, e, '\t');
            int end = tab < 0 ? e : tab;
            out[2 * n] = i;
            out[2 * n + 1] = end;
            n++;
            if (tab < 0) {
                break;
            }
            i = tab;
            while (i < e && b[i] == '\t') {
                i++;
            }
            if (i == e) {
                break;
            }
        }
        return n;
    }

    /** A decimal number of seconds as whole microseconds (rounded past the 6th decimal); -1 when not a number. */
    static long micros(byte[] b, int s, int e) {
        int dot = Bytes.indexOf(b, s, e, '.');
        int intEnd = dot < 0 ? e : dot;
        long whole = intEnd == s ? 0 : Bytes.parseCount(b, s, intEnd);
        if (whole < 0 || whole > Long.MAX_VALUE / 1_000_000 - 1 || dot < 0 && intEnd == s) {
            return -1;
        }
        long frac = 0;
        int digits = 0;
        boolean roundUp = false;
        for (int i = dot < 0 ? e : dot + 1; i < e; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                return -1;
            }
            if (digits < 6) {
                frac = frac * 10 + d;
                digits++;
            } else if (digits++ == 6) {
                roundUp = d >= 5;
            }
        }
        for (; digits < 6; digits++) {
            frac *= 10;
        }
        return whole * 1_000_000 + frac + (roundUp ? 1 : 0);
    }
}
