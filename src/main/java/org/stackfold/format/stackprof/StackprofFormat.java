package org.stackfold.format.stackprof;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.ProfileFormat;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.Profile;

/** Ruby stackprof JSON (read only): see {@link StackprofReader}. */
public final class StackprofFormat implements ProfileFormat {
    private static final Pattern MODE = Pattern.compile("\"mode\"\\s*:\\s*\"(wall|cpu|object|custom)\"");
    private static final Pattern SHAPE = Pattern.compile("\"(frames|raw|interval|gc_samples)\"\\s*:");

    @Override
    public String name() {
        return "stackprof";
    }

    @Override
    public List<String> extensions() {
        return List.of("stackprof.json", "stackprof");
    }

    /** A JSON object with stackprof's "mode" and one of its other keys near the start. */
    @Override
    public boolean sniff(byte[] head, int length) {
        int i = 0;
        while (i < length && Character.isWhitespace(head[i])) {
            i++;
        }
        if (i >= length || head[i] != '{') {
            return false;
        }
        String s = new String(head, i, length - i, StandardCharsets.ISO_8859_1);
        return MODE.matcher(s).find() && SHAPE.matcher(s).find();
    }

    @Override
    public boolean canWrite() {
        return false;
    }

    @Override
    public Profile read(Input in, FormatOptions options) throws IOException {
        return new StackprofReader().read(in);
    }

    @Override
    public void write(Profile profile, OutputStream out, FormatOptions options) {
        throw new InputException("stackprof: writing is not supported (read only)");
    }
}
