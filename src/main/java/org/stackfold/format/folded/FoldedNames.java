package org.stackfold.format.folded;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import org.stackfold.model.ByteStringPool;

/**
 * Frame names as a folded line can carry them. Folded text has no escapes: a name holding a line
 * end, a {@code ;}, or white space at its ends would change the structure of the file when read
 * back (a forged line, an extra frame, a name the reader trims). So a written name
 * <ul>
 *   <li>has no white space at either end (a collapser's {@code "StubRoutines "} is
 *       {@code StubRoutines}: the reader trims it at a leaf, so one function would become two);
 *   <li>has {@code :} for each {@code ;} (as the perf and bpftrace collapsers already write);
 *   <li>has {@code \xNN} for each control byte but tab (C0, DEL), line ends included (a tab inside
 *       a name is white space the reader keeps);
 *   <li>starts with {@code \x23} instead of {@code #} where it would make a root line a comment
 *       ({@code #} alone or followed by a space).
 * </ul>
 * Names already clean (every name read from a folded file, so {@code fold} is a fixed point) are
 * written as they are. The rewriting is one way: {@code \} is not escaped. Writers that promise a
 * peer's bytes use a narrower {@link Rules}.
 */
public final class FoldedNames {
    /** Which rules a writer applies. */
    public enum Rules {
        /** All of them: Stackfold's own folded output. */
        FOLDED(true, true),
        /** All but trimming: stackcollapse-perf.pl's bytes keep white space at the ends of names. */
        KEEP_SPACE(false, true),
        /**
         * Only what changes the structure (line ends, {@code ;}): CPython's collapsed bytes keep other
         * control bytes, which a folded reader keeps too.
         */
        STRUCTURE(false, false);

        final boolean trim;
        final boolean controls;

        Rules(boolean trim, boolean controls) {
            this.trim = trim;
            this.controls = controls;
        }

        boolean escapes(byte c, boolean first, byte next, boolean last) {
            if (c == '\n' || c == '\r') {
                return true;
            }
            if (!controls) {
                return false;
            }
            return (c >= 0 && c < 0x20 && c != '\t') || c == 0x7f || (first && c == '#' && (last || next == ' '));
        }
    }

    private FoldedNames() {
    }

    /**
     * For each name of the pool, its safe form where that differs, else null; or null where every
     * name is safe already (the usual case, found in one pass without copying).
     */
    public static byte[][] replacements(ByteStringPool names, Rules rules) {
        byte[][] out = null;
        byte[] scratch = new byte[256];
        for (int id = 0; id < names.size(); id++) {
            if (names.length(id) > scratch.length) {
                scratch = new byte[Math.max(names.length(id), scratch.length * 2)];
            }
            int n = names.copyTo(id, scratch, 0);
            if (needsCleaning(scratch, n, rules)) {
                if (out == null) {
                    out = new byte[names.size()][];
                }
                out[id] = clean(Arrays.copyOf(scratch, n), rules);
            }
        }
        return out;
    }

    /** True where {@code clean} would change the name in b[0, n). */
    static boolean needsCleaning(byte[] b, int n, Rules rules) {
        if (n == 0) {
            return false;
        }
        if (rules.trim && (FoldedSyntax.isSpace(b[0]) || FoldedSyntax.isSpace(b[n - 1]))) {
            return true;
        }
        for (int i = 0; i < n; i++) {
            byte c = b[i];
            if (c == ';' || rules.escapes(c, i == 0, i + 1 < n ? b[i + 1] : 0, i + 1 == n)) {
                return true;
            }
        }
        return false;
    }

    /** The name as folded text writes it under {@code rules}. */
    static byte[] clean(byte[] b, Rules rules) {
        int s = 0;
        int e = b.length;
        if (rules.trim) {
            while (s < e && (FoldedSyntax.isSpace(b[s]) || b[s] == '\n')) {
                s++;
            }
            while (e > s && (FoldedSyntax.isSpace(b[e - 1]) || b[e - 1] == '\n')) {
                e--;
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(e - s + 8);
        for (int i = s; i < e; i++) {
            byte c = b[i];
            if (c == ';') {
                out.write(':');
            } else if (rules.escapes(c, i == s, i + 1 < e ? b[i + 1] : 0, i + 1 == e)) {
                out.write('\\');
                out.write('x');
                out.write(Character.forDigit((c >> 4) & 15, 16));
                out.write(Character.forDigit(c & 15, 16));
            } else {
                out.write(c);
            }
        }
        return out.toByteArray();
    }
}
