package org.stackfold.cli;

import java.io.IOException;
import org.stackfold.format.ProfileFormat;
import org.stackfold.io.AtomicOutput;

/** Where a command writes a profile in some format: compressed by the name's ending unless the format compresses itself. */
final class Outputs {
    private Outputs() {
    }

    /** {@code -o NAME} (or standard output for null) for a profile written as {@code format}. */
    static AtomicOutput open(String name, ProfileFormat format) throws IOException {
        return format.writesCompressed() ? AtomicOutput.openUncompressed(name, Main.stdout())
                : AtomicOutput.open(name, Main.stdout());
    }
}
