package org.stackfold.collapse;

import java.io.IOException;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * Turns one profiler's text output into a profile of stacks, as FlameGraph's
 * {@code stackcollapse-*.pl} and inferno's {@code inferno-collapse-*} do. One implementation per
 * input format; {@code stackfold collapse FORMAT} writes the result as folded stacks.
 *
 * <p>Options are read from {@link FormatOptions} under the peers' option names without dashes
 * ("pid", "tid", "addrs", "includeoffset", ...). Warnings go to {@code warnings}; bad input that
 * cannot be skipped is an {@link org.stackfold.io.InputException} naming the line.
 */
public interface Collapser {
    /** The name after {@code stackfold collapse}: "perf", "dtrace", ... */
    String name();

    /** True where the first bytes of an input look like this format ({@code collapse guess}). */
    default boolean detect(byte[] head, int length) {
        return false;
    }

    Profile collapse(Input in, FormatOptions options, java.util.function.Consumer<String> warnings)
            throws IOException;
}
