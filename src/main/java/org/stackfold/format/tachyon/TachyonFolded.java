package org.stackfold.format.tachyon;

import java.io.IOException;
import java.io.OutputStream;
import org.stackfold.io.Progress;

/** Tachyon to folded text, straight from the records, as CPython's {@code replay --collapsed}. */
public final class TachyonFolded {
    private TachyonFolded() {
    }

    /** Replays {@code file} and writes its folded stacks; default options give CPython's exact bytes. */
    public static void write(TachyonFile file, TachyonOptions options, OutputStream out) throws IOException {
        if (options.naming() == TachyonOptions.Naming.RAW) {
            options = new TachyonOptions(TachyonOptions.Naming.FUNCTION, options.perThread(), options.threads(),
                    options.statusAll(), options.statusNone(), options.fromMicros(), options.toMicros(),
                    options.keepInternal(), options.timeline());
        }
        TreeBuilder b = TreeBuilder.of(file, options);
        try (Progress p = Progress.start("reading " + file.source(), file.sampleData().byteSize())) {
            new TachyonReplay(file).progress(p).run(b);
        }
        CollapsedWriter.write(b.tree(), b.frames(), out);
    }
}
