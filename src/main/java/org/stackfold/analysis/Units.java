package org.stackfold.analysis;

import org.stackfold.io.PlainFormat;
import org.stackfold.model.Profile;

/**
 * How a value of a profile is shown, from its value type: times in ms or s, bytes in KiB or MiB,
 * counts under their own name ({@code samples}, or perf's {@code cycles} when a collapse weighed
 * each sample by its period). A Go CPU profile's 1,760,000,000 is "1760.00 ms", not "samples".
 */
public record Units(String label, double divisor, boolean fractional) {
    /** The unit to show values of {@code vt} in, chosen for values up to {@code total}. */
    public static Units of(Profile.ValueType vt, long total) {
        String unit = vt.unit() == null ? "" : vt.unit();
        long nanos = switch (unit) {
            case "nanoseconds", "ns" -> 1;
            case "microseconds", "us" -> 1_000;
            case "milliseconds", "ms" -> 1_000_000;
            case "seconds", "s" -> 1_000_000_000;
            default -> 0;
        };
        if (nanos > 0) {
            double seconds = (double) total * nanos / 1e9;
            return seconds >= 100 ? new Units("s", 1e9 / nanos, true) : new Units("ms", 1e6 / nanos, true);
        }
        if (unit.equals("bytes")) {
            return total >= 1L << 20 ? new Units("MiB", 1 << 20, true) : new Units("KiB", 1 << 10, true);
        }
        String type = vt.type() == null || vt.type().isEmpty() ? "samples" : vt.type();
        return new Units(type, 1, false);
    }

    /** True where values are plain sample counts, shown as they are. */
    public boolean isSamples() {
        return !fractional && label.equals("samples");
    }

    /** The value in this unit, without the label: {@code 1760.00}, or {@code 340}. */
    public String number(long v) {
        return fractional ? PlainFormat.of("%.2f", v / divisor) : Long.toString(v);
    }

    /** The value with its label: {@code 1760.00 ms}, {@code 340 samples}. */
    public String amount(long v) {
        return number(v) + " " + label;
    }
}
