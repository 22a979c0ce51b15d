package org.stackfold.format.otlp;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.profiles.v1development.Function;
import io.opentelemetry.proto.profiles.v1development.KeyValueAndUnit;
import io.opentelemetry.proto.profiles.v1development.Line;
import io.opentelemetry.proto.profiles.v1development.Location;
import io.opentelemetry.proto.profiles.v1development.ProfilesData;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.ResourceProfiles;
import io.opentelemetry.proto.profiles.v1development.Sample;
import io.opentelemetry.proto.profiles.v1development.ScopeProfiles;
import io.opentelemetry.proto.profiles.v1development.Stack;
import io.opentelemetry.proto.profiles.v1development.ValueType;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameKind;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;
import org.stackfold.model.Timeline;

/**
 * Reads an OpenTelemetry {@code ProfilesData} (or an OTLP {@code ExportProfilesServiceRequest}, which
 * has the same fields) into a profile, with the official generated classes.
 *
 * <p>Every OTLP profile of the chosen sample type, in every resource and scope, is added into one call
 * tree. The sample type: option {@code sample-type} (its name or 0-based index among the distinct
 * types, in order of appearance), else the pair "T/before" + "T/after" as a differential profile, else
 * the first. A stack lists locations leaf first, a location's lines innermost first: a location becomes
 * its caller frame followed by the frames inlined into it. Where every sample of the chosen type has
 * timestamps, the profile gets a timeline (nanoseconds since the first observation) with the samples'
 * {@code thread.id} and {@code thread.name} attributes. Every index is checked against its table; a
 * bad one is an error naming the profile, sample, stack or location.
 */
public final class OtlpReader {
    private final String sampleType;

    public OtlpReader(String sampleType) {
        this.sampleType = sampleType;
    }

    /** Parses the input's bytes; a malformed message is an error naming the byte offset where parsing stopped. */
    public static ProfilesData parse(Input in) throws IOException {
        MemorySegment seg = in.bytes();
        if (seg.byteSize() > Integer.MAX_VALUE - 16) {
            throw new InputException(in.name() + ": OTLP files over 2 GiB are not supported");
        }
        CodedInputStream cis = CodedInputStream.newInstance(seg.asByteBuffer());
        try {
            ProfilesData data = ProfilesData.parseFrom(cis);
            cis.checkLastTagWas(0);
            return data;
        } catch (InvalidProtocolBufferException e) {
            throw InputException.atOffset(in.name(), cis.getTotalBytesRead(), "not a valid OTLP profiles message: "
                    + e.getMessage());
        }
    }

    public Profile read(Input in) throws IOException {
        return read(parse(in), in.name());
    }

    /** A chosen OTLP profile with the dictionary it refers to. */
    private record Part(io.opentelemetry.proto.profiles.v1development.Profile profile, String where) {
    }

