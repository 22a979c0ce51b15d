package org.stackfold.format.otlp;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.ProfileFormat;
import org.stackfold.format.ProtobufHead;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * OpenTelemetry profiles: a binary {@code ProfilesData} message of profiles.proto (v1development),
 * files named {@code .otlp.pb} (or {@code .otlp}; {@code .otlp.pb.gz} compressed). Reader option
 * {@code sample-type}; see {@link OtlpReader}, {@link OtlpWriter} and docs/formats/otlp.md.
 */
public final class OtlpFormat implements ProfileFormat {
    @Override
    public String name() {
        return "otlp";
    }

    @Override
    public List<String> extensions() {
        return List.of("otlp.pb", "otlp");
    }

    /**
     * A ProfilesData message starts with a resource_profiles (field 1) or the dictionary (field 2),
     * both length-delimited, and each holds only length-delimited fields of its own (1-3, resp. 1-7).
     * pprof also starts with a length-delimited field 1, but its sample_type holds varints, so the
     * nested check tells them apart. Every field that the head holds entirely or in part is checked.
     * A head of text alone (blank lines parse as fields 1 of length 10) is no message.
     */
    @Override
    public boolean sniff(byte[] head, int length) {
        if (isText(head, length)) {
            return false;
        }
        int pos = 0;
        boolean resource = false;
        long[] value = new long[1];
        while (pos < length) {
            int next = ProtobufHead.varint(head, pos, length, value);
            if (next < 0) {
                break;
            }
            long field = value[0] >>> 3;
            if ((value[0] & 7) != 2 || field < 1 || field > 2) {
                return false;
            }
            pos = ProtobufHead.varint(head, next, length, value);
            if (pos < 0) {
                break;
            }
            if (value[0] < 0 || value[0] > Integer.MAX_VALUE - pos) {
                return false;
            }
            int end = (int) Math.min(length, pos + value[0]);
            if (!onlyLengthDelimited(head, pos, end, field == 1 ? 3 : 7)) {
                return false;
            }
            resource |= field == 1 && end > pos;
            pos += (int) value[0];
        }
        return resource;
    }

    private static boolean isText(byte[] b, int length) {
        for (int i = 0; i < length; i++) {
            int c = b[i] & 0xFF;
            if ((c < 0x20 || c > 0x7E) && c != '\t' && c != '\n' && c != '\r') {
                return false;
            }
        }
        return true;
    }

    /** True where the fields in {@code [pos, end)} (the last may be cut off) are length-delimited, numbered 1 to max. */
    private static boolean onlyLengthDelimited(byte[] b, int pos, int end, int max) {
        long[] value = new long[1];
        while (pos < end) {
            int next = ProtobufHead.varint(b, pos, end, value);
            if (next < 0) {
                return true;
            }
            long field = value[0] >>> 3;
            if ((value[0] & 7) != 2 || field < 1 || field > max) {
                return false;
            }
            pos = ProtobufHead.varint(b, next, end, value);
            if (pos < 0) {
                return true;
            }
            if (value[0] < 0 || value[0] > Integer.MAX_VALUE - pos) {
                return false;
            }
            pos += (int) value[0];
        }
        return true;
    }


    @Override
    public Profile read(Input in, FormatOptions options) throws IOException {
        return new OtlpReader(options.get("sample-type", null)).read(in);
    }

    @Override
    public boolean describe(Input in, FormatOptions options, java.io.PrintWriter out) throws IOException {
        OtlpDescribe.describe(OtlpReader.parse(in), out);
        return true;
    }

    @Override
    public void write(Profile profile, OutputStream out, FormatOptions options) throws IOException {
        OtlpWriter.write(profile, OtlpMeta.defaults(), out);
    }
}
