package org.stackfold.collapse;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * bpftrace map dumps whose keys hold stacks, e.g. of
 * {@code profile:hz:99 { @[comm, ustack, kstack] = count(); }}, as printed at exit:
 * <pre>
 * @[busy,
 *     __libc_read+13
 *     main+38
 * ,
 *     vfs_read+570
 *     ksys_read+102
 * ]: 12
 * </pre>
 * A stack is printed leaf first, one frame a line, indented; other key parts (comm, pid, ...) are
 * printed inline between {@code , }. Each entry becomes one stack: the non-stack key parts first (in
 * key order), then each stack root first, in key order (so write {@code ustack} before
 * {@code kstack}). Equal stacks add up (different addresses can symbolize alike).
 *
 * <p>Frames lose their {@code +offset} ({@code includeoffset} keeps it except on the leaf, as for DTrace; FlameGraph's
 * {@code stackcollapse-bpftrace.pl} always keeps it). {@code ustack(perf)} style frames
 * ({@code address symbol+off (module)}) keep the symbol only. Single-line entries
 * ({@code @[comm]: 5}) are stacks of their key parts, an empty key ({@code @[]: 200}, a
 * {@code kstack} of samples taken in user mode) is the frame {@code [no stack]}; lines outside map entries ("Attaching 2
 * probes...", printf output) are ignored, and entries without a count are bad lines.
 */
public final class BpftraceCollapser implements Collapser {
    /** The frame of entries whose key is empty ({@code @[]: 200}: a kstack of user-mode samples). */
    static final String NO_STACK = "[no stack]";

    @Override
    public String name() {
        return "bpftrace";
    }

    @Override
    public boolean detect(byte[] head, int length) {
        boolean open = false;
        boolean frame = false;
        for (String line : Detect.lines(head, length)) {
            if (!open) {
                if (line.startsWith("@") && line.indexOf('[') > 0 && !line.contains("]: ")) {
                    open = true;
                }
            } else if (!line.isEmpty() && Text.isSpace(line.charAt(0))) {
                frame = true;
            } else if (endOf(line) != null) {
                return frame;
            }
        }
        return false;
    }

    /** {prefix before "]: ", count} where the line ends an entry, else null. */
    private static String[] endOf(String line) {
        String t = Text.trimEnd(line);
        int at = t.lastIndexOf("]: ");
        if (at < 0) {
            return null;
        }
        String count = t.substring(at + 3);
        if (Text.parseCount(count) < 0) {
            return null;
        }
        return new String[] {t.substring(0, at), count};
    }

    /** The map entry being read: key parts outside stacks, and the stacks (leaf first, as printed). */
    private static final class Entry {
        final long line;
        final List<String> scalars = new ArrayList<>();
        final List<List<String>> stacks = new ArrayList<>();
        List<String> current; // the stack whose frames are being read, or null

        Entry(long line) {
            this.line = line;
        }

        void addFrame(String text) {
            if (current == null) {
                current = new ArrayList<>();
                stacks.add(current);
            }
            current.add(frame(Text.trim(text), true)); // offsets go at emit()
        }
    }

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        boolean includeOffset = options.flag("includeoffset");
        Problems problems = Problems.of(in, options);
        Stacks stacks = new Stacks();
        Entry e = null;
        long ignored = 0;
        try (LineReader r = new LineReader(in.stream(), in.name())) {
            while (r.next()) {
                String line = r.latin1();
                boolean indented = !line.isEmpty() && Text.isSpace(line.charAt(0)) && !line.isBlank();
                if (e != null && indented) {
                    e.addFrame(line);
                    continue;
                }
                if (e != null && line.startsWith("@")) {
                    problems.bad(e.line, "map entry has no ']: COUNT' line before the next entry");
                    e = null; // and this line starts the next one
                }
                if (e == null) {
                    int bracket = line.indexOf('[');
                    if (!line.startsWith("@") || bracket < 0) {
                        if (!line.isBlank() && !line.startsWith("Attaching ")) {
                            ignored++; // printf output, scalar maps (@x: 5), ...
                        }
                        continue;
                    }
                    e = new Entry(r.lineNumber());
                    line = line.substring(bracket + 1);
                }
                e.current = null; // a non-frame line ends the stack being read
                String[] end = endOf(line);
                if (end == null) {
                    addParts(line, e.scalars); // "busy, " or ", 1234, " between stacks
                    continue;
                }
                addParts(end[0], e.scalars);
                emit(stacks, e, Text.parseCount(end[1]), includeOffset, problems, r.lineNumber());
                e = null;
            }
            if (e != null) {
                problems.bad(e.line, "input ends inside the map entry starting here (no ']: COUNT')");
            }
        }
        if (ignored > 0 && stacks.profile().tree().size() <= 1) {
            warnings.accept(in.name() + ": no bpftrace map entries with a key found (" + ignored
                    + " other lines ignored)");
        }
        problems.finish(warnings);
        return stacks.profile();
    }

    /** Key parts between ", " separators, e.g. "busy, " or ", 1234, ". */
    private static void addParts(String text, List<String> out) {
        for (String p : text.split(",")) {
            String t = Text.trim(p);
            if (!t.isEmpty()) {
                out.add(t);
            }
        }
    }

    private static void emit(Stacks stacks, Entry e, long count, boolean includeOffset, Problems problems,
                             long line) {
        if (count < 0) {
            problems.bad(line, "count is too large");
            return;
        }
        stacks.clear();
        for (String s : e.scalars) {
            stacks.push(s.replace(';', ':'));
        }
        int leafStack = lastNonEmpty(e.stacks);
        for (int k = 0; k < e.stacks.size(); k++) {
            List<String> st = e.stacks.get(k);
            for (int i = st.size() - 1; i >= 0; i--) {
                // as DTrace's includeoffset: offsets stay except on the leaf
                boolean leaf = k == leafStack && i == 0;
                stacks.push(includeOffset && !leaf ? st.get(i) : withoutOffset(st.get(i)));
            }
        }
        if (stacks.depth() == 0) {
            // @[]: 200 -- e.g. @[kstack] of samples taken in user mode; kept so totals stay right
            stacks.push(NO_STACK);
        }
        stacks.add(count);
    }

    private static int lastNonEmpty(List<List<String>> keyStacks) {
        for (int i = keyStacks.size() - 1; i >= 0; i--) {
            if (!keyStacks.get(i).isEmpty()) {
                return i;
            }
        }
        return 0;
    }

    static String withoutOffset(String f) {
        int plus = f.lastIndexOf('+');
        return plus > 0 && isOffset(f, plus + 1) ? f.substring(0, plus) : f;
    }

    /** One stack frame: address and module of ustack(perf) dropped, offset dropped unless kept. */
    static String frame(String text, boolean includeOffset) {
        String f = text;
        int sp = f.indexOf(' ');
        if (sp > 0 && isHex(f, 0, sp)) { // perf mode: "7f12ab main+38 (/usr/bin/x)"
            f = f.substring(sp + 1);
            if (f.endsWith(")")) {
                int open = f.lastIndexOf(" (");
                if (open > 0) {
                    f = f.substring(0, open);
                }
            }
        }
        if (!includeOffset) {
            f = withoutOffset(f);
        }
        return f.replace(';', ':');
    }

    private static boolean isOffset(String s, int from) {
        if (s.startsWith("0x", from)) {
            return s.length() > from + 2 && isHex(s, from + 2, s.length());
        }
        if (from == s.length()) {
            return false;
        }
        for (int i = from; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    private static boolean isHex(String s, int from, int to) {
        if (from >= to) {
            return false;
        }
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
                return false;
            }
        }
        return true;
    }
}
