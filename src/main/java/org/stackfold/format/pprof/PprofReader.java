package org.stackfold.format.pprof;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameKind;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/**
 * Reads a pprof {@code profile.proto} (gzip or not; {@link Input} decompresses) into a profile.
 *
 * <p>Two passes over the top-level message: the first decodes strings, functions, locations and
 * sample types and only notes where each sample is (pprof writes the string table last); the
 * second decodes the samples into the tree. Samples list locations leaf first; a location's lines
 * list inlined functions innermost first, so a location becomes its caller frame followed by its
 * inlined frames ({@link FrameKind#INLINED}).
 *
 * <p>Options: {@code sample-type} (name or 0-based index; default: the file's
 * default_sample_type, else the last one, as {@code go tool pprof} does), {@code lines} (frames per
 * source line, named {@code name:line}), {@code thread-frames} (the {@code thread} label, where
 * samples carry one, as root frame).
 */
public final class PprofReader {
    private final String sampleType;
    private final boolean lines;
    private final boolean threadFrames;
    private final boolean allFrames;
    private final java.util.function.Consumer<String> warnings;

    public PprofReader(String sampleType, boolean lines, boolean threadFrames) {
        this(sampleType, lines, threadFrames, false, w -> { });
    }

    /**
     * {@code allFrames}: ignore the profile's {@code drop_frames}/{@code keep_frames} (pprof's
     * {@code -all_frames}); warnings: where a {@code drop_frames} that is no regular expression is reported.
     */
    public PprofReader(String sampleType, boolean lines, boolean threadFrames, boolean allFrames,
            java.util.function.Consumer<String> warnings) {
        this.sampleType = sampleType;
        this.lines = lines;
        this.threadFrames = threadFrames;
        this.allFrames = allFrames;
        this.warnings = warnings;
    }

    public Profile read(Input in) throws IOException {
        return decode(data(in), in.name());
    }

    /** What the first pass collects. */
    static final class Tables {
        int[] strOff = new int[64];
        int[] strLen = new int[64];
        int strings;
        String[] decoded;
        final List<long[]> sampleTypes = new ArrayList<>(); // {type, unit, offset}
        long defaultSampleType;
        long dropFrames;
        long keepFrames;
        final Map<Long, long[]> functions = new HashMap<>(); // id -> {name, filename, offset}
        final Map<Long, long[]> locations = new HashMap<>(); // id -> {address, offset, f0, line0, col0, f1, ...}
        int[] sampleOff = new int[256];
        int[] sampleEnd = new int[256];
        int samples;

        String string(ProtoReader r, long index, long at) {
            if (index < 0 || index >= strings) {
                throw r.error(at, "string index " + index + " outside the string table of " + strings);
            }
            int i = (int) index;
            if (decoded[i] == null) {
                decoded[i] = new String(r.buffer(), strOff[i], strLen[i], StandardCharsets.UTF_8);
            }
            return decoded[i];
        }
    }

    Profile decode(byte[] data, String source) {
        ProtoReader r = new ProtoReader(data, source, 0, data.length);
        Tables t = scan(r);
        try {
            return build(r, t);
        } catch (ArithmeticException e) {
            throw new InputException(source + ": pprof: sample values add up past 64 bits");
        }
    }

    private static byte[] data(Input in) throws IOException {
        MemorySegment seg = in.bytes();
        if (seg.byteSize() > Integer.MAX_VALUE - 16) {
            throw new InputException(in.name() + ": pprof files over 2 GiB are not supported");
        }
        return seg.heapBase().orElse(null) instanceof byte[] a && a.length == seg.byteSize()
                ? a : seg.toArray(ValueLayout.JAVA_BYTE);
    }

