package org.stackfold.format.folded;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.ProfileFormat;
import org.stackfold.io.InputException;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/** Differential folded stacks: {@code stack before after} a line. */
public final class DiffFoldedFormat implements ProfileFormat {
    @Override
    public String name() {
        return "diff-folded";
    }

    @Override
    public List<String> extensions() {
        return List.of("diff.folded", "diff.txt", "diff");
    }

    @Override
    public Profile read(Input in, FormatOptions options) throws IOException {
        if (options.flag(FoldedFormat.TIMELINE)) {
            return OrderedFoldedReader.profile(in, options.warnings());
        }
        return FoldedFormat.reader(FoldedReader.Mode.DIFFERENTIAL, options).read(in).profile();
    }

    @Override
    public void write(Profile profile, OutputStream out, FormatOptions options) throws IOException {
        if (!profile.tree().isDifferential()) {
            throw new InputException("diff-folded output needs a differential profile (see 'stackfold diff')");
        }
        new FoldedWriter(true).write(profile, out);
    }
}
