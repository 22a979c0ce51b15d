package org.stackfold.perf;


import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Turns one parsed callchain line into the frame name(s) of the folded stack, by the rules both
 * peers share: strip the {@code +0x..} offset; skip {@code (...)} process-name pseudo-frames;
 * {@code [unknown]} becomes the module's base name in brackets ({@code --addrs}: with the address);
 * {@code ;} becomes {@code :}; the argument list is cut; Java frames lose the {@code L} of their
 * descriptor; {@code a->b->c} (JIT inlining) gives three frames, the later ones tagged {@code _[i]};
 * {@code --kernel}/{@code --jit} add {@code _[k]}/{@code _[j]} by the module.
 *
 * <p>Default rules follow inferno (quotes kept, bracket-aware argument cutting, Rust repair, its
 * wider kernel/JIT module tests); {@link PerfOptions#perlCompat()} switches to stackcollapse-perf.pl's.
 * Runs once per distinct input line (the parser caches the result), so it favours clarity.
 */
public final class FrameNamer {
    private static final byte[] UNKNOWN = "[unknown]".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ANON_NS = "(anonymous namespace)".getBytes(StandardCharsets.US_ASCII);

    private final PerfOptions opt;
    private final byte[][] skipAfter;

    /** Output: the pieces' bytes in {@link #out}, piece k ending at {@code ends[k]}. */
    public byte[] out = new byte[256];
    public int[] ends = new int[8];
    public int pieces;
    /** The line names a process pseudo-frame and adds nothing. */
    public boolean skip;
    /** The function matched a {@code --skip-after} name. */
    public boolean skipAfterMatch;
    /** Symbol and module both unknown (perf prints no srcline for those). */
    public boolean unknown;
    private int used;
    /** {@code --inline}: expands frames of ELF files with DWARF; null otherwise. */
    public InlineFrames inline;

    public FrameNamer(PerfOptions opt) {
        this.opt = opt;
        List<String> s = opt.skipAfter();
        skipAfter = new byte[s.size()][];
        for (int i = 0; i < s.size(); i++) {
            skipAfter[i] = s.get(i).getBytes(StandardCharsets.UTF_8);
        }
    }

    public void name(byte[] b, FrameLine f, boolean java) {
        pieces = 0;
        used = 0;
        skip = false;
        skipAfterMatch = false;
        unknown = false;
        byte[] raw;
        int rs;
        int re;
        if (f.emptyFunc) {
            raw = new byte[] {' '};
            rs = 0;
            re = 1;
        } else {
            raw = b;
            rs = f.funcStart;
            re = f.funcEnd;
        }
        re = stripOffset(raw, rs, re);
        // Both peers drop frames starting with '(' as process-name pseudo-frames; that also drops
        // C++ functions in an anonymous namespace, which we keep (perl mode drops them, as perl does).
        if (re > rs && raw[rs] == '('
                && (opt.perlCompat() || !PerfBytes.same(raw, rs, Math.min(re, rs + ANON_NS.length), ANON_NS, 0, ANON_NS.length))) {
            skip = true;
            return;
        }
        if (!opt.perlCompat() && RustSymbols.hasRustHash(raw, rs, re)) {
            raw = RustSymbols.repair(raw, rs, re);
            rs = 0;
            re = raw.length;
        }
        for (byte[] name : skipAfter) {
            if (PerfBytes.same(raw, rs, re, name, 0, name.length)) {
                skipAfterMatch = true;
            }
        }
        int modS = f.modStart;
        int modE = f.modEnd;
        byte[] mod = b;
        if (modS < 0) {
            mod = UNKNOWN;
            modS = 0;
            modE = UNKNOWN.length;
        }
        if (inline != null && expandInline(raw, rs, re, b, f, java)) {
            return;
        }
        int start = rs;
        while (true) {
            int arrow = indexOfArrow(raw, start, re);
            int end = arrow < 0 ? re : arrow;
            piece(raw, start, end, mod, modS, modE, b, f, java);
            if (arrow < 0) {
                break;
            }
            start = arrow + 2;
        }
    }

    /** {@code --inline}: the frame's pieces from its DWARF inlined frames; false to name it as printed. */
    private boolean expandInline(byte[] raw, int rs, int re, byte[] b, FrameLine f, boolean java) {
        int ms = f.modStart;
        int me = f.modEnd;
        if (ms < 0 || me - ms < 2 || b[ms] != '/' || re <= rs || indexOfArrow(raw, rs, re) >= 0) {
            return false;
        }
        String module = new String(b, ms, me - ms, StandardCharsets.UTF_8);
        if (module.startsWith("/tmp/perf-") && module.endsWith(".map")) {
            return false;
        }
        List<String> names;
        if (PerfBytes.same(raw, rs, re, UNKNOWN, 0, UNKNOWN.length)) {
            long pc = hexValue(b, f.pcStart, f.pcEnd);
            names = pc < 0 ? null : inline.expandUnknown(module, pc);
        } else {
            long offset = offsetOf(b, f.funcStart, f.funcEnd);
            if (offset < 0) {
                return false;
            }
            names = inline.expand(module, new String(raw, rs, re - rs, StandardCharsets.UTF_8), offset);
        }
        if (names == null) {
            return false;
        }
        for (String n : names) {
            byte[] nb = n.getBytes(StandardCharsets.UTF_8);
            piece(nb, 0, nb.length, b, ms, me, b, f, java);
        }
        return true;
    }

    /** The value of hexadecimal digits [s, e), or -1. */
    private static long hexValue(byte[] b, int s, int e) {
        if (e - s < 1 || e - s > 16) {
            return -1;
        }
        long v = 0;
        for (int k = s; k < e; k++) {
            int d = Character.digit(b[k], 16);
            if (d < 0) {
                return -1;
            }
            v = v << 4 | d;
        }
        return v;
    }

    /** The hexadecimal offset after the last "+0x" of a frame's symbol, or -1. */
    private static long offsetOf(byte[] b, int s, int e) {
        for (int i = e - 3; i >= s; i--) {
            if (b[i] == '+' && b[i + 1] == '0' && b[i + 2] == 'x') {
                long v = 0;
                if (e - i - 3 < 1 || e - i - 3 > 15) {
                    return -1;
                }
                for (int k = i + 3; k < e; k++) {
                    int d = Character.digit(b[k], 16);
                    if (d < 0) {
                        return -1;
                    }
                    v = v << 4 | d;
                }
                return v;
            }
        }
        return -1;
    }

    private int stripOffset(byte[] r, int s, int e) {
        for (int i = e - 3; i >= s; i--) {
            if (r[i] == '+' && r[i + 1] == '0' && r[i + 2] == 'x') {
                boolean hex = true;
                for (int k = i + 3; k < e && hex; k++) {
                    byte c = r[k];
                    hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')
                            || (!opt.perlCompat() && c >= 'A' && c <= 'F');
                }
                if (hex && (i + 3 < e || !opt.perlCompat())) {
                    return i;
                }
                return e; // the last "+0x" decides, as both peers anchor at the end
            }
        }
        return e;
    }

    private static int indexOfArrow(byte[] r, int s, int e) {
        for (int i = s; i + 1 < e; i++) {
            if (r[i] == '-' && r[i + 1] == '>') {
                return i;
            }
        }
        return -1;
    }

    private void piece(byte[] r, int s, int e, byte[] mod, int modS, int modE, byte[] line, FrameLine f,
                       boolean java) {
        int pieceStart = used;
        if (PerfBytes.same(r, s, e, UNKNOWN, 0, UNKNOWN.length)) {
            boolean modUnknown = PerfBytes.same(mod, modS, modE, UNKNOWN, 0, UNKNOWN.length);
            if (modUnknown) {
                unknown = true;
            }
            if (modUnknown && !opt.addrs()) {
                append(UNKNOWN, 0, UNKNOWN.length);
            } else {
                append((byte) '[');
                if (modUnknown) {
                    append("unknown".getBytes(StandardCharsets.US_ASCII), 0, 7);
                } else {
                    int slash = modS - 1;
                    for (int i = modE - 1; i >= modS; i--) {
                        if (mod[i] == '/') {
                            slash = i;
                            break;
                        }
                    }
                    append(mod, slash + 1, modE);
                }
                if (opt.addrs()) {
                    append((byte) ' ');
                    append((byte) '<');
                    append(line, f.pcStart, f.pcEnd);
                    append((byte) '>');
                }
                append((byte) ']');
            }
        } else {
            append(r, s, e);
        }
        // Generic tidying, on the piece's bytes in out[pieceStart, used).
        for (int i = pieceStart; i < used; i++) {
            if (out[i] == ';') {
                out[i] = ':';
            }
        }
        used = opt.perlCompat() ? perlCutArgs(pieceStart, used) : cutArgs(pieceStart, used);
        if (!opt.perlCompat()) {
            trim(pieceStart); // "StubRoutines (initialstubs)" is "StubRoutines", never "StubRoutines "
        }
        if (opt.perlCompat()) {
            int w = pieceStart;
            for (int i = pieceStart; i < used; i++) {
                if (out[i] != '\'' && out[i] != '"') {
                    out[w++] = out[i];
                }
            }
            used = w;
        }
        if (java && used > pieceStart && out[pieceStart] == 'L' && contains(out, pieceStart, used, (byte) '/')) {
            System.arraycopy(out, pieceStart + 1, out, pieceStart, used - pieceStart - 1);
            used--;
        }
        for (byte[] name : skipAfter) {
            if (PerfBytes.same(out, pieceStart, used, name, 0, name.length)) {
                skipAfterMatch = true;
            }
        }
        if (pieces > 0) {
            if (!containsTag(pieceStart, 'i')) {
                appendTag('i');
            }
        } else if (opt.kernel() && isKernel(mod, modS, modE)) {
            appendTag('k');
        } else if (opt.jit() && isJit(mod, modS, modE) && !containsTag(pieceStart, 'j')) {
            appendTag('j');
        }
        if (pieces == ends.length) {
            ends = Arrays.copyOf(ends, pieces * 2);
        }
        ends[pieces++] = used;
    }

    /** Drops white space at both ends of the piece in out[s, used). */
    private void trim(int s) {
        while (used > s && PerfBytes.isSpace(out[used - 1])) {
            used--;
        }
        int lead = s;
        while (lead < used && PerfBytes.isSpace(out[lead])) {
            lead++;
        }
        if (lead > s) {
            System.arraycopy(out, lead, out, s, used - lead);
            used -= lead - s;
        }
    }

    /** inferno's rule: cut at the first top-level '(' that is not a Go method or an anonymous namespace. */
    private int cutArgs(int s, int e) {
        int depth = 0;
        int lastDotNext = -1;
        for (int i = s; i < e; i++) {
            byte c = out[i];
            switch (c) {
                case '<', '{', '[' -> depth++;
                case '>', '}', ']', ')' -> depth--;
                case '(' -> {
                    if (depth == 0) {
                        boolean go = lastDotNext == i;
                        boolean anon = PerfBytes.same(out, i, Math.min(e, i + ANON_NS.length), ANON_NS, 0,
                                ANON_NS.length);
                        if (!go && !anon) {
                            return i;
                        }
                    }
                    depth++;
                }
                case '.' -> lastDotNext = i + 1;
                default -> {
                }
            }
        }
        return e;
    }

    /** perl's rule: unless the name looks like a Go method {@code .(...).}, cut at the first '(' not opening "(anonymous namespace)". */
    private int perlCutArgs(int s, int e) {
        int goOpen = -1;
        for (int i = s; i + 1 < e; i++) {
            if (out[i] == '.' && out[i + 1] == '(') {
                goOpen = i;
                break;
            }
        }
        if (goOpen >= 0) {
            for (int j = goOpen + 2; j + 1 < e; j++) {
                if (out[j] == ')' && out[j + 1] == '.') {
                    return e;
                }
            }
        }
        for (int i = s; i < e; i++) {
            if (out[i] == '(' && !PerfBytes.same(out, i, Math.min(e, i + ANON_NS.length), ANON_NS, 0,
                    ANON_NS.length)) {
                return i;
            }
        }
        return e;
    }

    public boolean isKernel(byte[] m, int s, int e) {
        if (opt.perlCompat()) {
            boolean k = (e > s && m[s] == '[') || endsWith(m, s, e, "vmlinux");
            return k && indexOf(m, s, e, "unknown") < 0;
        }
        if (PerfBytes.same(m, s, e, UNKNOWN, 0, UNKNOWN.length) || startsWithAt(m, s, e, "[JIT ")) {
            return false;
        }
        return (e > s && m[s] == '[') || endsWith(m, s, e, ".ko") || isVmlinux(m, s, e);
    }

    private static boolean isVmlinux(byte[] m, int s, int e) {
        int at = lastIndexOf(m, s, e, "vmlinux");
        if (at < 0) {
            return false;
        }
        for (int i = at; i < e; i++) {
            byte c = m[i];
            boolean ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-'
                    || c == '.' || c == '_';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    public boolean isJit(byte[] m, int s, int e) {
        if (opt.perlCompat()) {
            // m:/tmp/perf-\d+\.map:
            int from = s;
            while (true) {
                int at = indexOf(m, from, e, "/tmp/perf-");
                if (at < 0) {
                    return false;
                }
                int i = at + 10;
                int d = i;
                while (i < e && m[i] >= '0' && m[i] <= '9') {
                    i++;
                }
                if (i > d && startsWithAt(m, i, e, ".map")) {
                    return true;
                }
                from = at + 1;
            }
        }
        return (startsWithAt(m, s, e, "/tmp/perf-") && endsWith(m, s, e, ".map"))
                || (indexOf(m, s, e, "/jitted-") >= 0 && endsWith(m, s, e, ".so"))
                || startsWithAt(m, s, e, "[JIT "); // Android simpleperf: [JIT app cache], [JIT zygote cache]
    }

    private boolean containsTag(int s, char kind) {
        for (int i = s; i + 3 < used; i++) {
            if (out[i] == '_' && out[i + 1] == '[' && out[i + 2] == kind && out[i + 3] == ']') {
                return true;
            }
        }
        return false;
    }

    private void appendTag(char kind) {
        append((byte) '_');
        append((byte) '[');
        append((byte) kind);
        append((byte) ']');
    }

    private void append(byte c) {
        if (used == out.length) {
            out = Arrays.copyOf(out, out.length * 2);
        }
        out[used++] = c;
    }

    private void append(byte[] src, int s, int e) {
        int n = e - s;
        if (used + n > out.length) {
            out = Arrays.copyOf(out, Math.max(out.length * 2, used + n));
        }
        System.arraycopy(src, s, out, used, n);
        used += n;
    }

    private static boolean contains(byte[] b, int s, int e, byte x) {
        for (int i = s; i < e; i++) {
            if (b[i] == x) {
                return true;
            }
        }
        return false;
    }

    private static boolean endsWith(byte[] b, int s, int e, String suffix) {
        return e - s >= suffix.length() && startsWithAt(b, e - suffix.length(), e, suffix);
    }

    private static boolean startsWithAt(byte[] b, int at, int e, String p) {
        if (e - at < p.length()) {
            return false;
        }
        for (int k = 0; k < p.length(); k++) {
            if (b[at + k] != p.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    private static int indexOf(byte[] b, int s, int e, String p) {
        for (int i = s; i + p.length() <= e; i++) {
            if (startsWithAt(b, i, e, p)) {
                return i;
            }
        }
        return -1;
    }

    private static int lastIndexOf(byte[] b, int s, int e, String p) {
        for (int i = e - p.length(); i >= s; i--) {
            if (startsWithAt(b, i, e, p)) {
                return i;
            }
        }
        return -1;
    }
}
