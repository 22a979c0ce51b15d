package org.stackfold.format.folded;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.ProfileFormat;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * Folded stacks. Reader options: {@code lenient} (skip bad lines, count them), {@code threads},
 * {@code folded.timeline} (keep the records in input order as the profile's timeline, see
 * {@link OrderedFoldedReader#profile}).
 * Writing a differential profile as plain folded keeps the second ("after") column, as a
 * flame graph of a differential profile does.
 */
public final class FoldedFormat implements ProfileFormat {
    /** Reader option: keep the records in input order as the profile's timeline. */
    public static final String TIMELINE = "folded.timeline";

    @Override
    public String name() {
        return "folded";
    }

    @Override
    public List<String> extensions() {
        return List.of("folded", "stacks", "collapsed", "txt");
    }

    @Override
    public Profile read(Input in, FormatOptions options) throws IOException {
        if (options.flag(FoldedFormat.TIMELINE)) {
            return OrderedFoldedReader.profile(in, options.warnings());
        }
        return reader(FoldedReader.Mode.PLAIN, options).read(in).profile();
    }

    /** The reader the options ask for: {@code lenient}, {@code threads} (default: one per core), warnings. */
    public static FoldedReader reader(FoldedReader.Mode mode, FormatOptions options) {
        int threads = (int) options.getLong("threads", Runtime.getRuntime().availableProcessors());
        return new FoldedReader(mode, options.flag("lenient"), threads,
                options.warnings());
    }

    @Override
    public void write(Profile profile, OutputStream out, FormatOptions options) throws IOException {
        if (profile.tree().isDifferential()) {
            profile = org.stackfold.transform.Columns.select(profile, 1);
        }
        new FoldedWriter(false).annotatingKinds(options.flag("annotate")).write(profile, out);
    }
}
