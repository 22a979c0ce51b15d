package org.stackfold.format.pprof;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.stackfold.format.LocationIds;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameKind;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/**
 * Writes a profile as gzip-compressed pprof {@code profile.proto}.
 *
 * <p>One sample per call-tree node with a non-zero count, its values one per weight column (a
 * differential profile gets two sample types). One function per (name, file); one location per
 * run of frames made of a caller and the {@link FrameKind#INLINED} frames right below it, its lines
 * innermost first as pprof wants. Nested messages are encoded into small buffers (each needs its
 * length up front); top-level fields stream into the gzip stream as they are made.
 */
public final class PprofWriter {
    private final ProtoWriter out = new ProtoWriter(1 << 16);
    private final Map<String, Integer> strings = new HashMap<>();
    private final ProtoWriter strTable = new ProtoWriter(1 << 12);
    private final Map<Long, Integer> functions = new HashMap<>();
    private LocationIds locations;
    private final ProtoWriter fnOut = new ProtoWriter(1 << 12);
    private final ProtoWriter locOut = new ProtoWriter(1 << 12);
    private final ProtoWriter scratch = new ProtoWriter();
    private final ProtoWriter scratch2 = new ProtoWriter();

    public void write(Profile profile, OutputStream stream) throws IOException {
        GZIPOutputStream gz = new GZIPOutputStream(stream, 1 << 16);
        string("");
        FrameTable frames = profile.frames();
        locations = new LocationIds(group -> location(frames, group));
        CallTree tree = profile.tree();
        List<Profile.ValueType> types = profile.valueTypes();
        for (int c = 0; c < types.size(); c++) {
            String type = types.get(c).type();
            if (tree.isDifferential()) {
                type += c == 0 ? "/before" : "/after";
            }
            scratch.reset();
            scratch.varint(1, string(type));
            scratch.varint(2, string(types.get(c).unit()));
            out.message(1, scratch);
        }
        int weights = tree.weights();
        long[] values = new long[weights];
        long[] locIds = new long[64];
        ProtoWriter sample = new ProtoWriter();
        for (int n = 1; n < tree.size(); n++) {
            boolean any = false;
            for (int c = 0; c < weights; c++) {
                values[c] = tree.self(n, c);
                any |= values[c] != 0;
            }
            if (!any) {
                continue;
            }
            int[] stack = tree.stack(n);
            int nLoc = 0;
            // Group root-first frames into locations: a caller and the inlined frames below it.
            int end = stack.length;
            while (end > 0) {
                int start = end - 1;
                while (start > 0 && frames.kind(stack[start]) == FrameKind.INLINED) {
                    start--;
                }
                if (nLoc == locIds.length) {
                    locIds = Arrays.copyOf(locIds, nLoc * 2);
                }
                locIds[nLoc++] = end - start == 1 ? locations.of(stack[start])
                        : locations.of(Arrays.copyOfRange(stack, start, end));
                end = start;
            }
            sample.reset();
            sample.packed(1, locIds, nLoc);
            // int64 values, packed; a negative one (a pprof diff) takes 10 bytes.
            sample.packed(2, values, weights);
            out.message(2, sample);
            // The top-level message needs no length, so samples stream out; only the tables that
            // samples refer to (locations, functions, strings) stay in memory until the end.
            if (out.size() >= 1 << 16) {
                gz.write(out.array(), 0, out.size());
                out.reset();
            }
        }
        gz.write(out.array(), 0, out.size());
        gz.write(locOut.array(), 0, locOut.size());
        gz.write(fnOut.array(), 0, fnOut.size());
        gz.write(strTable.array(), 0, strTable.size());
        gz.finish();
        gz.flush();
    }

    private int string(String s) {
        Integer i = strings.get(s);
        if (i == null) {
            i = strings.size();
            strings.put(s, i);
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            strTable.bytes(6, b, 0, b.length);
        }
        return i;
    }

    private int function(FrameTable frames, int frame) {
        int name = string(frames.name(frame));
        String f = frames.file(frame);
        int file = f == null ? 0 : string(f);
        long key = ((long) name << 32) | file;
        Integer id = functions.get(key);
        if (id == null) {
            id = functions.size() + 1;
            functions.put(key, id);
            scratch.reset();
            scratch.varint(1, id);
            scratch.varint(2, name);
            scratch.varint(3, name);
            scratch.varint(4, file);
            fnOut.message(5, scratch);
        }
        return id;
    }

    /** Writes the location of a caller frame followed by its inlined frames (root first); returns its id. */
    private int location(FrameTable frames, int[] group) {
        int id = locations.size() + 1;
        ProtoWriter loc = new ProtoWriter();
        loc.varint(1, id);
        for (int i = group.length - 1; i >= 0; i--) {
            int f = group[i];
            scratch2.reset();
            scratch2.varint(1, function(frames, f));
            int line = frames.line(f);
            if (line > 0) {
                scratch2.varint(2, line);
            }
            int col = frames.column(f);
            if (col > 0) {
                scratch2.varint(3, col);
            }
            loc.message(4, scratch2);
        }
        locOut.message(4, loc);
        return id;
    }
}
