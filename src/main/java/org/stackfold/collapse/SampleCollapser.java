package org.stackfold.collapse;

import org.stackfold.perf.RustSymbols;
import java.io.IOException;
import java.util.function.Consumer;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * macOS {@code sample} reports, as {@code inferno-collapse-sample} (and
 * {@code stackcollapse-sample.awk}) read them: the call graph between {@code Call graph:} and
 * {@code Total number in stack}, one frame a line, indented by two of {@code " +|:!"} per level after
 * four spaces, each line {@code COUNT name  (in module) + off [addr]}.
 *
 * <p>Every leaf line becomes a stack weighted by its own count; frames are {@code module`name}
 * ({@code .dylib} dropped from the module; {@code nomodules} leaves the module out); partially
 * demangled Rust names are repaired; leaves that only wait ({@code __psynch_cvwait},
 * {@code mach_msg_trap}, {@code read}, ...: names ending so) are dropped, as inferno drops them.
 */
public final class SampleCollapser implements Collapser {
    static final String START = "Call graph:";
    static final String END = "Total number in stack";
    private static final String[] IGNORE = {
            "__psynch_cvwait", "__select", "__semwait_signal", "__ulock_wait", "__wait4",
            "__workq_kernreturn", "kevent", "mach_msg_trap", "read", "semaphore_wait_trap",
    };

    @Override
    public String name() {
        return "sample";
    }

    @Override
    public boolean detect(byte[] head, int length) {
        boolean start = false;
        for (String line : Detect.lines(head, length)) {
            if (line.startsWith(START)) {
                start = true;
            } else if (line.startsWith(END)) {
                return start;
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
            if (!r.skipTo(START)) {
                warnings.accept(in.name() + ": File ended before start of call graph (no 'Call graph:' line)");
                return stacks.profile();
            }
            long samples = 0; // count of the last frame line
            boolean ended = false;
            int skipBelow = Integer.MAX_VALUE; // lenient: the subtree of a skipped line goes too
            while (r.next()) {
                String line = Text.trimEnd(r.latin1());
                if (line.isEmpty()) {
                    continue;
                }
                if (line.startsWith(END)) {
                    write(stacks, samples);
                    ended = true;
                    break;
                }
                if (!line.startsWith("    ")) {
                    problems.bad(r.lineNumber(), "call graph line does not start with 4 spaces");
                    continue;
                }
                int indent = 0;
                while (4 + indent < line.length() && isIndent(line.charAt(4 + indent))) {
                    indent++;
                }
                if (4 + indent == line.length()) {
                    problems.bad(r.lineNumber(), "call graph line holds only indentation");
                    continue;
                }
                if (indent % 2 != 0) {
                    problems.bad(r.lineNumber(), "odd number (" + indent + ") of indentation characters");
                    continue;
                }
                int depth = indent / 2 + 1;
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
                String rest = line.substring(4 + indent);
                int space = rest.indexOf(' ');
                if (space < 0) {
                    problems.bad(r.lineNumber(), "cannot parse call graph line (no name after the count)");
                    skipBelow = depth;
                    continue;
                }
                long count = Text.parseCount(Text.trimEnd(rest.substring(0, space)));
                if (count < 0) {
                    problems.bad(r.lineNumber(), "invalid sample count '" + rest.substring(0, space) + "'");
                    skipBelow = depth;
                    continue;
                }
                if (depth <= prev) {
                    write(stacks, samples);
                    stacks.truncate(depth - 1);
                }
                samples = count;
                stacks.push(frame(rest.substring(space + 1), noModules));
            }
            if (!ended) {
                throw problems.fatal(r.lineNumber(), "File ended before end of call graph (no '" + END + "' line)");
            }
        }
        problems.finish(warnings);
        return stacks.profile();
    }

    private static boolean isIndent(char c) {
        return c == ' ' || c == '+' || c == '|' || c == ':' || c == '!';
    }

    /** "name  (in module) + 12  [0x..]" to "module`name". */
    static String frame(String text, boolean noModules) {
        int open = text.indexOf('(');
        String func = Text.trimEnd(open >= 0 ? text.substring(0, open) : text);
        func = RustSymbols.repair(func);
        if (noModules) {
            return func;
        }
        int in = text.lastIndexOf("(in ");
        String after = in >= 0 ? text.substring(in + 4) : text;
        int close = after.indexOf(')');
        String module = close >= 0 ? after.substring(0, close) : "";
        if (module.endsWith(".dylib")) {
            module = module.substring(0, module.length() - 6);
        }
        return module.isEmpty() ? func : module + "`" + func;
    }

    private static void write(Stacks stacks, long samples) {
        if (stacks.depth() == 0) {
            return;
        }
        // The leaf's name decides; inferno tests the joined stack's end, i.e. the leaf frame.
        String leaf = stacks.profile().frames().name(stacks.leaf());
        for (String s : IGNORE) {
            if (leaf.endsWith(s)) {
                return;
            }
        }
        stacks.set(samples);
    }
}
