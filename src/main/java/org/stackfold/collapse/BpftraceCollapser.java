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

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        boolean includeOffset = options.flag("includeoffset");
        Problems problems = Problems.of(in, options);
        Stacks stacks = new Stacks();
        List<String> scalars = new ArrayList<>();
        List<List<String>> keyStacks = new ArrayList<>();
        List<String> current = null;
        boolean inEntry = false;
        long entryLine = 0;
        long ignored = 0;
        try (LineReader r = new LineReader(in.stream())) {
            while (r.next()) {
                String line = r.latin1();
                if (!inEntry) {
                    if (line.isBlank() || line.startsWith("Attaching ")) {
                        continue;
                    }
                    int bracket = line.indexOf('[');
                    if (!line.startsWith("@") || bracket < 0) {
                        ignored++; // printf output, scalar maps (@x: 5), ...
                        continue;
                    }
                    scalars.clear();
                    keyStacks.clear();
                    current = null;
                    entryLine = r.lineNumber();
                    String tail = line.substring(bracket + 1);
                    String[] end = endOf(tail);
                    if (end != null) { // a one-line entry: no stacks in the key
                        addParts(end[0], scalars);
                        emit(stacks, scalars, keyStacks, Text.parseCount(end[1]), includeOffset, problems, entryLine);
                    } else {
                        addParts(tail, scalars);
                        inEntry = true;
                    }
                    continue;
                }
                if (!line.isEmpty() && Text.isSpace(line.charAt(0)) && !line.isBlank()) {
                    if (current == null) {
                        current = new ArrayList<>();
                        keyStacks.add(current);
                    }
                    current.add(frame(Text.trim(line), true)); // offsets go at emit()
                    continue;
                }
                current = null; // any other line ends the stack being read
                if (line.startsWith("@")) {
                    problems.bad(entryLine, "map entry has no ']: COUNT' line before the next entry");
                    inEntry = false;
                    // re-read this line as a new entry start
                    scalars.clear();
                    keyStacks.clear();
                    entryLine = r.lineNumber();
                    int bracket = line.indexOf('[');
                    String tail = bracket < 0 ? "" : line.substring(bracket + 1);
                    String[] end = endOf(tail);
                    if (bracket >= 0 && end != null) {
                        addParts(end[0], scalars);
                        emit(stacks, scalars, keyStacks, Text.parseCount(end[1]), includeOffset, problems, entryLine);
                    } else if (bracket >= 0) {
                        addParts(tail, scalars);
                        inEntry = true;
                    }
                    continue;
                }
                String[] end = endOf(line);
                if (end != null) {
                    addParts(end[0], scalars);
                    emit(stacks, scalars, keyStacks, Text.parseCount(end[1]), includeOffset, problems, r.lineNumber());
                    inEntry = false;
                } else {
                    addParts(line, scalars);
                }
            }
            if (inEntry) {
                problems.bad(entryLine, "input ends inside the map entry starting here (no ']: COUNT')");
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

    private static void emit(Stacks stacks, List<String> scalars, List<List<String>> keyStacks, long count,
                             boolean includeOffset, Problems problems, long line) {
        if (count < 0) {
            problems.bad(line, "count is too large");
            return;
        }
        stacks.clear();
        for (String s : scalars) {
            stacks.push(s.replace(';', ':'));
        }
        String leafStack = null;
        for (List<String> st : keyStacks) {
            if (!st.isEmpty()) {
                leafStack = st.getFirst();
            }
        }
        for (List<String> st : keyStacks) {
            for (int i = st.size() - 1; i >= 0; i--) {
                String f = st.get(i);
                // as DTrace's includeoffset: offsets stay except on the leaf
                boolean leaf = i == 0 && f == leafStack && st == keyStacks.get(lastNonEmpty(keyStacks));
                stacks.push(includeOffset && !leaf ? f : withoutOffset(f));
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
