package org.stackfold.collapse;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.ProfileFormat;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * A profiler's text output read as a profile by collapsing it on the way in, so that every command
 * takes {@code perf script} output, DTrace aggregations or bpftrace maps as it takes folded stacks.
 * Read only; the collapser's own options keep their defaults (use {@code stackfold collapse} for them).
 */
public final class CollapsedFormat implements ProfileFormat {
    private final Collapser collapser;

    public CollapsedFormat(Collapser collapser) {
        this.collapser = collapser;
    }

    public Collapser collapser() {
        return collapser;
    }

    @Override
    public String name() {
        return collapser.name();
    }

    @Override
    public List<String> extensions() {
        return List.of();
    }

    @Override
    public boolean canWrite() {
        return false;
    }

    @Override
    public Profile read(Input in, FormatOptions options) throws IOException {
        return collapser.collapse(in, options, options::warn);
    }

    @Override
    public void write(Profile profile, OutputStream out, FormatOptions options) {
        throw new UnsupportedOperationException(name() + " output is read only");
    }
}
