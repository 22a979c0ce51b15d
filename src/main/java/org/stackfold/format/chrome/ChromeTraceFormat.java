package org.stackfold.format.chrome;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.ProfileFormat;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.Profile;

/**
 * The CPU profiles inside a Chrome trace (read only): see {@link TraceEventReader}. The same JSON
 * family as {@code collapse chrome-tracing}, which reads a trace's duration events instead; a trace
 * is this format when it carries {@code Profile}/{@code ProfileChunk}/{@code CpuProfile} events.
 */
public final class ChromeTraceFormat implements ProfileFormat {
    private static final java.util.regex.Pattern PROFILE_EVENT = java.util.regex.Pattern.compile("\"name\"\\s*:\\s*\"Profile\"");

    @Override
    public String name() {
        return "chrome-trace";
    }

    @Override
    public List<String> extensions() {
        return List.of();
    }

    /** A trace (an event array or an object) whose first bytes already show a CPU profile event. */
    @Override
    public boolean sniff(byte[] head, int length) {
        return looksLikeTrace(head, length) && hasCpuProfile(head, length);
    }

    /** True where the head is a JSON array of events, or an object, that names a CPU profile event. */
    public static boolean hasCpuProfile(byte[] head, int length) {
        String s = new String(head, 0, length, StandardCharsets.ISO_8859_1);
        return s.contains("\"ProfileChunk\"") || s.contains("\"CpuProfile\"") || PROFILE_EVENT.matcher(s).find();
    }

    private static boolean looksLikeTrace(byte[] head, int length) {
        int i = 0;
        if (length >= 3 && (head[0] & 0xff) == 0xEF && (head[1] & 0xff) == 0xBB && (head[2] & 0xff) == 0xBF) {
            i = 3;
        }
        while (i < length && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) {
            i++;
        }
        if (i >= length) {
            return false;
        }
        String s = new String(head, i, length - i, StandardCharsets.ISO_8859_1);
        return head[i] == '[' ? s.contains("\"ph\"") : head[i] == '{' && s.contains("\"traceEvents\"");
    }

    @Override
    public boolean canWrite() {
        return false;
    }

    @Override
    public Profile read(Input in, FormatOptions options) throws IOException {
        return new TraceEventReader(options.flag("thread-frames")).read(in, options::warn);
    }

    @Override
    public void write(Profile profile, OutputStream out, FormatOptions options) {
        throw new InputException("chrome-trace: writing is not supported (read only)");
    }
}
