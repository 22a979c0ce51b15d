package org.stackfold.format.chrome;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.JsonHead;
import org.stackfold.format.ProfileFormat;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.Profile;

/** Chrome/Node {@code .cpuprofile} (read only): see {@link CpuProfileReader}. */
public final class CpuProfileFormat implements ProfileFormat {
    @Override
    public String name() {
        return "cpuprofile";
    }

    @Override
    public List<String> extensions() {
        return List.of("cpuprofile");
    }

    /** A JSON object whose first key is "nodes" with a node holding a "callFrame". */
    @Override
    public boolean sniff(byte[] head, int length) {
        String s = JsonHead.objectText(head, length);
        if (s == null) {
            return false;
        }
        return s.matches("(?s)\\{\\s*\"nodes\"\\s*:\\s*\\[.*") && s.contains("\"callFrame\"");
    }

    @Override
    public boolean canWrite() {
        return false;
    }

    @Override
    public Profile read(Input in, FormatOptions options) throws IOException {
        return new CpuProfileReader().read(in);
    }

    @Override
    public void write(Profile profile, OutputStream out, FormatOptions options) {
        throw new InputException("cpuprofile: writing is not supported (read only)");
    }
}
