package org.stackfold.format.tachyon;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import org.stackfold.io.InputException;

/** The property every fuzzer checks: bytes decode completely, or fail with an {@link InputException}. */
final class TachyonFuzzing {
    private TachyonFuzzing() {
    }

    static void check(byte[] data) {
        try {
            TachyonFile f = TachyonFile.open("fuzz", MemorySegment.ofArray(data));
            TachyonFolded.write(f, TachyonOptions.defaults(), new ByteArrayOutputStream());
            TachyonDescribe.print(f, new java.io.PrintWriter(java.io.OutputStream.nullOutputStream()));
        } catch (InputException expected) {
            if (expected.getMessage().contains("\n")) {
                throw new AssertionError("multi-line message: " + expected.getMessage());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
