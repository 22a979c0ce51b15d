package org.stackfold.io;

/**
 * Text from an input made safe for a terminal: every message and warning passes through
 * {@link #of}, so a profile holding ESC, BEL, NUL or a line end cannot move the cursor, ring, or
 * add a line to stderr. Control characters (C0, DEL, C1) are shown as {@code \xNN}.
 */
public final class Printable {
    private Printable() {
    }

    public static String of(CharSequence s) {
        if (s == null) {
            return null;
        }
        int n = s.length();
        int i = 0;
        while (i < n && !isControl(s.charAt(i))) {
            i++;
        }
        if (i == n) {
            return s.toString();
        }
        StringBuilder b = new StringBuilder(n + 16).append(s, 0, i);
        for (; i < n; i++) {
            char c = s.charAt(i);
            if (isControl(c)) {
                b.append("\\x").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 15, 16));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    static boolean isControl(char c) {
        return c < 0x20 || (c >= 0x7f && c <= 0x9f);
    }
}