    /**
     * For {@code stackfold info}: the sample types (the one read by default marked), table sizes,
     * and each sample type's total.
     */
    public static void describe(Input in, PrintWriter out) throws IOException {
        byte[] data = data(in);
        ProtoReader r = new ProtoReader(data, in.name(), 0, data.length);
        Tables t = scan(r);
        PprofReader defaults = new PprofReader(null, false, false);
        int[] diff = defaults.differentialColumns(r, t);
        int chosen = diff != null ? -1 : defaults.pickColumn(r, t);
        row(out, "samples", t.samples);
        row(out, "locations", t.locations.size());
        row(out, "functions", t.functions.size());
        row(out, "strings", t.strings);
        for (int i = 0; i < t.sampleTypes.size(); i++) {
            long[] st = t.sampleTypes.get(i);
            String type = t.string(r, st[0], st[2]);
            Profile p = new PprofReader(String.valueOf(i), false, false).build(r, t);
            out.printf(Locale.ROOT, "%-18s %s/%s%s: total %d, %d distinct stacks%n", "sample type " + i,
                    org.stackfold.io.Printable.of(type), org.stackfold.io.Printable.of(t.string(r, st[1], st[2])), i == chosen || diff != null ? " (read by default)" : "",
                    p.tree().totalSamples(), distinct(p));
        }
        out.println("read another sample type with --sample-type NAME|INDEX");
    }

    private static long distinct(Profile p) {
        long n = 0;
        for (int i = 1; i < p.tree().size(); i++) {
            n += p.tree().self(i) != 0 ? 1 : 0;
        }
        return n;
    }

    private static void row(PrintWriter out, String label, long value) {
        out.printf(Locale.ROOT, "%-18s %d%n", label, value);
    }

    /** First pass: tables decoded, samples located. */
    private static Tables scan(ProtoReader r) {
        Tables t = new Tables();
        while (r.more()) {
            int at = r.pos();
            int tag = r.tag();
            int field = tag >>> 3;
            int wire = tag & 7;
            switch (field) {
                case 1 -> t.sampleTypes.add(valueType(r, wire, at));
                case 2 -> {
                    expect(r, wire, ProtoReader.LEN, at, "sample");
                    int end = r.lengthEnd();
                    if (t.samples == t.sampleOff.length) {
                        t.sampleOff = Arrays.copyOf(t.sampleOff, t.samples * 2);
                        t.sampleEnd = Arrays.copyOf(t.sampleEnd, t.samples * 2);
                    }
                    t.sampleOff[t.samples] = r.pos();
                    t.sampleEnd[t.samples++] = end;
                    r.seek(end);
                }
                case 4 -> location(r, wire, at, t);
                case 5 -> function(r, wire, at, t);
                case 6 -> {
                    expect(r, wire, ProtoReader.LEN, at, "string_table");
                    int end = r.lengthEnd();
                    if (t.strings == t.strOff.length) {
                        t.strOff = Arrays.copyOf(t.strOff, t.strings * 2);
                        t.strLen = Arrays.copyOf(t.strLen, t.strings * 2);
                    }
                    t.strOff[t.strings] = r.pos();
                    t.strLen[t.strings++] = end - r.pos();
                    r.seek(end);
                }
                case 14 -> {
                    expect(r, wire, ProtoReader.VARINT, at, "default_sample_type");
                    t.defaultSampleType = r.varint();
                }
                case 7 -> {
                    expect(r, wire, ProtoReader.VARINT, at, "drop_frames");
                    t.dropFrames = r.varint();
                }
                case 8 -> {
                    expect(r, wire, ProtoReader.VARINT, at, "keep_frames");
                    t.keepFrames = r.varint();
                }
                default -> r.skip(wire);
            }
        }
        t.decoded = new String[t.strings];
        if (t.strings == 0 || t.strLen[0] != 0) {
            throw r.error(0, "the string table must start with the empty string");
        }
        if (t.sampleTypes.isEmpty()) {
            throw r.error(0, "no sample_type: not a pprof profile");
        }
        return t;
    }

