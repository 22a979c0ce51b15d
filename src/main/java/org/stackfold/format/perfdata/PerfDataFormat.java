package org.stackfold.format.perfdata;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.util.List;
import org.stackfold.perf.PerfOptions;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.ProfileFormat;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/** perf.data as a read-only profile format, told by its "PERFILE2" magic; options as collapse perf's. */
public final class PerfDataFormat implements ProfileFormat {
    @Override
    public String name() {
        return "perf.data";
    }

    @Override
    public List<String> extensions() {
        return List.of();
    }

    @Override
    public boolean sniff(byte[] head, int length) {
        return PerfData.sniff(head, length);
    }

    @Override
    public boolean canWrite() {
        return false;
    }

    @Override
    public Profile read(Input in, FormatOptions options) throws IOException {
        return PerfData.collapse(in, PerfOptions.from(options), options::warn, options.flag("timeline"));
    }

    @Override
    public void write(Profile profile, OutputStream out, FormatOptions options) {
        throw new UnsupportedOperationException("perf.data is read only");
    }

    @Override
    public boolean describe(Input in, FormatOptions options, PrintWriter out) throws IOException {
        PerfData.describe(in, out);
        return true;
    }
}
