package org.stackfold.format.callgrind;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.ProfileFormat;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * Callgrind files (Valgrind's {@code callgrind.out.PID}, KCachegrind's format), read into a call tree
 * as speedscope does ({@link CallgrindReader}) and written from any profile ({@link CallgrindWriter}).
 * Option {@code event}: the event to read, by name or index (default the first).
 */
public final class CallgrindFormat implements ProfileFormat {
    private static final Pattern EVENTS = Pattern.compile("(?m)^events:");
    private static final Pattern FN = Pattern.compile("(?m)^fn=");

    @Override
    public String name() {
        return "callgrind";
    }

    @Override
    public List<String> extensions() {
        return List.of("callgrind");
    }

    @Override
    public List<String> namePrefixes() {
        return List.of("callgrind.out");
    }

    /** A call graph: read back, it is unfolded by speedscope's rule (see CallgrindWriterTest for what is kept). */
    @Override
    public boolean keepsStacks() {
        return false;
    }

    /** speedscope's test: a "# callgrind format" first line, or an "events:" line and an "fn=" line. */
    @Override
    public boolean sniff(byte[] head, int length) {
        String s = new String(head, 0, length, StandardCharsets.ISO_8859_1);
        return s.startsWith("# callgrind format") || (EVENTS.matcher(s).find() && FN.matcher(s).find());
    }

    @Override
    public Profile read(Input in, FormatOptions options) throws IOException {
        return new CallgrindReader(options.get("event", null)).warnings(options::warn).read(in);
    }

    @Override
    public void write(Profile profile, OutputStream out, FormatOptions options) throws IOException {
        new CallgrindWriter(profile.tree().weights()).write(profile, out);
    }
}
