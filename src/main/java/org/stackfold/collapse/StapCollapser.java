package org.stackfold.collapse;

import java.io.IOException;
import java.util.function.Consumer;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * SystemTap stacks ({@code print_stack()} / {@code print_ubacktrace()} of an aggregation, each
 * followed by its count on a line of its own), as {@code stackcollapse-stap.pl} reads them: frames
 * leaf first, one a line, {@code 0xffffffff8103ce3b : native_safe_halt+0xb/0x10 [kernel]} giving
 * {@code native_safe_halt} (the text after the last {@code " : "}, cut at the last {@code +});
 * a line of only digits (after leading whitespace) is the count of the frames before it; blank
 * lines are skipped; an empty name becomes {@code -}.
 *
 * <p>Errors: a count without frames before it, a count too large for 64 bits, and frames at the
 * end of the input without a count (perl prints an empty stack or drops them silently).
 */
public final class StapCollapser implements Collapser {
    @Override
    public String name() {
        return "stap";
    }

    @Override
    public boolean detect(byte[] head, int length) {
        // "0xffffffff8103ce3b : name+0xb/0x10 [module]" frames, then a count line.
        boolean frame = false;
        for (String raw : Detect.lines(head, length)) {
            String line = Text.trim(raw);
            if (line.isEmpty()) {
                continue;
            }
            if (frame && Text.parseCount(line) >= 0) {
                return true;
            }
            frame = line.startsWith("0x") && line.contains(" : ");
            if (!frame) {
                return false;
            }
        }
        return false;
    }

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        Problems problems = Problems.of(in, options);
        Stacks stacks = new Stacks();
        LeafFirst stack = new LeafFirst();
        int dash = stacks.frame("-");
        long stackStart = 0;
        try (LineReader r = new LineReader(in.stream(), in.name())) {
            while (r.next()) {
                byte[] b = r.buffer();
                int s = Bytes.skipSpace(b, r.start(), r.end());
                int e = Bytes.lineEnd(r);
                if (s >= e) {
                    continue; // blank
                }
                long count = Bytes.parseCount(b, s, e);
                if (count == -2) {
                    problems.bad(r.lineNumber(), "count '" + Bytes.latin1(b, s, e) + "' is too large");
                    stack.clear();
                } else if (count >= 0) {
                    if (stack.isEmpty()) {
                        problems.bad(r.lineNumber(), "count " + Bytes.latin1(b, s, e) + " without a stack before it");
                    } else {
                        stack.addTo(stacks, count);
                        stack.clear();
                    }
                } else {
                    if (stack.isEmpty()) {
                        stackStart = r.lineNumber();
                    }
                    int plus = Bytes.lastIndexOf(b, s, e, '+');
                    int end = plus >= 0 ? plus : e;
                    int from = s;
                    for (int i = end - 3; i >= s; i--) { // after the last " : "
                        if (b[i] == ' ' && b[i + 1] == ':' && b[i + 2] == ' ') {
                            from = i + 3;
                            break;
                        }
                    }
                    stack.add(from == end ? dash : stacks.frame(b, from, end - from));
                }
            }
            if (!stack.isEmpty()) {
                problems.bad(stackStart, "input ends in the middle of the stack starting here (no count line)");
            }
        }
        problems.finish(warnings);
        return stacks.profile();
    }
}