    /** Second pass: the samples into a tree, for the selected sample type(s). */
    private Profile build(ProtoReader r, Tables t) {
        int[] columns = differentialColumns(r, t);
        if (columns == null) {
            columns = new int[] {pickColumn(r, t)};
        }
        List<Profile.ValueType> vts = new ArrayList<>();
        for (int c : columns) {
            long[] st = t.sampleTypes.get(c);
            String type = t.string(r, st[0], st[2]);
            if (columns.length == 2) {
                type = type.substring(0, type.lastIndexOf('/'));
            }
            vts.add(new Profile.ValueType(type, t.string(r, st[1], st[2])));
        }
        FrameTable frames = new FrameTable();
        CallTree tree = new CallTree(columns.length);
        // Location ids are usually 1..n: a dense array for those, a map for the rest.
        int[][] denseLocFrames = new int[Math.min(t.locations.size() + 1, 1 << 24)][];
        Map<Long, int[]> locFrames = new HashMap<>();
        Map<String, Integer> threadFrame = new HashMap<>();
        long threadKey = threadFrames ? findString(t, r, "thread") : -1;
        long[] locIds = new long[64];
        long[] values = new long[8];
        int[] stack = new int[64];
        int[] count = new int[1];
        PrunedFrames pruned = allFrames ? null : PrunedFrames.of(r, t, warnings);
        for (int s = 0; s < t.samples; s++) {
            ProtoReader q = r.sub(t.sampleOff[s], t.sampleEnd[s]);
            int nLoc = 0;
            int nVal = 0;
            String thread = null;
            while (q.more()) {
                int at = q.pos();
                int tag = q.tag();
                int wire = tag & 7;
                switch (tag >>> 3) {
                    case 1 -> {
                        count[0] = nLoc;
                        locIds = q.repeated(wire, locIds, count);
                        nLoc = count[0];
                    }
                    case 2 -> {
                        count[0] = nVal;
                        values = q.repeated(wire, values, count);
                        nVal = count[0];
                    }
                    case 3 -> {
                        expect(q, wire, ProtoReader.LEN, at, "label");
                        String v = label(q, t, threadKey);
                        if (v != null) {
                            thread = v;
                        }
                    }
                    default -> q.skip(wire);
                }
            }
            if (nVal != t.sampleTypes.size()) {
                throw r.error(t.sampleOff[s], "sample has " + nVal + " values for " + t.sampleTypes.size()
                        + " sample types");
            }
            boolean any = false;
            for (int c : columns) {
                any |= values[c] != 0;
                if (values[c] < 0) {
                    // go tool pprof -diff_base / -base write the base profile's samples negated
                    throw r.error(t.sampleOff[s], "negative sample value " + values[c] + ": a differential profile"
                            + " (go tool pprof -diff_base or -base); read the two profiles and compare them with"
                            + " stackfold diff BEFORE AFTER");
                }
            }
            if (!any) {
                continue;
            }
            int depth = 0;
            if (thread != null) {
                final String name = thread;
                stack[depth++] = threadFrame.computeIfAbsent(name, n -> frames.frame(n, FrameKind.SYNTHETIC));
            }
            int leaf = pruned == null ? 0 : pruned.leaf(locIds, nLoc);
            for (int i = nLoc - 1; i >= leaf; i--) {
                long id = locIds[i];
                boolean dense = id > 0 && id < denseLocFrames.length;
                int[] fs = dense ? denseLocFrames[(int) id] : locFrames.get(id);
                if (fs == null) {
                    fs = locationFrames(r, t, id, frames, t.sampleOff[s], pruned == null ? 0 : pruned.innerLines(id));
                    if (dense) {
                        denseLocFrames[(int) id] = fs;
                    } else {
                        locFrames.put(id, fs);
                    }
                }
                if (depth + fs.length > stack.length) {
                    stack = Arrays.copyOf(stack, Math.max(depth + fs.length, stack.length * 2));
                }
                System.arraycopy(fs, 0, stack, depth, fs.length);
                depth += fs.length;
            }
            int node = tree.path(stack, 0, depth);
            for (int k = 0; k < columns.length; k++) {
                tree.addSelf(node, k, values[columns[k]]);
            }
        }
        return new Profile(frames, tree, vts);
    }

