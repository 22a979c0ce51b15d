package org.stackfold.format.v8log;

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

/**
 * V8's {@code --prof} profiles (read only): the JSON of {@code node --prof-process --preprocess}
 * ({@link V8LogReader}), and the raw {@code isolate-*.log} itself, which is first put through
 * {@code node --prof-process --preprocess} ({@link IsolateLog}).
 */
public final class V8LogFormat implements ProfileFormat {
    private static final Pattern PREPROCESSED = Pattern.compile("\\A\\s*\\{\\s*\"code\"\\s*:\\s*\\[");

    @Override
    public String name() {
        return "v8log";
    }

    @Override
    public List<String> extensions() {
        return List.of("v8log.json");
    }

    @Override
    public boolean sniff(byte[] head, int length) {
        String s = new String(head, 0, length, StandardCharsets.ISO_8859_1);
        return IsolateLog.looksLikeOne(s) || PREPROCESSED.matcher(s).find();
    }

    @Override
    public boolean canWrite() {
        return false;
    }

    @Override
    public Profile read(Input in, FormatOptions options) throws IOException {
        if (IsolateLog.looksLikeOne(new String(in.head(64), StandardCharsets.ISO_8859_1))) {
            java.nio.file.Path json = IsolateLog.preprocess(in);
            try (Input preprocessed = IsolateLog.openJson(in.name(), json, options)) {
                return new V8LogReader().read(preprocessed);
            } finally {
                org.stackfold.io.TempFiles.delete(json);
            }
        }
        return new V8LogReader().read(in);
    }

    @Override
    public void write(Profile profile, OutputStream out, FormatOptions options) {
        throw new InputException("v8log: writing is not supported (read only)");
    }
}
