package org.stackfold.record.agent;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;

/**
 * {@code -o} patterns of the agent, as strftime's: {@code %Y %m %d %H %M %S} of the interval's start
 * in UTC, {@code %s} its seconds since the epoch, {@code %h} the host label, {@code %n} the service
 * label, {@code %p} the pid label (empty without one), {@code %%} a percent sign. A pattern without them names the same file each interval (the latest interval's profile).
 */
public final class FileNames {
    private FileNames() {
    }

    /** The file name of an interval that began at {@code start}. */
    public static String expand(String pattern, Instant start, String host) {
        return expand(pattern, start, java.util.Map.of("host", host == null ? "" : host));
    }

    /** As above, with {@code %h %n %p} from the interval's labels. */
    public static String expand(String pattern, Instant start, java.util.Map<String, String> labels) {
        ZonedDateTime t = start.atZone(ZoneOffset.UTC);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c != '%' || i + 1 == pattern.length()) {
                b.append(c);
                continue;
            }
            char f = pattern.charAt(++i);
            switch (f) {
                case 'Y' -> b.append(String.format("%04d", t.getYear()));
                case 'm' -> b.append(two(t.getMonthValue()));
                case 'd' -> b.append(two(t.getDayOfMonth()));
                case 'H' -> b.append(two(t.getHour()));
                case 'M' -> b.append(two(t.getMinute()));
                case 'S' -> b.append(two(t.getSecond()));
                case 's' -> b.append(start.getEpochSecond());
                case 'h' -> b.append(labels.getOrDefault("host", ""));
                case 'n' -> b.append(labels.getOrDefault("service", ""));
                case 'p' -> b.append(labels.getOrDefault("pid", ""));
                case '%' -> b.append('%');
                default -> throw new IllegalArgumentException("-o '" + pattern + "': %" + f
                        + " is not one of %Y %m %d %H %M %S %s %h %n %p %%");
            }
        }
        return b.toString();
    }

    /** Checks a pattern (a usage error names the bad conversion). */
    public static void check(String pattern) {
        expand(pattern, Instant.EPOCH, "host");
    }

    /** Whether a pattern names a file per process ({@code %p}) or per service ({@code %n} or {@code %p}). */
    public static boolean names(String pattern, char conversion) {
        for (int i = 0; i + 1 < pattern.length(); i++) {
            if (pattern.charAt(i) == '%') {
                if (pattern.charAt(i + 1) == conversion) {
                    return true;
                }
                i++;
            }
        }
        return false;
    }

    private static String two(int n) {
        return n < 10 ? "0" + n : Integer.toString(n);
    }
}
