package org.stackfold.collapse;

import java.util.function.Consumer;
import org.stackfold.io.InputException;

/**
 * Bad input lines of one collapse run. Strict (the default): the first one is an
 * {@link InputException} naming the line. Lenient ({@code --lenient}): each is skipped and counted,
 * and {@link #finish} reports how many, with the first, as one warning.
 */
public final class Problems {
    private final String source;
    private final boolean lenient;
    private long skipped;
    private String first;

    public Problems(String source, boolean lenient) {
        this.source = source;
        this.lenient = lenient;
    }

    public static Problems of(org.stackfold.io.Input in, org.stackfold.format.FormatOptions options) {
        return new Problems(in.name(), options.flag("lenient"));
    }

    public String source() {
        return source;
    }

    public boolean lenient() {
        return lenient;
    }

    /** A bad line: throws when strict, else counts it; returns normally only when lenient. */
    public void bad(long line, String what) {
        if (!lenient) {
            throw InputException.atLine(source, line, what);
        }
        if (skipped++ == 0) {
            first = "line " + line + ": " + what;
        }
    }

    /** An error that no leniency can skip (the input is unusable as a whole). */
    public InputException fatal(long line, String what) {
        return InputException.atLine(source, line, what);
    }

    public long skipped() {
        return skipped;
    }

    public void finish(Consumer<String> warnings) {
        if (skipped > 0) {
            warnings.accept(source + ": skipped " + skipped + " bad line" + (skipped == 1 ? "" : "s")
                    + " (first: " + first + ")");
        }
    }
}
