package org.stackfold.format.firefox;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.regex.Pattern;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.JsonHead;
import org.stackfold.format.ProfileFormat;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * The Firefox profiler's JSON: reads the Gecko and the processed formats ({@link FirefoxReader}),
 * writes the processed format ({@link FirefoxWriter}). Output by {@code --to firefox} or a name
 * ending in {@code .firefox.json}. Reader options: {@code thread-frames}, {@code firefox.speedscope}.
 */
public final class FirefoxFormat implements ProfileFormat {
    @Override
    public String name() {
        return "firefox";
    }

    @Override
    public List<String> extensions() {
        return List.of("firefox.json");
    }

    /**
     * A JSON object that starts as the Firefox profiler's files do: a {@code meta} with an
     * {@code interval} and {@code stackwalk}, {@code preprocessedProfileVersion} or
     * {@code categories}; Gecko's leading {@code libs} (entries with {@code breakpadId} or
     * {@code debugName}); or Firefox's old DevTools wrapper ({@code "profile": {"libs"...} or
     * {@code systemHost}).
     */
    @Override
    public boolean sniff(byte[] head, int length) {
        String s = JsonHead.objectText(head, length);
        if (s == null) {
            return false;
        }
        boolean meta = s.contains("\"meta\"") && s.contains("\"interval\"") && (s.contains("\"stackwalk\"")
                || s.contains("\"preprocessedProfileVersion\"") || s.contains("\"categories\""));
        boolean libs = LIBS_FIRST.matcher(s).lookingAt() && (s.contains("\"breakpadId\"") || s.contains("\"debugName\""));
        return meta || libs || WRAPPED.matcher(s).find() || (s.contains("\"systemHost\"") && s.contains("\"profile\""));
    }

    private static final Pattern LIBS_FIRST = Pattern.compile("\\{\\s*\"libs\"\\s*:");
    private static final Pattern WRAPPED = Pattern.compile("\"profile\"\\s*:\\s*\\{\\s*\"(libs|meta)\"\\s*:");

    @Override
    public Profile read(Input in, FormatOptions options) throws IOException {
        return new FirefoxReader(options.flag("firefox.speedscope"), options.flag("thread-frames"))
                .read(in, options::warn);
    }

    @Override
    public void write(Profile profile, OutputStream out, FormatOptions options) throws IOException {
        new FirefoxWriter().write(profile, options.get("name", "stackfold"), out);
    }
}
