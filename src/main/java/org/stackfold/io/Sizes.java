package org.stackfold.io;

import java.util.Locale;

/** Byte sizes as people write them: {@code 4g}, {@code 512M}, {@code 1000000}, {@code 2GiB}. */
public final class Sizes {
    private Sizes() {
    }

    /** Parses a size; binary multiples (k = 1024). Throws IllegalArgumentException saying what is wrong. */
    public static long parse(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        if (s.endsWith("ib")) {
            s = s.substring(0, s.length() - 2);
        } else if (s.endsWith("b")) {
            s = s.substring(0, s.length() - 1);
        }
        int shift = 0;
        if (!s.isEmpty()) {
            switch (s.charAt(s.length() - 1)) {
                case 'k' -> shift = 10;
                case 'm' -> shift = 20;
                case 'g' -> shift = 30;
                case 't' -> shift = 40;
                default -> shift = -1;
            }
            if (shift >= 0) {
                s = s.substring(0, s.length() - 1);
            } else {
                shift = 0;
            }
        }
        if (s.isEmpty() || !s.chars().allMatch(Character::isDigit) || s.length() > 15) {
            throw new IllegalArgumentException("'" + text + "' is not a size (e.g. 4g, 512m, 1000000)");
        }
        long v = Long.parseLong(s);
        if (v <= 0 || Long.numberOfLeadingZeros(v) <= shift) {
            throw new IllegalArgumentException("'" + text + "' is not a size between 1 byte and 8 EiB");
        }
        return v << shift;
    }

    /** 4294967296 → "4 GiB"; exact multiples only, bytes otherwise. */
    public static String format(long bytes) {
        String[] units = {"bytes", "KiB", "MiB", "GiB", "TiB"};
        int u = 0;
        long v = bytes;
        while (u < units.length - 1 && v >= 1024 && v % 1024 == 0) {
            v /= 1024;
            u++;
        }
        return v + " " + units[u];
    }
}
