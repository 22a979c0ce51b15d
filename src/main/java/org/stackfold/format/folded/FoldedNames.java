package org.stackfold.format.folded;

import java.io.ByteArrayOutputStream;

/**
 * Frame names as a folded line can carry them. Folded text has no escapes: a name holding a line
 * end, a {@code ;}, or white space at its ends would change the structure of the file when read
 * back (a forged line, an extra frame, a name the reader trims). So a written name
 * <ul>
 *   <li>has no white space at either end (a collapser's {@code "StubRoutines "} is
 *       {@code StubRoutines}: the reader trims it at a leaf, so one function would become two);
 *   <li>has {@code :} for each {@code ;} (as the perf and bpftrace collapsers already write);
 *   <li>has {@code \xNN} for each control byte (C0 but tab, DEL), line ends included (a tab inside
 *       a name is white space the reader keeps);
 *   <li>starts with {@code \x23} instead of {@code #} where it would make a root line a comment
 *       ({@code #} alone or followed by a space).
 * </ul>
 * Names already clean (every name read from a folded file, so {@code fold} is a fixed point) are
 * written as they are. The rewriting is one way: {@code \} is not escaped.
 */
final class FoldedNames {
    private FoldedNames() {
    }

    /** True where {@code clean(name, trim)} would change the name in b[off, off + n). */
    static boolean needsCleaning(byte[] b, int off, int n, boolean trim) {
        if (n == 0) {
            return false;
        }
        int last = off + n - 1;
        if (trim && (FoldedSyntax.isSpace(b[off]) || FoldedSyntax.isSpace(b[last]))) {
            return true;
        }
        if (b[off] == '#' && (n == 1 || b[off + 1] == ' ')) {
            return true;
        }
        for (int i = off; i <= last; i++) {
            byte c = b[i];
            if (c == ';' || isControl(c)) {
                return true;
            }
        }
        return false;
    }

    /** The name as folded text writes it; {@code trim} false keeps end white space (perl's bytes). */
    static byte[] clean(byte[] b, boolean trim) {
        int s = 0;
        int e = b.length;
        if (trim) {
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
            } else if (isControl(c) || (i == s && c == '#' && (i + 1 == e || b[i + 1] == ' '))) {
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

    private static boolean isControl(byte c) {
        return (c >= 0 && c < 0x20 && c != '\t') || c == 0x7f;
    }
}
