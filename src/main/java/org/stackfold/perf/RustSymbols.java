package org.stackfold.perf;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Repairs Rust symbols that a profiler demangled only halfway (perf, DTrace, macOS sample,
 * xctrace): legacy-mangled escapes left in place
 * ({@code _$LT$std..fs..ReadDir$u20$as$u20$core..iter..Iterator$GT$::next::hc14f1750ca79129b}
 * becomes {@code <std::fs::ReadDir as core::iter::Iterator>::next}). Only symbols ending in a Rust
 * hash ({@code ::h} + 16 hex digits) are touched, as inferno's
 * {@code fix_partially_demangled_rust_symbol} does; everything else is returned as is.
 */
public final class RustSymbols {
    private static final int HASH_LENGTH = 17; // 'h' + 16 hex digits
    private static final String[][] ESCAPES = {
            {"$SP$", "@"}, {"$BP$", "*"}, {"$RF$", "&"}, {"$LT$", "<"}, {"$GT$", ">"}, {"$LP$", "("},
            {"$RP$", ")"}, {"$C$", ","}, {"$u7e$", "~"}, {"$u20$", " "}, {"$u27$", "'"}, {"$u3d$", "="},
            {"$u5b$", "["}, {"$u5d$", "]"}, {"$u7b$", "{"}, {"$u7d$", "}"}, {"$u3b$", ";"}, {"$u2b$", "+"},
            {"$u21$", "!"}, {"$u22$", "\""},
    };

    private RustSymbols() {
    }

    /** Quick test: does b[s, e) end in a Rust hash? */
    public static boolean hasRustHash(byte[] b, int s, int e) {
        if (e - s < HASH_LENGTH || b[e - HASH_LENGTH] != 'h') {
            return false;
        }
        for (int i = e - HASH_LENGTH + 1; i < e; i++) {
            byte c = b[i];
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
                return false;
            }
        }
        return true;
    }

    /** The repaired symbol; call only where {@link #hasRustHash} holds. */
    public static byte[] repair(byte[] b, int s, int e) {
        int end = e - HASH_LENGTH;
        if (end - s >= 2 && b[end - 1] == ':' && b[end - 2] == ':') {
            end -= 2;
        }
        int i = s;
        if (end - i >= 2 && b[i] == '_' && b[i + 1] == '$') {
            i++;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(end - s + 8);
        outer:
        while (i < end) {
            byte c = b[i];
            if (c == '.') {
                if (i + 1 < end && b[i + 1] == '.') {
                    out.write(':');
                    out.write(':');
                    i += 2;
                } else {
                    out.write('.');
                    i++;
                }
            } else if (c == '$') {
                for (String[] esc : ESCAPES) {
                    String pat = esc[0];
                    if (startsWith(b, i, end, pat)) {
                        byte[] rep = esc[1].getBytes(StandardCharsets.UTF_8);
                        out.write(rep, 0, rep.length);
                        i += pat.length();
                        continue outer;
                    }
                }
                out.write(b, i, end - i); // unknown escape: keep the rest as it is
                break;
            } else {
                int j = i;
                while (j < end && b[j] != '$' && b[j] != '.') {
                    j++;
                }
                out.write(b, i, j - i);
                i = j;
            }
        }
        return out.toByteArray();
    }

    private static boolean startsWith(byte[] b, int i, int end, String pat) {
        if (end - i < pat.length()) {
            return false;
        }
        for (int k = 0; k < pat.length(); k++) {
            if (b[i + k] != pat.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    /** The repaired symbol, or null where it has no Rust hash (then it is left as it is). */
    public static String fix(String symbol) {
        byte[] b = symbol.getBytes(StandardCharsets.UTF_8);
        return hasRustHash(b, 0, b.length) ? new String(repair(b, 0, b.length), StandardCharsets.UTF_8) : null;
    }

    /** {@link #fix}, or the symbol unchanged. */
    public static String repair(String symbol) {
        String f = fix(symbol);
        return f == null ? symbol : f;
    }
}
