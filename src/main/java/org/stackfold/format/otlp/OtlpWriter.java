package org.stackfold.format.otlp;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.profiles.v1development.Function;
import io.opentelemetry.proto.profiles.v1development.KeyValueAndUnit;
import io.opentelemetry.proto.profiles.v1development.Line;
import io.opentelemetry.proto.profiles.v1development.Link;
import io.opentelemetry.proto.profiles.v1development.Location;
import io.opentelemetry.proto.profiles.v1development.Mapping;
import io.opentelemetry.proto.profiles.v1development.ProfilesData;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.ResourceProfiles;
import io.opentelemetry.proto.profiles.v1development.Sample;
import io.opentelemetry.proto.profiles.v1development.ScopeProfiles;
import io.opentelemetry.proto.profiles.v1development.Stack;
import io.opentelemetry.proto.profiles.v1development.ValueType;
import io.opentelemetry.proto.resource.v1.Resource;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.stackfold.format.LocationIds;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameKind;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;
import org.stackfold.model.Timeline;

/**
 * Builds an OpenTelemetry {@code ProfilesData} (profiles.proto, v1development) from a profile, with the
 * official generated classes.
 *
 * <p>One resource, one scope ({@code stackfold}), one OTLP profile per weight column (an OTLP profile
 * has one sample type; a differential profile's two columns are "TYPE/before" and "TYPE/after", as
 * pprof output names them). The dictionary is shared: strings, functions (one per name and file),
 * locations (a caller and the frames inlined into it, lines innermost first), stacks (one per call-tree
 * node with samples, leaf first) and attributes. Frame kinds that OpenTelemetry's semantic conventions
 * name become the location attribute {@code profile.frame.type}.
 *
 * <p>A sample is one call-tree node with its count, unless the profile has a timeline in a unit of time
 * that accounts for every count: then a sample is a (node, thread) pair with one value and one
 * timestamp per observation, and the thread becomes the attributes {@code thread.id} and
 * {@code thread.name}, so the time order and the threads survive.
 */
public final class OtlpWriter {
    static final String FRAME_TYPE = "profile.frame.type";
    static final String THREAD_ID = "thread.id";
    static final String THREAD_NAME = "thread.name";

    private final ProfilesDictionary.Builder dict = ProfilesDictionary.newBuilder();
    private final Map<String, Integer> strings = new HashMap<>();
    private final Map<Long, Integer> functions = new HashMap<>();
    private LocationIds locations;
    private final Map<String, Integer> attributes = new HashMap<>();
    private int[] stackOfNode;

    /** Writes the profile as a binary {@code ProfilesData} message. */
    public static void write(Profile profile, OtlpMeta meta, OutputStream out) throws IOException {
        new OtlpWriter().build(profile, meta).writeTo(out);
    }

