package org.stackfold.collapse;

import java.io.IOException;
import java.util.function.Consumer;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * Python {@code faulthandler} tracebacks, as {@code faulthandler.dump_traceback_later(interval,
 * repeat=True, file=f)} writes them, read as {@code stackcollapse-faulthandler.pl} does: each
 * {@code   File "PATH", line N in FUNC} line is a frame {@code PATH:N:FUNC} (most recent call
 * first), any other line ends the stack and counts it once; a line starting with {@code Thread}
 * drops the stack before it (perl's rule; faulthandler separates threads with a blank line, which
 * counts the stack first).
 */
public final class FaulthandlerCollapser implements Collapser {
    private static final String FILE = "  File \"";

    @Override
    public String name() {
        return "faulthandler";
    }

    @Override
    public boolean detect(byte[] head, int length) {
        boolean thread = false;
        for (String line : Detect.lines(head, length)) {
            if ((line.startsWith("Thread 0x") || line.startsWith("Current thread 0x"))
                    && line.endsWith("(most recent call first):")) {
                thread = true;
            } else if (thread && line.startsWith(FILE) && line.contains("\", line ")) {
                return true;
            } else {
                thread = false;
            }
        }
        return false;
    }

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        Problems problems = Problems.of(in, options);
        Stacks stacks = new Stacks();
        LeafFirst stack = new LeafFirst();
        byte[] name = new byte[256];
        try (LineReader r = new LineReader(in.stream(), in.name())) {
            while (r.next()) {
                byte[] b = r.buffer();
                int s = r.start();
                int e = Bytes.lineEnd(r);
                if (Bytes.startsWith(b, s, e, "Thread")) {
                    stack.clear();
                    continue;
                }
                int frame = frame(b, s, e);
                if (frame >= 0) {
                    // "PATH:N:FUNC", made in a reused buffer
                    int pathEnd = Bytes.indexOf(b, s + FILE.length(), e, '"');
                    int line = pathEnd + ", line ".length() + 1;
                    int lineEnd = Bytes.skipDigits(b, line, e);
                    int func = lineEnd + " in ".length();
                    int n = (pathEnd - s - FILE.length()) + 1 + (lineEnd - line) + 1 + (e - func);
                    if (name.length < n) {
                        name = new byte[n * 2];
                    }
                    int k = 0;
                    System.arraycopy(b, s + FILE.length(), name, k, pathEnd - s - FILE.length());
                    k += pathEnd - s - FILE.length();
                    name[k++] = ':';
                    System.arraycopy(b, line, name, k, lineEnd - line);
                    k += lineEnd - line;
                    name[k++] = ':';
                    System.arraycopy(b, func, name, k, e - func);
                    stack.add(stacks.frame(name, 0, n));
                } else if (!stack.isEmpty()) {
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

    /** 0 where the line is a frame line ({@code   File "P", line N in F}), else -1. */
    private static int frame(byte[] b, int s, int e) {
        if (!Bytes.startsWith(b, s, e, FILE)) {
            return -1;
        }
        int pathEnd = Bytes.indexOf(b, s + FILE.length(), e, '"');
        if (pathEnd < 0 || !Bytes.startsWith(b, pathEnd, e, "\", line ")) {
            return -1;
        }
        int lineEnd = Bytes.skipDigits(b, pathEnd + 8, e);
        return Bytes.startsWith(b, lineEnd, e, " in ") ? 0 : -1;
    }
}
