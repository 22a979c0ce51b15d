package org.stackfold.symbolize;

/**
 * Rust symbol names. Legacy names are Itanium-shaped ({@code _ZN3std2rt10lang_start17h0123456789abcdefE})
 * with {@code $..$} escapes and a hash element; the demangled form joins the elements with {@code ::},
 * decodes the escapes and drops the hash, as rustc-demangle's non-alternate form does.
 */
final class RustDemangler {
    private RustDemangler() {
    }

    /** The demangled legacy Rust name, or null when {@code s} is not one. */
    static String legacy(String s) {
        if (!s.startsWith("_ZN") || !s.endsWith("E")) {
            return null;
        }
        int p = 3;
        int end = s.length() - 1;
        StringBuilder out = new StringBuilder();
        boolean sawHash = false;
        int elements = 0;
        while (p < end) {
            int len = 0;
            int digits = 0;
            while (p < end && Character.isDigit(s.charAt(p))) {
                len = len * 10 + (s.charAt(p++) - '0');
                if (++digits > 6) {
                    return null;
                }
            }
            if (digits == 0 || len == 0 || p + len > end) {
                return null;
            }
            String ident = s.substring(p, p + len);
            p += len;
            if (p == end && isHash(ident)) {
                sawHash = true;
                break;
            }
            if (elements++ > 0) {
                out.append("::");
            }
            if (!decodeIdent(ident, out)) {
                return null;
            }
        }
        return sawHash && elements > 0 ? out.toString() : null;
    }

    private static boolean isHash(String ident) {
        if (ident.length() != 17 || ident.charAt(0) != 'h') {
            return false;
        }
        for (int i = 1; i < 17; i++) {
            if (Character.digit(ident.charAt(i), 16) < 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean decodeIdent(String id, StringBuilder out) {
        int i = 0;
        if (id.startsWith("_$")) {
            i = 1;
        }
        while (i < id.length()) {
            char c = id.charAt(i);
            if (c == '$') {
                int close = id.indexOf('$', i + 1);
                if (close < 0) {
                    return false;
                }
                String esc = id.substring(i + 1, close);
                switch (esc) {
                    case "SP" -> out.append('@');
                    case "BP" -> out.append('*');
                    case "RF" -> out.append('&');
                    case "LT" -> out.append('<');
                    case "GT" -> out.append('>');
                    case "LP" -> out.append('(');
                    case "RP" -> out.append(')');
                    case "C" -> out.append(',');
                    default -> {
                        if (esc.length() < 2 || esc.charAt(0) != 'u') {
                            return false;
                        }
                        try {
                            out.appendCodePoint(Integer.parseInt(esc.substring(1), 16));
                        } catch (IllegalArgumentException e) {
                            return false;
                        }
                    }
                }
                i = close + 1;
            } else if (c == '.' && i + 1 < id.length() && id.charAt(i + 1) == '.') {
                out.append("::");
                i += 2;
            } else {
                out.append(c);
                i++;
            }
        }
        return true;
    }
}