    public Profile read(ProfilesData data, String source) {
        ProfilesDictionary dict = data.getDictionary();
        Tables t = new Tables(dict, source);
        List<String[]> types = new ArrayList<>();
        List<List<Part>> byType = new ArrayList<>();
        for (int r = 0; r < data.getResourceProfilesCount(); r++) {
            ResourceProfiles rp = data.getResourceProfiles(r);
            for (int s = 0; s < rp.getScopeProfilesCount(); s++) {
                ScopeProfiles sp = rp.getScopeProfiles(s);
                for (int p = 0; p < sp.getProfilesCount(); p++) {
                    var profile = sp.getProfiles(p);
                    String where = "resource " + r + " scope " + s + " profile " + p;
                    ValueType vt = profile.getSampleType();
                    String[] type = {t.string(vt.getTypeStrindex(), where), t.string(vt.getUnitStrindex(), where)};
                    int i = indexOf(types, type);
                    if (i < 0) {
                        types.add(type);
                        byType.add(new ArrayList<>());
                        i = types.size() - 1;
                    }
                    byType.get(i).add(new Part(profile, where));
                }
            }
        }
        if (types.isEmpty()) {
            throw new InputException(source + ": the OTLP message holds no profile");
        }
        int[] columns = columns(types, source);
        List<Profile.ValueType> vts = new ArrayList<>();
        for (int c : columns) {
            String type = types.get(c)[0];
            if (columns.length == 2) {
                type = type.substring(0, type.lastIndexOf('/'));
            }
            vts.add(new Profile.ValueType(type, types.get(c)[1]));
        }
        FrameTable frames = new FrameTable();
        CallTree tree = new CallTree(columns.length);
        Profile result = new Profile(frames, tree, vts);
        boolean timed = columns.length == 1 && everySampleTimed(byType.get(columns[0]));
        // OTLP groups samples by stack and thread: put in time order at the end, counted from the first.
        org.stackfold.model.TimedSamples obs = timed ? new org.stackfold.model.TimedSamples() : null;
        for (int k = 0; k < columns.length; k++) {
            for (Part part : byType.get(columns[k])) {
                for (int s = 0; s < part.profile().getSamplesCount(); s++) {
                    Sample sample = part.profile().getSamples(s);
                    String where = part.where() + " sample " + s;
                    int node = t.node(tree, frames, sample.getStackIndex(), where);
                    int nv = sample.getValuesCount();
                    int nt = sample.getTimestampsUnixNanoCount();
                    if (nv == 0 && nt == 0 || nv > 0 && nt > 0 && nv != nt) {
                        throw new InputException(source + ": " + where + " has " + nv + " values and " + nt
                                + " timestamps (it needs values, timestamps, or as many of each)");
                    }
                    long thread = 0;
                    String threadName = null;
                    if (obs != null) {
                        for (int a : sample.getAttributeIndicesList()) {
                            KeyValueAndUnit kv = t.attribute(a, where);
                            String key = t.string(kv.getKeyStrindex(), where);
                            if (key.equals(OtlpWriter.THREAD_ID) && kv.getValue().hasIntValue()) {
                                thread = kv.getValue().getIntValue();
                            } else if (key.equals(OtlpWriter.THREAD_NAME)) {
                                threadName = text(kv.getValue());
                            }
                        }
                    }
                    int n = Math.max(nv, nt);
                    for (int i = 0; i < n; i++) {
                        long v = nv == 0 ? 1 : sample.getValues(i);
                        if (v < 0) {
                            throw new InputException(source + ": " + where + " has the negative value " + v);
                        }
                        tree.addSelf(node, k, v);
                        if (obs != null) {
                            obs.add(sample.getTimestampsUnixNano(i), thread, node, v);
                            if (threadName != null) {
                                obs.nameThread(thread, threadName);
                            }
                        }
                    }
                }
            }
        }
        if (obs != null) {
            result.setTimeline(obs.timeline("nanoseconds", true));
        }
        return result;
    }

    private static String text(AnyValue v) {
        return v.hasStringValue() ? v.getStringValue() : v.hasIntValue() ? Long.toString(v.getIntValue()) : null;
    }

    private static boolean everySampleTimed(List<Part> parts) {
        boolean any = false;
        for (Part p : parts) {
            for (Sample s : p.profile().getSamplesList()) {
                if (s.getTimestampsUnixNanoCount() == 0) {
                    return false;
                }
                any = true;
            }
        }
        return any;
    }

    private static int indexOf(List<String[]> types, String[] type) {
        for (int i = 0; i < types.size(); i++) {
            if (Arrays.equals(types.get(i), type)) {
                return i;
            }
        }
        return -1;
    }

    private int[] columns(List<String[]> types, String source) {
        if (sampleType != null) {
            for (int i = 0; i < types.size(); i++) {
                if (types.get(i)[0].equals(sampleType)) {
                    return new int[] {i};
                }
            }
            if (sampleType.matches("\\d{1,9}") && Integer.parseInt(sampleType) < types.size()) {
                return new int[] {Integer.parseInt(sampleType)};
            }
            throw new InputException(source + ": no sample type '" + sampleType + "'; the file has "
                    + types.stream().map(x -> x[0]).toList());
        }
        if (types.size() == 2) {
            String a = types.get(0)[0];
            String b = types.get(1)[0];
            if (a.endsWith("/before") && b.endsWith("/after")
                    && a.substring(0, a.length() - 7).equals(b.substring(0, b.length() - 6))) {
                return new int[] {0, 1};
            }
        }
        return new int[] {0};
    }

    /** The dictionary, with checked look-ups and each location's frames made once. */
    private static final class Tables {
        private final ProfilesDictionary dict;
        private final String source;
        private final int[][] locationFrames;
        private int[] nodeOfStack;
        private int[] path = new int[64];

        Tables(ProfilesDictionary dict, String source) {
            this.dict = dict;
            this.source = source;
            this.locationFrames = new int[dict.getLocationTableCount()][];
            this.nodeOfStack = new int[dict.getStackTableCount()];
            Arrays.fill(nodeOfStack, -1);
        }

