package org.stackfold.symbolize;

/**
 * Rust symbol names. Legacy names are Itanium-shaped ({@code _ZN3std2rt10lang_start17h0123456789abcdefE})
 * with {@code $..$} escapes and a hash element; the demangled form joins the elements with {@code ::},
 * decodes the escapes and drops the hash, as rustc-demangle does. v0 names ({@code _R...}, RFC 2603)
 * are printed as rustc-demangle's alternate form prints them (no crate hashes), which is also what
 * GNU addr2line {@code -C} prints them (c++filt adds the hashes); punycode identifiers stay encoded.
 */
final class RustDemangler {
    private RustDemangler() {
    }

    /** The demangled v0 name, or null when {@code s} is not a well-formed one. */
    static String v0(String s) {
        if (!s.startsWith("_R")) {
            return null;
        }
        try {
            V0 p = new V0(s.substring(2));
            while (p.pos < p.in.length() && Character.isDigit(p.in.charAt(p.pos))) {
                p.pos++;
            }
            p.path(true);
            return p.out.toString();
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            return null;
        }
    }

    /** A recursive-descent printer over the part after "_R". */
    private static final class V0 {
        private static final String BASIC = "abcdefhijlmnostuvxyzp";
        private static final String[] BASIC_NAMES = {"i8", "bool", "char", "f64", "str", "f32", "u8", "isize",
            "usize", "i32", "u32", "i128", "u128", "i16", "u16", "()", "...", "i64", "u64", "!", "_"};

        final String in;
        int pos;
        int depth;
        int boundLifetimes;
        StringBuilder out = new StringBuilder();

        V0(String in) {
            this.in = in;
        }

        private char peek() {
            return pos < in.length() ? in.charAt(pos) : 0;
        }

        private char next() {
            if (pos >= in.length()) {
                throw new IllegalArgumentException("truncated");
            }
            return in.charAt(pos++);
        }

        private boolean eat(char c) {
            if (peek() == c) {
                pos++;
                return true;
            }
            return false;
        }

        private void enter() {
            if (++depth > 300) {
                throw new IllegalArgumentException("too deep");
            }
        }

        private long base62() {
            if (eat('_')) {
                return 0;
            }
            long x = 0;
            // crate disambiguators are 64-bit hashes: wrap instead of failing, the value is not printed
            for (int digits = 0; ; digits++) {
                char c = next();
                if (c == '_') {
                    return x + 1;
                }
                int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'z' ? c - 'a' + 10
                        : c >= 'A' && c <= 'Z' ? c - 'A' + 36 : -1;
                if (d < 0 || digits > 12) {
                    throw new IllegalArgumentException("bad base-62 number");
                }
                x = x * 62 + d;
            }
        }

        private long optBase62(char tag) {
            return eat(tag) ? base62() + 1 : 0;
        }

        private String ident() {
            boolean puny = eat('u');
            int start = pos;
            if (eat('0')) {
                return "";
            }
            while (Character.isDigit(peek())) {
                pos++;
            }
            if (start == pos) {
                throw new IllegalArgumentException("identifier length expected");
            }
            int len = Integer.parseInt(in.substring(start, pos));
            eat('_');
            String id = in.substring(pos, pos + len);
            pos += len;
            return puny ? "punycode{" + id + "}" : id;
        }

        /** Runs {@code body} at a back-reference's target, then comes back. */
        private void backref(Runnable body) {
            int at = pos - 1;
            long target = base62();
            if (target >= at) {
                throw new IllegalArgumentException("forward back-reference");
            }
            int saved = pos;
            pos = (int) target;
            body.run();
            pos = saved;
        }

        void path(boolean inValue) {
            enter();
            char tag = next();
            switch (tag) {
                case 'C' -> {
                    optBase62('s');
                    out.append(ident());
                }
                case 'N' -> {
                    char ns = next();
                    path(inValue);
                    long dis = optBase62('s');
                    String name = ident();
                    if (ns >= 'A' && ns <= 'Z') {
                        out.append("::{").append(ns == 'C' ? "closure" : ns == 'S' ? "shim" : String.valueOf(ns));
                        if (!name.isEmpty()) {
                            out.append(':').append(name);
                        }
                        out.append('#').append(dis).append('}');
                    } else if (ns >= 'a' && ns <= 'z') {
                        if (!name.isEmpty()) {
                            out.append("::").append(name);
                        }
                    } else {
                        throw new IllegalArgumentException("bad namespace");
                    }
                }
                case 'M', 'X', 'Y' -> {
                    if (tag != 'Y') {
                        optBase62('s');
                        StringBuilder saved = out;
                        out = new StringBuilder();
                        path(false);
                        out = saved;
                    }
                    out.append('<');
                    type();
                    if (tag != 'M') {
                        out.append(" as ");
                        path(false);
                    }
                    out.append('>');
                }
                case 'I' -> {
                    path(inValue);
                    if (inValue) {
                        out.append("::");
                    }
                    out.append('<');
                    for (int i = 0; !eat('E'); i++) {
                        if (i > 0) {
                            out.append(", ");
                        }
                        genericArg();
                    }
                    out.append('>');
                }
                case 'B' -> backref(() -> path(inValue));
                default -> throw new IllegalArgumentException("bad path tag " + tag);
            }
            depth--;
        }

        private void genericArg() {
            if (eat('L')) {
                lifetime(base62());
            } else if (eat('K')) {
                constant();
            } else {
                type();
            }
        }

