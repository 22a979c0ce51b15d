package org.stackfold.collapse;

import java.io.IOException;
import java.util.function.Consumer;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * AIX {@code procstack} output, repeated (FlameGraph's {@code aix-perf.pl}), as
 * {@code stackcollapse-aix.pl} reads it: {@code PID: command} lines name the process (the root
 * frame), {@code ---------- tid# N ...} lines start a thread, and each {@code 0xADDR  name(args) +
 * off} line is a frame, leaf first, named by its second field without what follows a {@code (}
 * (or by its address where the name is {@code [...]}). Each thread's stack counts once.
 */
public final class AixCollapser implements Collapser {
    @Override
    public String name() {
        return "aix";
    }

    @Override
    public boolean detect(byte[] head, int length) {
        boolean tid = false;
        for (String line : Detect.lines(head, length)) {
            if (line.startsWith("---------- tid# ")) {
                tid = true;
            } else if (tid && line.startsWith("0x")) {
                return true;
            }
        }
        return false;
    }

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        Problems problems = Problems.of(in, options);
        Stacks stacks = new Stacks();
        LeafFirst stack = new LeafFirst();
        int process = stacks.frame("");
        int[] f = new int[3];
        try (LineReader r = new LineReader(in.stream(), in.name())) {
            while (r.next()) {
                byte[] b = r.buffer();
                int s = r.start();
                int e = Bytes.lineEnd(r);
                int digits = Bytes.skipDigits(b, s, e);
                if (digits > s && digits < e && b[digits] == ':') {
                    add(stacks, stack, process);
                    int from = digits + 1;
                    if (from < e && b[from] == ' ') {
                        int to = Bytes.indexOf(b, from + 1, e, ' ');
                        process = stacks.frame(b, from + 1, (to < 0 ? e : to) - from - 1);
                    } else {
                        process = stacks.frame("");
                    }
                } else if (Bytes.startsWith(b, s, e, "---------- tid# ") && Bytes.skipDigits(b, s + 16, e) > s + 16) {
                    add(stacks, stack, process);
                } else if (Bytes.startsWith(b, s, e, "0x")) {
                    int hex = s + 2;
                    while (hex < e && (b[hex] >= '0' && b[hex] <= '9' || b[hex] >= 'a' && b[hex] <= 'f')) {
                        hex++;
                    }
                    if (!GdbCollapser.fieldsAfter(b, hex, e, 2, f)) {
                        continue;
                    }
                    int to = Bytes.indexOf(b, f[0], e, ' ');
                    int paren = Bytes.indexOf(b, f[0], to, '(');
                    if (paren >= 0) {
                        to = paren; // perl's s/\(.*\)?//
                    }
                    if (to - f[0] >= 2 && b[f[0]] == '[' && b[to - 1] == ']') {
                        stack.add(stacks.frame(b, s, hex - s));
                    } else if (to > f[0] || !stack.isEmpty()) { // perl joins strings: an empty leaf vanishes
                        stack.add(stacks.frame(b, f[0], to - f[0]));
                    }
                }
            }
        }
        add(stacks, stack, process);
        problems.finish(warnings);
        return stacks.profile();
    }

    private static void add(Stacks stacks, LeafFirst stack, int process) {
        if (!stack.isEmpty()) {
            stack.addTo(stacks, 1, process);
            stack.clear();
        }
    }
}
