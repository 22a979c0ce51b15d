package org.stackfold.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link PlainFormat} writes what {@code Locale.ROOT} writes, whatever the default locale. */
class PlainFormatTest {
    private static final String[] FORMATS = {"%d", "%12d", "%-18s %d%n", "%.2f", "%.4f", "%6.2f%%", "%5.1f", "%,d", "%x", "%s (%d %s)"};

    @Test
    void sameAsRootForNumbersOfEveryKind() {
        Locale saved = Locale.getDefault();
        try {
            for (Locale l : new Locale[] {Locale.GERMANY, Locale.forLanguageTag("ar-EG"), Locale.forLanguageTag("hi-IN-u-nu-deva")}) {
                Locale.setDefault(l);
                SplittableRandom r = new SplittableRandom(13);
                for (int i = 0; i < 4_000; i++) {
                    long n = switch (i % 3) {
                        case 0 -> r.nextLong();
                        case 1 -> r.nextLong(-1000, 1_000_000);
                        default -> r.nextInt(100);
                    };
                    double d = switch (i % 4) {
                        case 0 -> Double.longBitsToDouble(r.nextLong());
                        case 1 -> r.nextDouble(-1e6, 1e6);
                        case 2 -> r.nextInt(100_000) / 8.0 + 0.00005;
                        default -> r.nextInt(1_000_000) / 10_000.0;
                    };
                    for (String f : FORMATS) {
                        Object[] args = f.contains("f") ? new Object[] {d} : f.startsWith("%s") ? new Object[] {"a", n, "b"}
                                : f.contains("%-18s") ? new Object[] {"label", n} : new Object[] {n};
                        assertThat(PlainFormat.of(f, args)).as("%s %s", f, java.util.Arrays.toString(args))
                                .isEqualTo(String.format(Locale.ROOT, f, args));
                    }
                }
            }
        } finally {
            Locale.setDefault(saved);
        }
    }
}
