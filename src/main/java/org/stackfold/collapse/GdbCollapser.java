package org.stackfold.collapse;

import java.io.IOException;
import java.util.function.Consumer;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * GDB backtraces from the poor man's profiler ({@code gdb -ex "set pagination 0" -ex "thread apply
 * all bt" -batch -p PID}, many times), as {@code stackcollapse-gdb.pl} reads them: each {@code #N}
 * line is a frame (leaf first), any other line ends the stack and counts it once, and a
 * {@code Thread} line starts a new one. The frame name is the third space-separated field after
 * {@code #N} ({@code #0  0x7f12 in poll () ...} gives {@code poll}) unless the first field holds no
 * {@code 0x} address ({@code #1  main () at x.c:5} gives {@code main}); the fields are cut exactly as
 * the perl regex cuts them ({@link #fields}).
 */
public final class GdbCollapser implements Collapser {
    @Override
    public String name() {
        return "gdb";
    }

    @Override
    public boolean detect(byte[] head, int length) {
        // "Thread N (...):" followed by "#0  0x... in name (" lines.
        boolean thread = false;
        for (String line : Detect.lines(head, length)) {
            if (line.startsWith("Thread ") && line.endsWith("):")) {
                thread = true;
            } else if (thread && line.startsWith("#0  ") && (line.contains(" in ") || line.contains(" ("))) {
                return true;
            } else if (thread && !line.isEmpty()) {
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
        int[] f = new int[4];
        try (LineReader r = new LineReader(in.stream(), in.name())) {
            while (r.next()) {
                byte[] b = r.buffer();
                int s = r.start();
                int e = Bytes.lineEnd(r);
                if (Bytes.startsWith(b, s, e, "Thread")) {
                    stack.clear();
                } else if (e > s && b[s] == '#' && fields(b, s, e, 3, f)) {
                    int t1End = Bytes.indexOf(b, f[0], e, ' ');
                    int from;
                    int to;
                    if (Bytes.contains(b, f[0], t1End, "0x")) {
                        from = f[2];
                        to = Bytes.indexOf(b, from, e, ' ');
                    } else {
                        from = f[0];
                        to = t1End;
                    }
                    if (to > from || !stack.isEmpty()) { // perl joins strings: an empty leaf vanishes
                        stack.add(stacks.frame(b, from, to - from));
                    }
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

    /**
     * Where perl's {@code ^PREFIX *([^ ]*) ([^ ]*) ...} finds its fields after a prefix of
     * {@code [0-9]} (gdb's {@code #N}) or hex digits: the spaces after the prefix are matched
     * greedily, but give back as many as the {@code separators} single spaces between the fields
     * need. Fills {@code starts[0..separators]} with the field starts (each field runs to the next
     * space); false where the line has too few spaces (no match).
     */
    static boolean fields(byte[] b, int s, int e, int separators, int[] starts) {
        int p = s + 1; // past '#'
        while (p < e && b[p] >= '0' && b[p] <= '9') {
            p++;
        }
        return fieldsAfter(b, p, e, separators, starts);
    }

    static boolean fieldsAfter(byte[] b, int prefixEnd, int e, int separators, int[] starts) {
        int p = prefixEnd;
        while (p < e && b[p] == ' ') {
            p++;
        }
        int spaces = 0;
        for (int i = p; i < e; i++) {
            if (b[i] == ' ') {
                spaces++;
            }
        }
        // Give back leading spaces (each becomes an empty field) until enough separators follow.
        while (spaces < separators && p > prefixEnd) {
            p--;
            spaces++;
        }
        if (spaces < separators) {
            return false;
        }
        starts[0] = p;
        for (int k = 1; k <= separators; k++) {
            starts[k] = Bytes.indexOf(b, starts[k - 1], e, ' ') + 1;
        }
        return true;
    }
}
