package org.stackfold.format.speedscope;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.util.List;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.JsonHead;
import org.stackfold.format.ProfileFormat;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * speedscope's JSON file format (https://www.speedscope.app/file-format-schema.json). Reader options:
 * {@code profile} (one profile by name or index), {@code thread-frames}; writer option {@code name}.
 * Rules in {@link SpeedscopeReader}, {@link SpeedscopeWriter} and docs/formats/jfr-speedscope-pprof.md.
 */
public final class SpeedscopeFormat implements ProfileFormat {
    @Override
    public String name() {
        return "speedscope";
    }

    @Override
    public List<String> extensions() {
        return List.of("speedscope.json", "speedscope");
    }

    /** A JSON object naming speedscope's schema, or with both "shared" and "profiles" keys near the top. */
    @Override
    public boolean sniff(byte[] head, int length) {
        String s = JsonHead.objectText(head, length);
        if (s == null) {
            return false;
        }
        return s.contains("speedscope.app/file-format-schema")
                || (s.contains("\"shared\"") && s.contains("\"profiles\"") && s.contains("\"frames\""));
    }

    @Override
    public Profile read(Input in, FormatOptions options) throws IOException {
        return new SpeedscopeReader(options.get("profile", null), options.flag("thread-frames"),
                options.flag("lenient"), options.warnings()).read(in);
    }

    @Override
    public boolean describe(Input in, FormatOptions options, PrintWriter out) throws IOException {
        SpeedscopeReader.describe(in, out);
        return true;
    }

    @Override
    public void write(Profile profile, OutputStream out, FormatOptions options) throws IOException {
        new SpeedscopeWriter(options.get("name", null)).write(profile, out);
    }
}
