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
 * printed inline between {@code , }. Each entry becomes one stack, root first whatever order the key
 * lists its parts in: the non-stack parts (a name such as comm first, then numbers such as pid and
 * tid in key order), then the user stack, then the kernel stack, each root first. Which stack is the
 * kernel's is told by its frames ({@link KeyStack#side}); where nothing tells, key order stands.
 * Equal stacks add up (different addresses can symbolize alike).
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
        final List<KeyStack> stacks = new ArrayList<>();
        KeyStack current; // the stack whose frames are being read, or null

        Entry(long line) {
            this.line = line;
        }

        void addFrame(String text) {
            if (current == null) {
                current = new KeyStack();
                stacks.add(current);
            }
            String raw = Text.trim(text);
            current.evidence(raw);
            current.frames.add(frame(raw, true)); // offsets go at emit()
        }
    }

    /**
     * One stack of a key, leaf first, with what its frames say about whose it is. bpftrace prints
     * ustack and kstack alike, so the side is told by addresses (kernel space is the top half),
     * perf-mode modules ({@code [kernel.kallsyms]}) and the root frame (kernel entry points such as
     * {@code entry_SYSCALL_64}, {@code asm_exc_page_fault}, {@code ret_from_fork}; libc's
     * {@code _start}, {@code start_thread}, {@code clone3}).
     */
    static final class KeyStack {
        static final int USER = 0;
        static final int UNKNOWN = 1;
        static final int KERNEL = 2;
        private static final List<String> KERNEL_ROOTS = List.of("entry_", "asm_", "ret_from_fork",
                "secondary_startup", "common_startup", "start_kernel", "x86_64_start", "el0", "el1",
                "cpu_startup_entry", "sysvec_");
        private static final List<String> USER_ROOTS = List.of("_start", "__libc_start", "start_thread",
                "clone", "__clone", "thread_start", "_dl_start");

        final List<String> frames = new ArrayList<>();
        private int kernel;
        private int user;

        void evidence(String raw) {
            if (raw.endsWith("([kernel.kallsyms])") || raw.endsWith("[kernel.kallsyms])")) {
                kernel++;
            } else if (raw.endsWith(")") && raw.contains(" (/")) {
                user++;
            }
            String first = raw.indexOf(' ') > 0 ? raw.substring(0, raw.indexOf(' ')) : raw;
            String hex = first.startsWith("0x") ? first.substring(2) : first;
            if (!hex.isEmpty() && hex.length() <= 16 && isHex(hex, 0, hex.length())
                    && (first.startsWith("0x") || raw.indexOf(' ') > 0)) {
                if (Long.compareUnsigned(Long.parseUnsignedLong(hex, 16), 0xffff_8000_0000_0000L) >= 0) {
                    kernel++;
                } else {
                    user++;
                }
            }
        }

        /** {@link #USER}, {@link #KERNEL} or {@link #UNKNOWN}: the side with more evidence. */
        int side() {
            int k = kernel;
            int u = user;
            if (!frames.isEmpty()) {
                String root = withoutOffset(frames.getLast());
                if (KERNEL_ROOTS.stream().anyMatch(root::startsWith)) {
                    k += 2;
                } else if (USER_ROOTS.stream().anyMatch(root::startsWith)) {
                    u += 2;
                }
            }
            return k > u ? KERNEL : u > k ? USER : UNKNOWN;
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
        // A name (comm) before numbers (pid, tid), each group in key order.
        for (int pass = 0; pass < 2; pass++) {
            for (String s : e.scalars) {
                if ((Text.parseCount(s) >= 0) == (pass == 1)) {
                    stacks.push(s.replace(';', ':'));
                }
            }
        }
        List<List<String>> ordered = e.stacks.stream()
                .sorted(java.util.Comparator.comparingInt(KeyStack::side)) // stable: key order within a side
                .map(k -> k.frames)
                .toList();
        int leafStack = lastNonEmpty(ordered);
        for (int k = 0; k < ordered.size(); k++) {
            List<String> st = ordered.get(k);
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
