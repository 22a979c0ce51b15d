package org.stackfold.collapse;

/** Small string helpers the collapsers share; whitespace means ASCII whitespace, as the peers' trim. */
final class Text {
    private Text() {
    }

    static boolean isSpace(int c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0B || c == '\f';
    }

    static String trim(String s) {
        int a = 0;
        int b = s.length();
        while (a < b && isSpace(s.charAt(a))) {
            a++;
        }
        while (b > a && isSpace(s.charAt(b - 1))) {
            b--;
        }
        return a == 0 && b == s.length() ? s : s.substring(a, b);
    }

    static String trimEnd(String s) {
        int b = s.length();
        while (b > 0 && isSpace(s.charAt(b - 1))) {
            b--;
        }
        return b == s.length() ? s : s.substring(0, b);
    }

    static String trimStart(String s) {
        int a = 0;
        while (a < s.length() && isSpace(s.charAt(a))) {
            a++;
        }
        return a == 0 ? s : s.substring(a);
    }

    /** The unsigned decimal value of {@code s}, or -1 where it is not one (empty, a sign, other chars, overflow). */
    static long parseCount(String s) {
        int n = s.length();
        if (n == 0 || n > 19) {
            return n > 19 && allDigits(s) ? parseBig(s) : -1;
        }
        long v = 0;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    private static boolean allDigits(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    private static long parseBig(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return -2; // digits, but more than a long holds
        }
    }
}
