package org.stackfold.format.chrome;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameKind;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;
import org.stackfold.model.Timeline;

/**
 * Reads the CPU profiles inside a Chrome trace (the Performance panel's saved trace,
 * {@code chrome://tracing}, a bare event array or {@code {"traceEvents": [...]}}) as speedscope's
 * {@code importFromChromeTimeline} does:
 *
 * <ul>
 *   <li>Events are taken in time order ({@code ts}, stable). A {@code Profile} event declares a
 *       profile (key: its {@code id}, else {@code pid:tid}); each {@code ProfileChunk} of that key
 *       appends its {@code cpuProfile.nodes}, {@code cpuProfile.samples} and {@code timeDeltas};
 *       a chunk of an undeclared profile is ignored (and counted in one warning). A
 *       {@code CpuProfile} event (Chrome 65) carries a whole profile.
 *   <li>Each profile is replayed by the {@code .cpuprofile} rules ({@link CpuProfileNodes}):
 *       weights are microseconds. Its runs, at {@code startTime} plus their offset, are the
 *       {@link Timeline}, thread = the event's {@code tid}, named by the {@code thread_name}
 *       metadata event of its {@code pid}/{@code tid}.
 *   <li>Option {@code thread-frames}: each profile's thread name as its root frame.
 * </ul>
 *
 * Streaming with jackson-core: only the events' few scalar fields and the nodes, samples and
 * deltas of profile events are kept; every other event's {@code args} are skipped. A bare array may
 * lack its closing {@code ]} (the format allows it). Errors name the byte offset.
 */
final class TraceEventReader {
    private static final JsonFactory JSON = JsonFactory.builder().build();
    private static final String FORMAT = "chrome-trace";
    private static final int PROFILE = 0;
    private static final int CHUNK = 1;
    private static final int CPU_PROFILE = 2;

    /** A profile event; the others (by far the most) leave nothing behind. */
    private record Event(int kind, String key, long pid, long tid, double ts, int seq, CpuProfileNodes nodes,
                         double startTime) {
    }

    private final List<Event> events = new ArrayList<>();
    private final Map<String, String> threadNames = new HashMap<>();
    private final boolean threadFrames;
    private String source;
    private FrameTable frames;

    // the event being read
    private String name;
    private String id;
    private long pid;
    private long tid;
    private double ts;
    private CpuProfileNodes pending;
    private double startTime;
    private String argName;

    TraceEventReader(boolean threadFrames) {
        this.threadFrames = threadFrames;
    }

    Profile read(Input in, java.util.function.Consumer<String> warnings) throws IOException {
        source = in.name();
        Profile profile = new Profile(new FrameTable(), new CallTree(1), List.of(CpuProfileReader.TIME));
        frames = profile.frames();
        try (InputStream s = in.stream(); JsonParser p = JSON.createParser(s)) {
            try {
                parse(p);
            } catch (StreamReadException e) {
                long offset = e.getLocation() == null ? p.currentLocation().getByteOffset() : e.getLocation().getByteOffset();
                throw InputException.atOffset(source, Math.max(0, offset), FORMAT + ": invalid JSON: " + e.getOriginalMessage());
            }
        }
        build(profile, warnings);
        return profile;
    }

    private void parse(JsonParser p) throws IOException {
        JsonToken t = p.nextToken();
        if (t == JsonToken.START_ARRAY) {
            eventArray(p, true);
            return;
        }
        if (t != JsonToken.START_OBJECT) {
            throw InputException.atOffset(source, p.currentLocation().getByteOffset(),
                    FORMAT + ": expected a JSON array of trace events or an object with \"traceEvents\"");
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            t = p.nextToken();
            if (field.equals("traceEvents") && t == JsonToken.START_ARRAY) {
                eventArray(p, false);
            } else {
                p.skipChildren();
            }
        }
    }

    /** Events up to the closing bracket; a bare array may end without it. */
    private void eventArray(JsonParser p, boolean mayEndEarly) throws IOException {
        int seq = 0;
        while (true) {
            JsonToken t;
            try {
                t = p.nextToken();
            } catch (StreamReadException e) {
                // Jackson reports an array cut short after a comma as a parse error, not always a JsonEOFException
                if (mayEndEarly && (e instanceof JsonEOFException
                        || String.valueOf(e.getOriginalMessage()).startsWith("Unexpected end-of-input"))) {
                    return;
                }
                throw e;
            }
            if (t == null && mayEndEarly) {
                return;
            }
            if (t == JsonToken.END_ARRAY) {
                return;
            }
            if (t != JsonToken.START_OBJECT) {
                throw InputException.atOffset(source, p.currentLocation().getByteOffset(),
                        FORMAT + ": a trace event is not a JSON object");
            }
            event(p, seq++);
        }
    }

