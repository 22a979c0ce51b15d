package org.stackfold.cli;

import org.stackfold.io.Input;
import org.stackfold.io.Sizes;
import org.stackfold.io.UsageException;
import picocli.CommandLine.Option;

/** {@code --max-input}: the bound on bytes read from a stream or decompressed (see {@link Input}). */
final class InputLimit {
    @Option(names = "--max-input", paramLabel = "SIZE",
            description = "Most bytes read from a stream (stdin, a pipe) or decompressed from gzip/zstd (default 4g;"
                    + " also STACKFOLD_MAX_INPUT).")
    String maxInput;

    /** Sets the limit from the option, else from STACKFOLD_MAX_INPUT; a bad value of either is a usage error. */
    void apply() {
        String env = System.getenv("STACKFOLD_MAX_INPUT");
        String value = maxInput != null ? maxInput : env != null && !env.isBlank() ? env : null;
        if (value == null) {
            Input.setMaxStreamBytes(Input.DEFAULT_MAX_STREAM); // one JVM may run several commands (tests)
            return;
        }
        try {
            Input.setMaxStreamBytes(Sizes.parse(value));
        } catch (IllegalArgumentException e) {
            throw new UsageException((maxInput != null ? "--max-input: " : "STACKFOLD_MAX_INPUT: ") + e.getMessage());
        }
    }
}
