package org.stackfold.perf;

/**
 * Parses one callchain line of {@code perf script}: {@code ADDR SYMBOL[+0xOFF] (MODULE)}.
 *
 * <p>The module is the parenthesised group that closes the line, found by matching brackets
 * backwards, so module paths with spaces ({@code (/tmp/my lib.so)}) and {@code (deleted)}
 * suffixes stay whole, and symbols may contain {@code " ("} themselves
 * ({@code (anonymous namespace)::f() (/lib/x.so)}). A line without a module
 * ({@code perf script -F ip,sym}) is accepted when the address is hexadecimal; its module counts as
 * {@code [unknown]}. An empty symbol ({@code 7f1e2215d058  (/lib/libc.so)}) reads as {@code " "},
 * as both peers produce it.
 */
public final class FrameLine {
    public int pcStart;
    public int pcEnd;
    public int funcStart;
    public int funcEnd;
    /** True where perf printed no symbol: the function is {@code " "}. */
    public boolean emptyFunc;
    /** Module without its parentheses; modStart == -1 where the line had none. */
    public int modStart;
    public int modEnd;

    public boolean parse(byte[] b, int s, int e) {
        int i = s;
        while (i < e && PerfBytes.isSpace(b[i])) {
            i++;
        }
        while (e > i && PerfBytes.isSpace(b[e - 1])) {
            e--;
        }
        pcStart = i;
        boolean hex = true;
        while (i < e && isWord(b[i])) {
            hex &= isHex(b[i]);
            i++;
        }
        pcEnd = i;
        if (pcEnd == pcStart || i >= e || !PerfBytes.isSpace(b[i])) {
            return false;
        }
        while (i < e && PerfBytes.isSpace(b[i])) {
            i++;
        }
        int symStart = i;
        modStart = -1;
        modEnd = -1;
        int symEnd = e;
        if (b[e - 1] == ')') {
            int open = matchingOpen(b, symStart, e - 1);
            if (open < 0 || !(open == symStart || PerfBytes.isSpace(b[open - 1]))) {
                open = lastSpaceParen(b, symStart, e - 1);
            }
            if (open >= 0) {
                modStart = open + 1;
                modEnd = e - 1;
                symEnd = open;
            }
        }
        if (modStart < 0 && !hex) {
            return false;
        }
        while (symEnd > symStart && PerfBytes.isSpace(b[symEnd - 1])) {
            symEnd--;
        }
        funcStart = symStart;
        funcEnd = symEnd;
        emptyFunc = symEnd == symStart;
        return true;
    }

    /** The '(' that the ')' at {@code close} closes, or -1. */
    private static int matchingOpen(byte[] b, int from, int close) {
        int depth = 1;
        for (int i = close - 1; i >= from; i--) {
            if (b[i] == ')') {
                depth++;
            } else if (b[i] == '(') {
                if (--depth == 0) {
                    return i;
                }
            }
        }
        return -1;
    }

    /** The last '(' preceded by a space (perl's rule), or -1. */
    private static int lastSpaceParen(byte[] b, int from, int close) {
        for (int i = close - 1; i > from; i--) {
            if (b[i] == '(' && b[i - 1] == ' ') {
                return i;
            }
        }
        return -1;
    }

    private static boolean isWord(byte c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    }

    private static boolean isHex(byte c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }
}
