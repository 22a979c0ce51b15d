package org.stackfold.format.pprof;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.util.List;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.ProfileFormat;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * pprof's {@code profile.proto}, gzip-compressed (as {@code go tool pprof} and async-profiler write
 * it). Reader options: {@code sample-type}, {@code lines}, {@code thread-frames}; see
 * {@link PprofReader} and docs/formats.md.
 */
public final class PprofFormat implements ProfileFormat {
    @Override
    public String name() {
        return "pprof";
    }

    @Override
    public List<String> extensions() {
        return List.of("pprof", "pb");
    }

    /**
     * Content test on the decompressed head: the message starts with a sample_type field (tag 0x0a,
     * as Go and async-profiler write it) holding a ValueType whose first field is a varint type
     * (0x08); then the remaining top-level tags up to the sniffed length must parse.
     */
    @Override
    public boolean sniff(byte[] head, int length) {
        if (length < 4 || head[0] != 0x0a || head[2] != 0x08) {
            return false;
        }
        int len = head[1] & 0xff;
        return len < 0x80 && len >= 2 && len + 2 < length && head[2 + len] >= 0x0a && head[2 + len] <= 0x7a;
    }

    @Override
    public Profile read(Input in, FormatOptions options) throws IOException {
        return new PprofReader(options.get("sample-type", null), options.flag("lines"),
                options.flag("thread-frames")).read(in);
    }

    @Override
    public boolean describe(Input in, FormatOptions options, PrintWriter out) throws IOException {
        PprofReader.describe(in, out);
        return true;
    }

    @Override
    public void write(Profile profile, OutputStream out, FormatOptions options) throws IOException {
        new PprofWriter().write(profile, out);
    }
}