        String string(int index, String where) {
            if (index < 0 || index >= dict.getStringTableCount()) {
                if (index == 0) {
                    return "";
                }
                throw bad(where, "string index " + index, dict.getStringTableCount(), "string_table");
            }
            return dict.getStringTable(index);
        }

        KeyValueAndUnit attribute(int index, String where) {
            if (index < 0 || index >= dict.getAttributeTableCount()) {
                throw bad(where, "attribute index " + index, dict.getAttributeTableCount(), "attribute_table");
            }
            return dict.getAttributeTable(index);
        }

        private InputException bad(String where, String what, int size, String table) {
            return new InputException(source + ": " + where + " refers to " + what + ", but " + table + " has "
                    + size + " entries");
        }

        /** The call-tree node of a stack: its locations' frames from the root. */
        int node(CallTree tree, FrameTable frames, int stackIndex, String where) {
            if (stackIndex < 0 || stackIndex >= dict.getStackTableCount()) {
                throw bad(where, "stack index " + stackIndex, dict.getStackTableCount(), "stack_table");
            }
            int node = nodeOfStack[stackIndex];
            if (node >= 0) {
                return node;
            }
            Stack stack = dict.getStackTable(stackIndex);
            int depth = 0;
            for (int i = stack.getLocationIndicesCount() - 1; i >= 0; i--) {
                int[] fs = frames(frames, stack.getLocationIndices(i), "stack " + stackIndex);
                if (depth + fs.length > path.length) {
                    path = Arrays.copyOf(path, Math.max(depth + fs.length, path.length * 2));
                }
                System.arraycopy(fs, 0, path, depth, fs.length);
                depth += fs.length;
            }
            node = tree.path(path, 0, depth);
            nodeOfStack[stackIndex] = node;
            return node;
        }

        /** A location's frames, root first: the caller, then what was inlined into it. */
        private int[] frames(FrameTable frames, int index, String where) {
            if (index < 0 || index >= locationFrames.length) {
                throw bad(where, "location index " + index, locationFrames.length, "location_table");
            }
            int[] fs = locationFrames[index];
            if (fs != null) {
                return fs;
            }
            Location loc = dict.getLocationTable(index);
            String at = "location " + index;
            FrameKind callerKind = FrameKind.UNKNOWN;
            for (int a : loc.getAttributeIndicesList()) {
                KeyValueAndUnit kv = attribute(a, at);
                if (string(kv.getKeyStrindex(), at).equals(OtlpWriter.FRAME_TYPE) && kv.getValue().hasStringValue()) {
                    callerKind = OtlpWriter.frameKind(kv.getValue().getStringValue());
                }
            }
            int n = loc.getLinesCount();
            if (n == 0) {
                String mapping = "";
                int m = loc.getMappingIndex();
                if (m > 0 && m < dict.getMappingTableCount()) {
                    mapping = string(dict.getMappingTable(m).getFilenameStrindex(), at);
                }
                String name = (mapping.isEmpty() ? "" : mapping + "+") + "0x" + Long.toHexString(loc.getAddress());
                fs = new int[] {frames.frame(name, callerKind)};
            } else {
                fs = new int[n];
                for (int i = 0; i < n; i++) {
                    Line line = loc.getLines(i);
                    int f = line.getFunctionIndex();
                    if (f < 0 || f >= dict.getFunctionTableCount()) {
                        throw bad(at, "function index " + f, dict.getFunctionTableCount(), "function_table");
                    }
                    Function fn = dict.getFunctionTable(f);
                    String name = string(fn.getNameStrindex(), at);
                    if (name.isEmpty()) {
                        name = string(fn.getSystemNameStrindex(), at);
                    }
                    String file = string(fn.getFilenameStrindex(), at);
                    // lines[0] is the innermost inlined function, the last one the caller.
                    FrameKind kind = i < n - 1 ? FrameKind.INLINED : callerKind;
                    fs[n - 1 - i] = frames.frame(name, kind, file.isEmpty() ? null : file, positive(line.getLine()),
                            FrameTable.NONE, positive(line.getColumn()), FrameTable.NONE, FrameTable.NONE);
                }
            }
            locationFrames[index] = fs;
            return fs;
        }

        private static int positive(long v) {
            return v > 0 ? (int) Math.min(v, Integer.MAX_VALUE) : FrameTable.NONE;
        }
    }
}
