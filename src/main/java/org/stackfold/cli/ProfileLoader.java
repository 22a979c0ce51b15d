package org.stackfold.cli;

import java.io.IOException;
import java.util.List;
import org.stackfold.collapse.InputFormats;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.ProfileFormat;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.Profile;
import org.stackfold.transform.Merge;

/** Opens inputs by name, once each, picks each one's format, reads and merges them. */
final class ProfileLoader {
    private ProfileLoader() {
    }

    /** An input opened once, with the format chosen for it from its content and name. */
    record Source(Input input, ProfileFormat format) implements AutoCloseable {
        Profile read(FormatOptions options) throws IOException {
            if (!format.canRead()) {
                throw new InputException(input.name() + ": format " + format.name() + " cannot be read");
            }
            return format.read(input, options);
        }

        @Override
        public void close() {
            input.close();
        }
    }

    static Source open(String name, String forcedFormat) throws IOException {
        Input in = Input.open(name);
        try {
            return new Source(in, InputFormats.choose(in, forcedFormat));
        } catch (IOException | RuntimeException e) {
            in.close();
            throw e;
        }
    }

    static Profile load(String name, FormatOptions options, String forcedFormat) throws IOException {
        try (Source s = open(name, forcedFormat)) {
            return s.read(options);
        }
    }

    static void checkStdinOnce(List<String> names) {
        if (names.stream().filter("-"::equals).count() > 1) {
            throw new org.stackfold.io.UsageException("standard input ('-') can be read only once");
        }
    }

    static Profile loadMerged(List<String> names, FormatOptions options, String forcedFormat) throws IOException {
        checkStdinOnce(names);
        Profile first = load(names.getFirst(), options, forcedFormat);
        for (int i = 1; i < names.size(); i++) {
            Profile next = load(names.get(i), options, forcedFormat);
            mergeInto(first, next, names.get(i));
        }
        return first;
    }

    static void mergeInto(Profile first, Profile next, String nextName) {
        if (next.tree().weights() != first.tree().weights()) {
            throw new InputException(nextName + ": cannot merge a differential profile with a plain one");
        }
        Merge.into(first, next);
    }
}