    private void event(JsonParser p, int seq) throws IOException {
        name = null;
        id = null;
        pid = 0;
        tid = 0;
        ts = 0;
        pending = null;
        startTime = Double.NaN;
        argName = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            switch (field) {
                case "name" -> name = t == JsonToken.VALUE_STRING ? p.getText() : null;
                case "id" -> id = t.isScalarValue() ? p.getValueAsString() : skip(p);
                case "pid" -> pid = p.getValueAsLong(0);
                case "tid" -> tid = p.getValueAsLong(0);
                case "ts" -> ts = p.getValueAsDouble(0);
                case "args" -> args(p, t);
                default -> p.skipChildren();
            }
        }
        if (name == null) {
            return;
        }
        switch (name) {
            case "Profile" -> events.add(new Event(PROFILE, key(), pid, tid, ts, seq, null, startTime));
            case "ProfileChunk" -> events.add(new Event(CHUNK, key(), pid, tid, ts, seq, pending, startTime));
            case "CpuProfile" -> events.add(new Event(CPU_PROFILE, key(), pid, tid, ts, seq, pending, startTime));
            case "thread_name" -> {
                if (argName != null) {
                    threadNames.put(pid + ":" + tid, argName);
                }
            }
            default -> {
            }
        }
    }

    private static String skip(JsonParser p) throws IOException {
        p.skipChildren();
        return null;
    }

    private String key() {
        return id != null && !id.isEmpty() ? id : pid + ":" + tid;
    }

    private void args(JsonParser p, JsonToken t) throws IOException {
        if (t != JsonToken.START_OBJECT) {
            p.skipChildren();
            return;
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken v = p.nextToken();
            if (field.equals("data") && v == JsonToken.START_OBJECT) {
                data(p);
            } else if (field.equals("name") && v == JsonToken.VALUE_STRING) {
                argName = p.getText();
            } else {
                p.skipChildren();
            }
        }
    }

    private void data(JsonParser p) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken v = p.nextToken();
            switch (field) {
                case "cpuProfile" -> {
                    if (v != JsonToken.START_OBJECT) {
                        p.skipChildren();
                        continue;
                    }
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String f = p.currentName();
                        JsonToken w = p.nextToken();
                        switch (f) {
                            case "nodes" -> nodes(p, w);
                            case "samples" -> numbers(p, w, true);
                            case "timeDeltas" -> numbers(p, w, false);
                            case "startTime" -> startTime = number(p, w, startTime);
                            default -> p.skipChildren();
                        }
                    }
                }
                case "timeDeltas" -> numbers(p, v, false);
                case "startTime" -> startTime = number(p, v, startTime);
                default -> p.skipChildren();
            }
        }
    }

    private static double number(JsonParser p, JsonToken t, double fallback) throws IOException {
        return t.isNumeric() ? p.getDoubleValue() : fallback;
    }

    private CpuProfileNodes pending() {
        if (pending == null) {
            pending = new CpuProfileNodes();
        }
        return pending;
    }

    private void nodes(JsonParser p, JsonToken t) throws IOException {
        if (t != JsonToken.START_ARRAY) {
            p.skipChildren();
            return;
        }
        CpuProfileNodes n = pending();
        while ((t = p.nextToken()) == JsonToken.START_OBJECT) {
            try {
                n.readNode(p, frames, source, FORMAT);
            } catch (InputException e) {
                throw InputException.atOffset(source, p.currentLocation().getByteOffset(), FORMAT + ": a node without an id");
            }
        }
        if (t != JsonToken.END_ARRAY) {
            throw InputException.atOffset(source, p.currentLocation().getByteOffset(), FORMAT + ": a node is not an object");
        }
    }

    private void numbers(JsonParser p, JsonToken t, boolean samples) throws IOException {
        if (t != JsonToken.START_ARRAY) {
            p.skipChildren();
            return;
        }
        CpuProfileNodes n = pending();
        while ((t = p.nextToken()) == JsonToken.VALUE_NUMBER_INT) {
            if (samples) {
                n.addSample(p.getLongValue());
            } else {
                n.addDelta(p.getLongValue());
            }
        }
        if (t != JsonToken.END_ARRAY) {
            throw InputException.atOffset(source, p.currentLocation().getByteOffset(),
                    FORMAT + ": " + (samples ? "a sample" : "a time delta") + " is not a whole number");
        }
    }

    /** One declared profile while events are replayed. */
    private static final class Declared {
        final long pid;
        final long tid;
        final CpuProfileNodes nodes;
        double startTime;

        Declared(long pid, long tid, CpuProfileNodes nodes, double startTime) {
            this.pid = pid;
            this.tid = tid;
            this.nodes = nodes;
            this.startTime = startTime;
        }
    }

    private void build(Profile profile, java.util.function.Consumer<String> warnings) {
        Event[] sorted = events.toArray(new Event[0]);
        Arrays.sort(sorted, (a, b) -> a.ts != b.ts ? Double.compare(a.ts, b.ts) : Integer.compare(a.seq, b.seq));
        Map<String, Declared> profiles = new LinkedHashMap<>();
        int ignored = 0;
        for (Event e : sorted) {
            switch (e.kind) {
                case CPU_PROFILE -> {
                    if (e.nodes != null) {
                        profiles.put(e.key, new Declared(e.pid, e.tid, e.nodes, e.startTime));
                    }
                }
                case PROFILE -> profiles.put(e.key, new Declared(e.pid, e.tid, new CpuProfileNodes(), e.startTime));
                default -> {
                    Declared d = profiles.get(e.key);
                    if (d == null) {
                        ignored++;
                    } else if (e.nodes != null) {
                        d.nodes.append(e.nodes);
                        if (!Double.isNaN(e.startTime)) {
                            d.startTime = e.startTime;
                        }
                    }
                }
            }
        }
        if (profiles.isEmpty()) {
            throw new InputException(source + ": " + FORMAT + ": no CPU profile in the trace (no Profile, ProfileChunk or"
                    + " CpuProfile events); its duration events are read by --from chrome-tracing");
        }
        if (ignored > 0) {
            warnings.accept(source + ": " + FORMAT + ": ignored " + ignored + " ProfileChunk event(s) of undeclared profiles");
        }
        Runs runs = new Runs();
        Timeline timeline = new Timeline("microseconds");
        CallTree tree = profile.tree();
        for (Declared d : profiles.values()) {
            String threadName = threadNames.get(d.pid + ":" + d.tid);
            if (threadName != null) {
                timeline.nameThread(d.tid, threadName);
            }
            int root = CallTree.ROOT;
            if (threadFrames) {
                String shown = threadName != null ? threadName : "pid " + d.pid + " tid " + d.tid;
                root = tree.child(CallTree.ROOT, frames.frame(shown, FrameKind.UNKNOWN, null, FrameTable.NONE,
                        FrameTable.NONE, FrameTable.NONE, FrameTable.NONE, FrameTable.NONE));
            }
            long base = Double.isNaN(d.startTime) ? 0 : Math.round(d.startTime);
            long thread = d.tid;
            runs.startProfile();
            try {
                d.nodes.replay(tree, root, (node, start, micros) -> runs.add(thread, base + start, node, micros));
            } catch (InputException e) {
                throw new InputException(source + ": " + FORMAT + ": " + e.getMessage());
            }
        }
        runs.into(timeline);
        if (timeline.size() > 0) {
            profile.setTimeline(timeline);
        }
    }

    /** Every profile's runs (each profile's in time order), merged into the timeline in time order. */
    private static final class Runs {
        long[] thread = new long[256];
        long[] time = new long[256];
        int[] node = new int[256];
        long[] weight = new long[256];
        int size;
        int[] starts = new int[8];
        int profiles;

        void startProfile() {
            if (profiles + 1 >= starts.length) {
                starts = Arrays.copyOf(starts, starts.length * 2);
            }
            starts[profiles++] = size;
        }

        void add(long t, long at, int n, long w) {
            if (size == node.length) {
                int cap = size * 2;
                thread = Arrays.copyOf(thread, cap);
                time = Arrays.copyOf(time, cap);
                node = Arrays.copyOf(node, cap);
                weight = Arrays.copyOf(weight, cap);
            }
            thread[size] = t;
            time[size] = at;
            node[size] = n;
            weight[size++] = w;
        }

        void into(Timeline timeline) {
            starts[profiles] = size;
            int[] head = Arrays.copyOf(starts, profiles);
            for (int added = 0; added < size; added++) {
                int best = -1;
                for (int k = 0; k < profiles; k++) {
                    if (head[k] < starts[k + 1] && (best < 0 || time[head[k]] < time[head[best]])) {
                        best = k;
                    }
                }
                int i = head[best]++;
                timeline.add(thread[i], 0, time[i], 0, node[i], weight[i]);
            }
        }
    }
}
