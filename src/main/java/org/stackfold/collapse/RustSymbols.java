package org.stackfold.collapse;

/**
 * Repairs Rust symbols that a profiler demangled only partially (DTrace, macOS sample, xctrace):
 * strips the trailing {@code ::h<16 hex>} hash and decodes the legacy {@code $LT$}-style escapes and
 * {@code ..} path separators, as inferno's {@code fix_partially_demangled_rust_symbol} (after
 * rustc-demangle's legacy decoder) does, so output matches inferno's.
 */
final class RustSymbols {
    private static final int HASH_LENGTH = 17; // 'h' + 16 hex digits

    private static final String[][] ESCAPES = {
            {"$SP$", "@"}, {"$BP$", "*"}, {"$RF$", "&"}, {"$LT$", "<"}, {"$GT$", ">"}, {"$LP$", "("},
            {"$RP$", ")"}, {"$C$", ","}, {"$u7e$", "~"}, {"$u20$", " "}, {"$u27$", "'"}, {"$u3d$", "="},
            {"$u5b$", "["}, {"$u5d$", "]"}, {"$u7b$", "{"}, {"$u7d$", "}"}, {"$u3b$", ";"}, {"$u2b$", "+"},
            {"$u21$", "!"}, {"$u22$", "\""},
    };

    private RustSymbols() {
    }

    /** The repaired symbol, or null where it has no Rust hash (then it is left as it is). */
    static String fix(String symbol) {
        int n = symbol.length();
        if (n < HASH_LENGTH || symbol.charAt(n - HASH_LENGTH) != 'h') {
            return null;
        }
        for (int i = n - HASH_LENGTH + 1; i < n; i++) {
            char h = symbol.charAt(i);
            if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F'))) {
                return null;
            }
        }
        String rest = symbol.substring(0, n - HASH_LENGTH);
        if (rest.endsWith("::")) {
            rest = rest.substring(0, rest.length() - 2);
        }
        if (rest.startsWith("_$")) {
            rest = rest.substring(1);
        }
        StringBuilder out = new StringBuilder(rest.length());
        int i = 0;
        outer:
        while (i < rest.length()) {
            char c = rest.charAt(i);
            if (c == '.') {
                if (i + 1 < rest.length() && rest.charAt(i + 1) == '.') {
                    out.append("::");
                    i += 2;
                } else {
                    out.append('.');
                    i++;
                }
            } else if (c == '$') {
                for (String[] e : ESCAPES) {
                    if (rest.startsWith(e[0], i)) {
                        out.append(e[1]);
                        i += e[0].length();
                        continue outer;
                    }
                }
                out.append(rest, i, rest.length()); // unknown escape: keep the rest as it is
                break;
            } else {
                int j = i;
                while (j < rest.length() && rest.charAt(j) != '$' && rest.charAt(j) != '.') {
                    j++;
                }
                out.append(rest, i, j);
                i = j;
            }
        }
        return out.toString();
    }

    /** {@link #fix}, or the symbol unchanged. */
    static String repair(String symbol) {
        String f = fix(symbol);
        return f == null ? symbol : f;
    }
}
