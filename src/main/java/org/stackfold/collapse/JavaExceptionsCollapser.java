package org.stackfold.collapse;

import java.io.IOException;
import java.util.function.Consumer;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * Java exception stack traces found in logs, as {@code stackcollapse-java-exceptions.pl} reads
 * them (not a profile: it counts how often each trace was logged): a run of {@code at ...} lines
 * is one stack (leaf first, the method name up to its {@code (}), counted once when the next other
 * line comes, except that {@code waiting on} lines are passed over. {@code shortenpkgs} shortens
 * package names; {@code nopkgs} drops them ({@code Class.method}).
 */
public final class JavaExceptionsCollapser implements Collapser {
    @Override
    public String name() {
        return "java-exceptions";
    }

    @Override
    public boolean detect(byte[] head, int length) {
        // "...Exception: message" (or Error) followed by a tab-indented "at " line.
        String previous = "";
        for (String line : Detect.lines(head, length)) {
            if (line.startsWith("\tat ") && !previous.startsWith("\tat ")
                    && (previous.contains("Exception") || previous.contains("Error") || previous.contains("Throwable"))
                    && !previous.startsWith("\"") && !previous.contains("java.lang.Thread.State")) {
                return true;
            }
            previous = line;
        }
        return false;
    }

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        boolean noPkgs = options.flag("nopkgs");
        boolean shorten = noPkgs || options.flag("shortenpkgs");
        Problems problems = Problems.of(in, options);
        Stacks stacks = new Stacks();
        LeafFirst stack = new LeafFirst();
        try (LineReader r = new LineReader(in.stream(), in.name())) {
            while (r.next()) {
                byte[] b = r.buffer();
                int s = r.start();
                int e = Bytes.lineEnd(r);
                int at = Bytes.skipSpace(b, s, e);
                if (Bytes.startsWith(b, at, e, "at ")) {
                    int from = at + 3;
                    int to = JavaFrames.nameEnd(b, from, e);
                    stack.add(shorten ? stacks.frame(JavaFrames.shorten(Bytes.latin1(b, from, to), noPkgs))
                            : stacks.frame(b, from, to - from));
                } else if (!stack.isEmpty() && !Bytes.contains(b, s, e, "waiting on ")) {
                    stack.addTo(stacks, 1);
                    stack.clear();
                }
            }
        }
        if (!stack.isEmpty()) {
            stack.addTo(stacks, 1);
        }
        problems.finish(warnings);
        return stacks.profile();
    }
}