    /**
     * Stackfold writes a differential profile as two sample types "TYPE/before" and "TYPE/after";
     * read back without a chosen sample type, they make a differential profile again.
     */
    private int[] differentialColumns(ProtoReader r, Tables t) {
        if (sampleType != null || t.sampleTypes.size() != 2) {
            return null;
        }
        String a = t.string(r, t.sampleTypes.get(0)[0], 0);
        String b = t.string(r, t.sampleTypes.get(1)[0], 0);
        if (a.endsWith("/before") && b.endsWith("/after")
                && a.substring(0, a.length() - 7).equals(b.substring(0, b.length() - 6))) {
            return new int[] {0, 1};
        }
        return null;
    }

    private int pickColumn(ProtoReader r, Tables t) {
        int n = t.sampleTypes.size();
        if (sampleType != null) {
            for (int i = 0; i < n; i++) {
                if (t.string(r, t.sampleTypes.get(i)[0], 0).equals(sampleType)) {
                    return i;
                }
            }
            if (sampleType.matches("\\d{1,9}") && Integer.parseInt(sampleType) < n) {
                return Integer.parseInt(sampleType);
            }
            List<String> names = new ArrayList<>();
            for (long[] st : t.sampleTypes) {
                names.add(t.string(r, st[0], st[2]));
            }
            throw new InputException("pprof: no sample type '" + sampleType + "'; the file has " + names);
        }
        if (t.defaultSampleType != 0) {
            for (int i = 0; i < n; i++) {
                if (t.sampleTypes.get(i)[0] == t.defaultSampleType) {
                    return i;
                }
            }
        }
        return n - 1;
    }

    private static long findString(Tables t, ProtoReader r, String s) {
        for (int i = 0; i < t.strings; i++) {
            if (t.string(r, i, 0).equals(s)) {
                return i;
            }
        }
        return -1;
    }

    private static void expect(ProtoReader r, int wire, int want, int at, String what) {
        if (wire != want) {
            throw r.error(at, what + " has wire type " + wire + ", expected " + want);
        }
    }

    private static long[] valueType(ProtoReader r, int wire, int at) {
        expect(r, wire, ProtoReader.LEN, at, "sample_type");
        int end = r.lengthEnd();
        ProtoReader q = r.sub(r.pos(), end);
        long type = 0, unit = 0;
        while (q.more()) {
            int tag = q.tag();
            switch (tag >>> 3) {
                case 1 -> type = fieldVarint(q, tag);
                case 2 -> unit = fieldVarint(q, tag);
                default -> q.skip(tag & 7);
            }
        }
        r.seek(end);
        return new long[] {type, unit, at};
    }

    private static long fieldVarint(ProtoReader q, int tag) {
        if ((tag & 7) != ProtoReader.VARINT) {
            throw q.error(q.pos(), "field " + (tag >>> 3) + " should be a varint");
        }
        return q.varint();
    }

    private static void function(ProtoReader r, int wire, int at, Tables t) {
        expect(r, wire, ProtoReader.LEN, at, "function");
        int end = r.lengthEnd();
        ProtoReader q = r.sub(r.pos(), end);
        long id = 0, name = 0, file = 0;
        while (q.more()) {
            int tag = q.tag();
            switch (tag >>> 3) {
                case 1 -> id = fieldVarint(q, tag);
                case 2 -> name = fieldVarint(q, tag);
                case 4 -> file = fieldVarint(q, tag);
                default -> q.skip(tag & 7);
            }
        }
        if (id == 0) {
            throw r.error(at, "function without an id");
        }
        t.functions.put(id, new long[] {name, file, at});
        r.seek(end);
    }

