package org.stackfold.io;

import java.util.Locale;

/**
 * {@link String#format} for numbers in reports and files: ASCII digits, '.' and ',' whatever the
 * user's locale, as {@link Locale#ROOT} writes them, but with no localisation at all (a null locale).
 * With {@code Locale.ROOT} the first {@code %d} or {@code %f} loads the JDK's CLDR locale data for
 * its digits and separators, about 20 ms of CPU, a sixth of a small command (docs/startup.md). For
 * {@code %d %f %s %x %%} and {@code %n}: {@code %S} and dates would take the default locale.
 */
public final class PlainFormat {
    private PlainFormat() {
    }

    public static String of(String format, Object... args) {
        return String.format((Locale) null, format, args);
    }
}