    /** The {@code ProfilesData} message of a profile (what an OTLP export request carries too). */
    public ProfilesData build(Profile profile, OtlpMeta meta) {
        locations = new LocationIds(group -> location(profile.frames(), group));
        string("");
        dict.addMappingTable(Mapping.getDefaultInstance());
        dict.addLocationTable(Location.getDefaultInstance());
        dict.addFunctionTable(Function.getDefaultInstance());
        // The spec asks for the 16- and 8-byte zero ids in link_table[0], for strict codecs.
        dict.addLinkTable(Link.newBuilder().setTraceId(ByteString.copyFrom(new byte[16]))
                .setSpanId(ByteString.copyFrom(new byte[8])));
        dict.addAttributeTable(KeyValueAndUnit.getDefaultInstance());
        dict.addStackTable(Stack.getDefaultInstance());

        CallTree tree = profile.tree();
        stackOfNode = new int[tree.size()];
        Timeline timeline = profile.timeline();
        long unitNanos = timeline == null ? 0 : unitNanos(timeline.timeUnit());
        boolean observations = meta.observations() && unitNanos > 0 && tree.weights() == 1 && !timeline.isDifferential()
                && timeline.size() > 0 && timelineCoversTree(timeline, tree);
        long duration = meta.durationNanos();
        long first = 0;
        if (observations) {
            first = Long.MAX_VALUE;
            long last = Long.MIN_VALUE;
            for (int i = 0; i < timeline.size(); i++) {
                first = Math.min(first, timeline.timestamp(i));
                last = Math.max(last, timeline.timestamp(i));
            }
            if (duration < 0) {
                duration = Math.multiplyExact(last - first + 1, unitNanos);
            }
        }
        duration = Math.max(0, duration);
        Instant start = meta.start() != null ? meta.start() : Instant.now().minusNanos(duration);
        long startNanos = Math.addExact(Math.multiplyExact(start.getEpochSecond(), 1_000_000_000L), start.getNano());

        ScopeProfiles.Builder scope = ScopeProfiles.newBuilder()
                .setScope(InstrumentationScope.newBuilder().setName("stackfold"));
        List<Profile.ValueType> types = profile.valueTypes();
        for (int c = 0; c < types.size(); c++) {
            String type = types.get(c).type();
            if (tree.isDifferential()) {
                type += c == 0 ? "/before" : "/after";
            }
            var p = io.opentelemetry.proto.profiles.v1development.Profile.newBuilder()
                    .setSampleType(valueType(type, types.get(c).unit()))
                    .setTimeUnixNano(startNanos).setDurationNano(duration);
            if (meta.sampleRateHz() > 0) {
                p.setPeriodType(valueType("cpu", "nanoseconds")).setPeriod(1_000_000_000L / meta.sampleRateHz());
            }
            if (observations) {
                observations(profile, timeline, startNanos, first, unitNanos, p);
            } else {
                for (int n = 1; n < tree.size(); n++) {
                    long v = tree.self(n, c);
                    if (v != 0) {
                        p.addSamples(Sample.newBuilder().setStackIndex(stack(profile, n)).addValues(v));
                    }
                }
            }
            scope.addProfiles(p);
        }
        Resource.Builder resource = Resource.newBuilder();
        meta.resource().forEach((k, v) -> resource.addAttributes(KeyValue.newBuilder().setKey(k)
                .setValue(AnyValue.newBuilder().setStringValue(v))));
        return ProfilesData.newBuilder()
                .addResourceProfiles(ResourceProfiles.newBuilder().setResource(resource).addScopeProfiles(scope))
                .setDictionary(dict).build();
    }

    /** One sample per (node, thread), its observations in timeline order. */
    private void observations(Profile profile, Timeline timeline, long startNanos, long first, long unitNanos,
                              io.opentelemetry.proto.profiles.v1development.Profile.Builder p) {
        Map<Long, Sample.Builder> samples = new LinkedHashMap<>();
        Map<Long, Integer> threadSlot = new HashMap<>();
        List<int[]> threadAttributes = new ArrayList<>();
        for (int i = 0; i < timeline.size(); i++) {
            long thread = timeline.threadId(i);
            int slot = threadSlot.computeIfAbsent(thread, t -> {
                String name = timeline.threadName(t);
                threadAttributes.add(name == null ? new int[] {attribute(THREAD_ID, t)}
                        : new int[] {attribute(THREAD_ID, t), attribute(THREAD_NAME, name)});
                return threadAttributes.size() - 1;
            });
            int node = timeline.node(i);
            Sample.Builder s = samples.computeIfAbsent(((long) node << 32) | slot, k -> {
                Sample.Builder b = Sample.newBuilder().setStackIndex(stack(profile, node));
                for (int a : threadAttributes.get(slot)) {
                    b.addAttributeIndices(a);
                }
                return b;
            });
            s.addValues(timeline.weight(i));
            s.addTimestampsUnixNano(startNanos + (timeline.timestamp(i) - first) * unitNanos);
        }
        samples.values().forEach(p::addSamples);
    }

    /** True where the timeline's weights add up to every node's count: it then says all the profile does. */
    private static boolean timelineCoversTree(Timeline timeline, CallTree tree) {
        long[] sum = new long[tree.size()];
        for (int i = 0; i < timeline.size(); i++) {
            int n = timeline.node(i);
            if (n <= 0 || n >= sum.length) {
                return false;
            }
            sum[n] += timeline.weight(i);
        }
        for (int n = 1; n < sum.length; n++) {
            if (sum[n] != tree.self(n, 0)) {
                return false;
            }
        }
        return true;
    }