    private static void location(ProtoReader r, int wire, int at, Tables t) {
        expect(r, wire, ProtoReader.LEN, at, "location");
        int end = r.lengthEnd();
        ProtoReader q = r.sub(r.pos(), end);
        long id = 0, address = 0;
        long[] lines = new long[3];
        int n = 0;
        while (q.more()) {
            int lineAt = q.pos();
            int tag = q.tag();
            switch (tag >>> 3) {
                case 1 -> id = fieldVarint(q, tag);
                case 3 -> address = fieldVarint(q, tag);
                case 4 -> {
                    expect(q, tag & 7, ProtoReader.LEN, lineAt, "line");
                    int lend = q.lengthEnd();
                    ProtoReader l = q.sub(q.pos(), lend);
                    long fn = 0, line = 0, col = 0;
                    while (l.more()) {
                        int lt = l.tag();
                        switch (lt >>> 3) {
                            case 1 -> fn = fieldVarint(l, lt);
                            case 2 -> line = fieldVarint(l, lt);
                            case 3 -> col = fieldVarint(l, lt);
                            default -> l.skip(lt & 7);
                        }
                    }
                    if (3 * n + 3 > lines.length) {
                        lines = Arrays.copyOf(lines, lines.length * 2);
                    }
                    lines[3 * n] = fn;
                    lines[3 * n + 1] = line;
                    lines[3 * n + 2] = col;
                    n++;
                    q.seek(lend);
                }
                default -> q.skip(tag & 7);
            }
        }
        if (id == 0) {
            throw r.error(at, "location without an id");
        }
        long[] rec = new long[2 + 3 * n];
        rec[0] = address;
        rec[1] = at;
        System.arraycopy(lines, 0, rec, 2, 3 * n);
        t.locations.put(id, rec);
        r.seek(end);
    }

    /** The label's string value where its key is {@code threadKey}, else null (labels are skipped). */
    private static String label(ProtoReader q, Tables t, long threadKey) {
        int end = q.lengthEnd();
        ProtoReader l = q.sub(q.pos(), end);
        long key = 0, str = 0, num = 0;
        boolean hasNum = false;
        while (l.more()) {
            int tag = l.tag();
            switch (tag >>> 3) {
                case 1 -> key = fieldVarint(l, tag);
                case 2 -> str = fieldVarint(l, tag);
                case 3 -> {
                    num = fieldVarint(l, tag);
                    hasNum = true;
                }
                default -> l.skip(tag & 7);
            }
        }
        q.seek(end);
        if (threadKey <= 0 || key != threadKey) {
            return null;
        }
        return str != 0 ? t.string(q, str, end) : hasNum ? "thread " + num : null;
    }

    /** The frames of a location, root first: the caller, then its inlined callees. */
    private int[] locationFrames(ProtoReader r, Tables t, long id, FrameTable frames, int sampleAt, int skip) {
        long[] rec = t.locations.get(id);
        if (rec == null) {
            throw r.error(sampleAt, "sample refers to missing location " + Long.toUnsignedString(id));
        }
        int n = (rec.length - 2) / 3;
        if (n == 0) {
            return new int[] {frames.frame("0x" + Long.toHexString(rec[0]), FrameKind.UNKNOWN)};
        }
        int[] out = new int[n - skip];
        for (int i = skip; i < n; i++) {
            long fnId = rec[2 + 3 * i];
            long line = rec[3 + 3 * i];
            long col = rec[4 + 3 * i];
            long[] fn = t.functions.get(fnId);
            if (fn == null) {
                throw r.error(rec[1], "location " + Long.toUnsignedString(id) + " refers to missing function "
                        + Long.toUnsignedString(fnId));
            }
            String name = t.string(r, fn[0], fn[2]);
            String file = fn[1] == 0 ? null : t.string(r, fn[1], fn[2]);
            // lines[0] is the innermost inlined function, the last one the caller.
            FrameKind kind = i < n - 1 ? FrameKind.INLINED : FrameKind.UNKNOWN;
            int frame;
            if (lines && line > 0) {
                frame = frames.frame(name + ":" + line, kind, file, clamp(line), FrameTable.NONE,
                        col > 0 ? clamp(col) : FrameTable.NONE, FrameTable.NONE, FrameTable.NONE);
            } else {
                frame = frames.frame(name, kind, file, FrameTable.NONE, FrameTable.NONE, FrameTable.NONE,
                        FrameTable.NONE, FrameTable.NONE);
            }
            out[n - 1 - i] = frame;
        }
        return out;
    }

    private static int clamp(long v) {
        return (int) Math.min(v, Integer.MAX_VALUE);
    }
}
