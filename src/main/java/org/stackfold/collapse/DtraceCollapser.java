package org.stackfold.collapse;

import org.stackfold.perf.RustSymbols;
import java.io.IOException;
import java.util.ArrayList;
import java.util.function.Consumer;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * DTrace aggregations of {@code stack()} / {@code ustack()} (also both in one key), as
 * {@code stackcollapse.pl} and {@code inferno-collapse-dtrace} read them: a header up to the first
 * blank line, then per stack its frames one per line, leaf first, and a line holding only the count.
 *
 * <p>Frame rules (inferno's, which fix the perl script's offset bug FlameGraph#202): the
 * {@code +0x..} offset after the last {@code +} is dropped; a name with {@code ::} loses what
 * follows the last {@code (} or {@code <} after it (C++ arguments); {@code ;} becomes {@code :};
 * {@code a->b->c} (inlined Java frames) becomes three frames, the later ones tagged {@code _[i]},
 * each without leading {@code L}s; partially demangled Rust names are repaired; an empty name is
 * {@code -}. Option {@code includeoffset} keeps offsets except on the leaf.
 */
public final class DtraceCollapser implements Collapser {
    @Override
    public String name() {
        return "dtrace";
    }

    @Override
    public boolean detect(byte[] head, int length) {
        // inferno's rule: after the first blank line, frames (with a backtick or a 0x address)
        // then a count line.
        boolean blank = false;
        boolean frame = false;
        for (String raw : Detect.lines(head, length)) {
            String line = Text.trim(raw);
            if (line.isEmpty()) {
                blank = true;
            } else if (blank) {
                if (Text.parseCount(line) >= 0) {
                    return frame;
                } else if (line.indexOf('`') >= 0 || isHexAddress(line)) {
                    frame = true;
                } else {
                    return false;
                }
            }
        }
        return false;
    }

    private static boolean isHexAddress(String line) {
        if (!line.startsWith("0x") || line.length() == 2 || line.length() > 18) {
            return false;
        }
        for (int i = 2; i < line.length(); i++) {
            if (Character.digit(line.charAt(i), 16) < 0 || line.charAt(i) > 'f') {
                return false;
            }
        }
        return true;
    }

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        boolean includeOffset = options.flag("includeoffset");
        Problems problems = Problems.of(in, options);
        Stacks stacks = new Stacks();
        ArrayList<String> frames = new ArrayList<>(); // leaf first, as listed
        long stackStart = 0;
        try (LineReader r = new LineReader(in.stream(), in.name())) {
            boolean header = true;
            while (r.next()) {
                if (header) {
                    header = !r.isBlank();
                    continue;
                }
                String line = Text.trim(r.latin1());
                if (line.isEmpty()) {
                    continue;
                }
                long count = Text.parseCount(line);
                if (count == -2) {
                    problems.bad(r.lineNumber(), "count '" + line + "' is too large");
                    frames.clear();
                } else if (count >= 0) {
                    if (frames.isEmpty()) {
                        problems.bad(r.lineNumber(), "count " + line + " without a stack before it");
                        continue;
                    }
                    stacks.clear();
                    for (int i = frames.size() - 1; i >= 0; i--) {
                        String f = frames.get(i);
                        stacks.push(includeOffset && i == 0 ? removeOffset(f) : f);
                    }
                    stacks.add(count);
                    frames.clear();
                } else {
                    if (frames.isEmpty()) {
                        stackStart = r.lineNumber();
                    }
                    addFrames(line, includeOffset, frames);
                }
            }
            if (header) {
                warnings.accept(in.name() + ": File ended while skipping headers (no blank line after them)");
            } else if (!frames.isEmpty()) {
                problems.bad(stackStart, "input ends in the middle of the stack starting here (no count line)");
            }
        }
        problems.finish(warnings);
        return stacks.profile();
    }

    /** The frames of one stack line, in leaf-first order (inlined ones callee first). */
    static void addFrames(String line, boolean includeOffset, ArrayList<String> leafFirst) {
        boolean inlines = includeOffset;
        boolean cpp = includeOffset;
        boolean semicolon = includeOffset;
        String frame = line;
        if (!includeOffset) {
            int lastPlus = line.length();
            for (int i = 0; i < line.length(); i++) {
                char c = line.charAt(i);
                if (c == '>' && i > 0 && line.charAt(i - 1) == '-') {
                    inlines = true;
                } else if (c == ':' && i > 0 && line.charAt(i - 1) == ':') {
                    cpp = true;
                } else if (c == ';') {
                    semicolon = true;
                } else if (c == '+') {
                    lastPlus = i;
                }
            }
            frame = line.substring(0, lastPlus);
        }
        if (cpp) {
            frame = uncpp(frame);
        }
        frame = frame.isEmpty() ? "-" : fixRust(frame, includeOffset);
        if (inlines) {
            String[] parts = frame.split("->", -1);
            // listed caller first; leaf-first order wants them reversed
            for (int i = parts.length - 1; i >= 0; i--) {
                String f = stripLeadingL(parts[i]);
                if (semicolon) {
                    f = f.replace(';', ':');
                }
                leafFirst.add(i > 0 ? f + "_[i]" : f);
            }
        } else {
            leafFirst.add(semicolon ? frame.replace(';', ':') : frame);
        }
    }

    private static String stripLeadingL(String s) {
        int i = 0;
        while (i < s.length() && s.charAt(i) == 'L') {
            i++;
        }
        return s.substring(i);
    }

    /** perl's C++ argument trim: cut at the last ( or < after the first ::. */
    static String uncpp(String probe) {
        int scope = probe.indexOf("::");
        if (scope < 0) {
            return probe;
        }
        int cut = Math.max(probe.lastIndexOf('('), probe.lastIndexOf('<'));
        return cut >= scope + 2 ? probe.substring(0, cut) : probe;
    }

    static String removeOffset(String s) {
        int plus = s.lastIndexOf('+');
        return plus < 0 ? s : s.substring(0, plus);
    }

    private static String fixRust(String frame, boolean includeOffset) {
        int tick = frame.indexOf('`');
        if (tick < 0) {
            return frame;
        }
        String module = frame.substring(0, tick);
        String func = frame.substring(tick + 1);
        if (includeOffset) {
            int plus = func.lastIndexOf('+');
            if (plus >= 0) {
                String fixed = RustSymbols.fix(Text.trimEnd(func.substring(0, plus)));
                return fixed == null ? frame : module + "`" + fixed + "+" + func.substring(plus + 1);
            }
        }
        String fixed = RustSymbols.fix(Text.trimEnd(func));
        return fixed == null ? frame : module + "`" + fixed;
    }
}