    /** Nanoseconds in one timeline unit, or 0 where the unit is no unit of time (line order, "count"). */
    static long unitNanos(String unit) {
        return switch (unit == null ? "" : unit) {
            case "nanoseconds" -> 1;
            case "microseconds" -> 1_000;
            case "milliseconds" -> 1_000_000;
            case "seconds" -> 1_000_000_000;
            default -> 0;
        };
    }

    private ValueType valueType(String type, String unit) {
        return ValueType.newBuilder().setTypeStrindex(string(type)).setUnitStrindex(string(unit)).build();
    }

    private int string(String s) {
        Integer i = strings.get(s);
        if (i == null) {
            i = strings.size();
            strings.put(s, i);
            dict.addStringTable(s);
        }
        return i;
    }

    private int attribute(String key, Object value) {
        String id = key + '\0' + (value instanceof Long ? "i" : "s") + value;
        Integer i = attributes.get(id);
        if (i == null) {
            i = dict.getAttributeTableCount();
            attributes.put(id, i);
            AnyValue v = value instanceof Long l ? AnyValue.newBuilder().setIntValue(l).build()
                    : AnyValue.newBuilder().setStringValue(value.toString()).build();
            dict.addAttributeTable(KeyValueAndUnit.newBuilder().setKeyStrindex(string(key)).setValue(v));
        }
        return i;
    }

    /** The stack of a call-tree node: its locations leaf first. */
    private int stack(Profile profile, int node) {
        int id = stackOfNode[node];
        if (id != 0) {
            return id;
        }
        FrameTable frames = profile.frames();
        int[] path = profile.tree().stack(node);
        Stack.Builder s = Stack.newBuilder();
        int end = path.length;
        while (end > 0) {
            int start = end - 1;
            while (start > 0 && frames.kind(path[start]) == FrameKind.INLINED) {
                start--;
            }
            s.addLocationIndices(end - start == 1 ? locations.of(path[start])
                    : locations.of(Arrays.copyOfRange(path, start, end)));
            end = start;
        }
        id = dict.getStackTableCount();
        dict.addStackTable(s);
        stackOfNode[node] = id;
        return id;
    }

    /** Adds the location of a caller frame and the frames inlined into it (root first); returns its index. */
    private int location(FrameTable frames, int[] group) {
        Location.Builder loc = Location.newBuilder();
        for (int i = group.length - 1; i >= 0; i--) {
            int f = group[i];
            Line.Builder line = Line.newBuilder().setFunctionIndex(function(frames, f));
            if (frames.line(f) > 0) {
                line.setLine(frames.line(f));
            }
            if (frames.column(f) > 0) {
                line.setColumn(frames.column(f));
            }
            loc.addLines(line);
        }
        String type = frameType(frames.kind(group[0]));
        if (type != null) {
            loc.addAttributeIndices(attribute(FRAME_TYPE, type));
        }
        int id = dict.getLocationTableCount();
        dict.addLocationTable(loc);
        return id;
    }

    private int function(FrameTable frames, int frame) {
        int name = string(frames.name(frame));
        String file = frames.file(frame);
        int fileIndex = file == null ? 0 : string(file);
        long key = ((long) name << 32) | fileIndex;
        Integer id = functions.get(key);
        if (id == null) {
            id = dict.getFunctionTableCount();
            dict.addFunctionTable(Function.newBuilder().setNameStrindex(name).setFilenameStrindex(fileIndex));
            functions.put(key, id);
        }
        return id;
    }

    /**
     * The semantic conventions' {@code profile.frame.type} of a frame kind, or null. Java's interpreted
     * and JIT frames are both "jvm" (read back as JIT); other kinds have no value there.
     */
    static String frameType(FrameKind kind) {
        return switch (kind) {
            case KERNEL -> "kernel";
            case NATIVE -> "native";
            case PYTHON -> "cpython";
            case JIT, INTERPRETED -> "jvm";
            default -> null;
        };
    }

    static FrameKind frameKind(String type) {
        return switch (type) {
            case "kernel" -> FrameKind.KERNEL;
            case "native" -> FrameKind.NATIVE;
            case "cpython" -> FrameKind.PYTHON;
            case "jvm" -> FrameKind.JIT;
            default -> FrameKind.UNKNOWN;
        };
    }
}
