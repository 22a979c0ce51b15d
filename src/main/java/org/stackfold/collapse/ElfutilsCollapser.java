package org.stackfold.collapse;

import java.io.IOException;
import java.util.function.Consumer;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * elfutils {@code eu-stack -p PID} output, repeated (the poor man's profiler), as
 * {@code stackcollapse-elfutils.pl} reads it: {@code PID n} and {@code TID n} lines end the stack
 * before them and set the ids; each {@code #N 0xADDR name} line is a frame, leaf first, its name
 * everything after the address ({@code [unknown]} when there is none). Each stack counts once.
 * Options {@code pid} and {@code tid} put {@code PID=n} and {@code TID=n} frames at the root.
 */
public final class ElfutilsCollapser implements Collapser {
    @Override
    public String name() {
        return "elfutils";
    }

    @Override
    public boolean detect(byte[] head, int length) {
        boolean tid = false;
        for (String line : Detect.lines(head, length)) {
            if (line.startsWith("TID ") && line.endsWith(":")) {
                tid = true;
            } else if (tid && line.startsWith("#") && line.contains(" 0x")) {
                return true;
            } else if (!line.startsWith("PID ")) {
                tid = false;
            }
        }
        return false;
    }

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        boolean withPid = options.flag("pid");
        boolean withTid = options.flag("tid");
        Problems problems = Problems.of(in, options);
        Stacks stacks = new Stacks();
        LeafFirst stack = new LeafFirst();
        int unknown = stacks.frame("[unknown]");
        String pid = "";
        String tid = "";
        try (LineReader r = new LineReader(in.stream(), in.name())) {
            while (r.next()) {
                byte[] b = r.buffer();
                int s = r.start();
                int e = Bytes.lineEnd(r);
                if (Bytes.startsWith(b, s, e, "PID ")) {
                    add(stacks, stack, withPid, pid, withTid, tid);
                    pid = Bytes.latin1(b, s + 4, Bytes.skipDigits(b, s + 4, e));
                } else if (Bytes.startsWith(b, s, e, "TID ")) {
                    add(stacks, stack, withPid, pid, withTid, tid);
                    tid = Bytes.latin1(b, s + 4, Bytes.skipDigits(b, s + 4, e));
                } else if (e > s && b[s] == '#') {
                    int p = Bytes.skipDigits(b, s + 1, e);
                    while (p < e && b[p] == ' ') {
                        p++;
                    }
                    if (!Bytes.startsWith(b, p, e, "0x")) {
                        continue;
                    }
                    p += 2;
                    while (p < e && (b[p] >= '0' && b[p] <= '9' || b[p] >= 'a' && b[p] <= 'f')) {
                        p++;
                    }
                    if (p < e && b[p] == ' ') {
                        if (p + 1 < e || !stack.isEmpty()) { // perl joins strings: an empty leaf vanishes
                            stack.add(stacks.frame(b, p + 1, e - p - 1));
                        }
                    } else {
                        stack.add(unknown);
                    }
                }
            }
        }
        add(stacks, stack, withPid, pid, withTid, tid);
        problems.finish(warnings);
        return stacks.profile();
    }

    private static void add(Stacks stacks, LeafFirst stack, boolean withPid, String pid, boolean withTid, String tid) {
        if (stack.isEmpty()) {
            return;
        }
        if (withPid && withTid) {
            stack.addTo(stacks, 1, stacks.frame("PID=" + pid), stacks.frame("TID=" + tid));
        } else if (withPid) {
            stack.addTo(stacks, 1, stacks.frame("PID=" + pid));
        } else if (withTid) {
            stack.addTo(stacks, 1, stacks.frame("TID=" + tid));
        } else {
            stack.addTo(stacks, 1);
        }
        stack.clear();
    }
}