        private void lifetime(long index) {
            if (index == 0) {
                out.append("'_");
                return;
            }
            long depthFromTop = boundLifetimes - index;
            out.append('\'');
            if (depthFromTop >= 0 && depthFromTop < 26) {
                out.append((char) ('a' + depthFromTop));
            } else {
                out.append('_').append(depthFromTop);
            }
        }

        private void binder() {
            if (eat('G')) {
                long n = base62() + 1;
                out.append("for<");
                for (long i = 0; i < n; i++) {
                    if (i > 0) {
                        out.append(", ");
                    }
                    boundLifetimes++;
                    lifetime(1);
                }
                out.append("> ");
            }
        }

        void type() {
            enter();
            char tag = next();
            int basic = BASIC.indexOf(tag);
            if (basic >= 0) {
                out.append(BASIC_NAMES[basic]);
                depth--;
                return;
            }
            switch (tag) {
                case 'R', 'Q' -> {
                    out.append(tag == 'R' ? "&" : "&mut ");
                    if (eat('L')) {
                        long lt = base62();
                        if (lt != 0) {
                            int at = out.length();
                            lifetime(lt);
                            out.append(' ');
                            if (tag == 'Q') {
                                String l = out.substring(at);
                                out.setLength(at - 4);
                                out.append(l).append("mut ");
                            }
                        }
                    }
                    type();
                }
                case 'P' -> {
                    out.append("*const ");
                    type();
                }
                case 'O' -> {
                    out.append("*mut ");
                    type();
                }
                case 'A' -> {
                    out.append('[');
                    type();
                    out.append("; ");
                    constant();
                    out.append(']');
                }
                case 'S' -> {
                    out.append('[');
                    type();
                    out.append(']');
                }
                case 'T' -> {
                    out.append('(');
                    int n = 0;
                    while (!eat('E')) {
                        if (n++ > 0) {
                            out.append(", ");
                        }
                        type();
                    }
                    if (n == 1) {
                        out.append(',');
                    }
                    out.append(')');
                }
                case 'F' -> {
                    int savedBound = boundLifetimes;
                    binder();
                    if (eat('U')) {
                        out.append("unsafe ");
                    }
                    if (eat('K')) {
                        out.append("extern \"");
                        if (eat('C')) {
                            out.append('C');
                        } else {
                            out.append(ident().replace('_', '-'));
                        }
                        out.append("\" ");
                    }
                    out.append("fn(");
                    for (int i = 0; !eat('E'); i++) {
                        if (i > 0) {
                            out.append(", ");
                        }
                        type();
                    }
                    out.append(')');
                    if (eat('u')) {
                        // returns (): nothing printed
                    } else {
                        out.append(" -> ");
                        type();
                    }
                    boundLifetimes = savedBound;
                }
                case 'D' -> {
                    int savedBound = boundLifetimes;
                    out.append("dyn ");
                    binder();
                    for (int i = 0; !eat('E'); i++) {
                        if (i > 0) {
                            out.append(" + ");
                        }
                        dynTrait();
                    }
                    if (!eat('L')) {
                        throw new IllegalArgumentException("dyn without lifetime");
                    }
                    long lt = base62();
                    if (lt != 0) {
                        out.append(" + ");
                        lifetime(lt);
                    }
                    boundLifetimes = savedBound;
                }
                case 'B' -> backref(this::type);
                default -> {
                    pos--;
                    path(false);
                }
            }
            depth--;
        }

        private void dynTrait() {
            // a path whose generic arguments may be followed by associated-type bindings
            int mark = out.length();
            boolean open = pathMaybeOpenGenerics();
            int bindings = 0;
            while (eat('p')) {
                if (!open && bindings == 0) {
                    out.append('<');
                    open = true;
                } else {
                    out.append(", ");
                }
                out.append(ident()).append(" = ");
                type();
                bindings++;
            }
            if (open) {
                out.append('>');
            }
            if (mark > out.length()) {
                throw new IllegalArgumentException("bad dyn trait");
            }
        }

        /** Prints a path; for generic-argument paths leaves the closing '>' off so bindings can follow. */
        private boolean pathMaybeOpenGenerics() {
            if (peek() == 'I') {
                next();
                path(false);
                out.append('<');
                for (int i = 0; !eat('E'); i++) {
                    if (i > 0) {
                        out.append(", ");
                    }
                    genericArg();
                }
                return true;
            }
            if (peek() == 'B') {
                next();
                boolean[] open = new boolean[1];
                backref(() -> open[0] = pathMaybeOpenGenerics());
                return open[0];
            }
            path(false);
            return false;
        }

        private void constant() {
            if (eat('B')) {
                backref(this::constant);
                return;
            }
            char ty = next();
            if (ty == 'p') {
                out.append('_');
                return;
            }
            boolean negative = eat('n');
            int start = pos;
            while (peek() != '_') {
                if (Character.digit(next(), 16) < 0) {
                    throw new IllegalArgumentException("bad constant");
                }
            }
            String hex = in.substring(start, pos);
            next();
            java.math.BigInteger v = hex.isEmpty() ? java.math.BigInteger.ZERO : new java.math.BigInteger(hex, 16);
            switch (ty) {
                case 'b' -> out.append(v.signum() == 0 ? "false" : "true");
                case 'c' -> out.append('\'').appendCodePoint(v.intValueExact()).append('\'');
                case 'a', 's', 'l', 'x', 'n', 'i', 'h', 't', 'm', 'y', 'o', 'j' -> {
                    if (negative) {
                        out.append('-');
                    }
                    out.append(v);
                }
                default -> throw new IllegalArgumentException("bad constant type");
            }
        }
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
