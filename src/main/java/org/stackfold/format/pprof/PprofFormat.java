package org.stackfold.format.pprof;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.util.List;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.ProfileFormat;
import org.stackfold.format.ProtobufHead;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * pprof's {@code profile.proto}, gzip-compressed (as {@code go tool pprof} and async-profiler write
 * it). Reader options: {@code sample-type}, {@code lines}, {@code thread-frames}, {@code all-frames}
 * (ignore the profile's drop_frames/keep_frames, which are applied by default as pprof does); see
 * {@link PprofReader} and docs/formats/jfr-speedscope-pprof.md.
 */
public final class PprofFormat implements ProfileFormat {
    @Override
    public String name() {
        return "pprof";
    }

    @Override
    public boolean writesCompressed() {
        return true;
    }

    @Override
    public List<String> extensions() {
        return List.of("pprof", "pb");
    }

    /**
     * Content test on the decompressed head: the top-level fields parse as profile.proto's (known
     * field numbers, each with its wire type, lengths that fit) up to the end of the head or to a
     * field running past it, and one of them is a sample_type. Go writes time_nanos first,
     * async-profiler sample_type; text never gets far.
     */
    @Override
    public boolean sniff(byte[] head, int length) {
        int pos = 0;
        int fields = 0;
        boolean sampleType = false;
        long[] value = new long[1];
        while (pos < length) {
            int next = ProtobufHead.varint(head, pos, length, value);
            if (next < 0) {
                break;
            }
            int field = (int) (value[0] >>> 3);
            int wire = (int) (value[0] & 7);
            boolean len = switch (field) {
                case 1, 2, 3, 4, 5, 6, 11 -> true;
                case 13 -> wire == 2; // comment: repeated int64, packed or not
                default -> false;
            };
            if (value[0] >>> 3 > 15 || field < 1 || wire != (len ? 2 : 0)) {
                return false;
            }
            pos = ProtobufHead.varint(head, next, length, value);
            if (pos < 0) {
                break;
            }
            fields++;
            sampleType |= field == 1;
            if (len) {
                if (value[0] < 0 || value[0] > Integer.MAX_VALUE - pos) {
                    return false;
                }
                pos += (int) value[0];
            }
        }
        return sampleType && fields >= 2;
    }


    @Override
    public Profile read(Input in, FormatOptions options) throws IOException {
        return new PprofReader(options.get("sample-type", null), options.flag("lines"),
                options.flag("thread-frames"), options.flag("all-frames"), options::warn).read(in);
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
