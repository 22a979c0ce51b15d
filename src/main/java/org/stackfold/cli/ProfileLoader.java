package org.stackfold.cli;

import java.io.IOException;
import java.util.List;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.Formats;
import org.stackfold.format.ProfileFormat;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.Profile;
import org.stackfold.transform.Merge;

/** Opens inputs by name, picks each one's format, reads and merges them. */
final class ProfileLoader {
    private ProfileLoader() {
    }

    static Profile load(String name, FormatOptions options, String forcedFormat) throws IOException {
        try (Input in = Input.open(name)) {
            ProfileFormat f = Formats.forInput(in, forcedFormat);
            if (!f.canRead()) {
                throw new InputException(name + ": format " + f.name() + " cannot be read");
            }
            return f.read(in, options);
        }
    }

    static Profile loadMerged(List<String> names, FormatOptions options, String forcedFormat) throws IOException {
        if (names.stream().filter("-"::equals).count() > 1) {
            throw new InputException("standard input ('-') can be read only once");
        }
        Profile first = load(names.getFirst(), options, forcedFormat);
        for (int i = 1; i < names.size(); i++) {
            Profile next = load(names.get(i), options, forcedFormat);
            if (next.tree().weights() != first.tree().weights()) {
                throw new InputException(names.get(i) + ": cannot merge a differential profile with a plain one");
            }
            Merge.into(first, next);
        }
        return first;
    }
}
