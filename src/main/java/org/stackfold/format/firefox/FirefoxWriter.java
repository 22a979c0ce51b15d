package org.stackfold.format.firefox;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;
import org.stackfold.model.Timeline;

/**
 * Writes a profile as a Firefox profiler processed profile (version {@value #VERSION}, the layout
 * CPython's {@code --gecko} writes: per-thread tables, {@code shared.stringArray}), which
 * profiler.firefox.com opens and upgrades to its current version.
 *
 * <ul>
 *   <li>A profile whose {@link Timeline} accounts for every count becomes one thread per timeline
 *       thread (named, in order of first appearance), its samples in time order at their times.
 *   <li>Otherwise one thread, {@code profile}, with one sample per distinct stack weighted by its
 *       count (column 0; a differential profile's "after").
 *   <li>Time-valued weights (nanoseconds ... seconds) are written as {@code tracing-ms} weights in
 *       milliseconds, so the profiler's call tree shows time; counts as {@code samples} weights.
 *   <li>A frame is a function: name, file, line and column where known. Each thread's stack table
 *       holds the stacks its samples use and their prefixes, parents first.
 * </ul>
 * Streamed with jackson-core, which escapes every name.
 */
final class FirefoxWriter {
    static final int VERSION = 57;
    private static final JsonFactory JSON = JsonFactory.builder().build();

    private final Map<String, Integer> stringIndex = new HashMap<>();
    private final List<String> strings = new ArrayList<>();

    void write(Profile profile, String name, OutputStream out) throws IOException {
        CallTree tree = profile.tree();
        int column = tree.weights() - 1;
        Profile.ValueType vt = profile.valueTypes().get(column);
        double toMs = msPerUnit(vt.unit());
        Timeline tl = profile.timeline();
        boolean timed = tl != null && tl.size() > 0 && !tree.isDifferential() && covers(tl, tree);
        try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.writeStartObject();
            meta(g, name);
            g.writeArrayFieldStart("libs");
            g.writeEndArray();
            g.writeArrayFieldStart("pages");
            g.writeEndArray();
            g.writeArrayFieldStart("threads");
            if (timed) {
                writeTimeline(g, profile, tl, toMs);
            } else {
                writeAggregate(g, profile, column, toMs);
            }
            g.writeEndArray();
            g.writeObjectFieldStart("shared");
            g.writeArrayFieldStart("stringArray");
            for (String s : strings) {
                g.writeString(s);
            }
            g.writeEndArray();
            g.writeEndObject();
            g.writeEndObject();
        }
    }

    /** Milliseconds in one unit, or NaN where the unit is not a time. */
    private static double msPerUnit(String unit) {
        return switch (unit) {
            case "nanoseconds" -> 1e-6;
            case "microseconds" -> 1e-3;
            case "milliseconds" -> 1;
            case "seconds" -> 1000;
            default -> Double.NaN;
        };
    }

    /** True where every node's count equals the weights of the timeline samples on it. */
    private static boolean covers(Timeline tl, CallTree tree) {
        long[] sum = new long[tree.size()];
        for (int i = 0; i < tl.size(); i++) {
            int node = tl.node(i);
            if (node < 0 || node >= sum.length) {
                return false;
            }
            sum[node] += tl.weight(i);
        }
        for (int i = 0; i < sum.length; i++) {
            if (sum[i] != tree.self(i)) {
                return false;
            }
        }
        return true;
    }

    private int string(String s) {
        Integer known = stringIndex.get(s);
        if (known != null) {
            return known;
        }
        stringIndex.put(s, strings.size());
        strings.add(s);
        return strings.size() - 1;
    }

    private static void meta(JsonGenerator g, String name) throws IOException {
        g.writeObjectFieldStart("meta");
        g.writeNumberField("interval", 1);
        g.writeNumberField("startTime", 0);
        g.writeNumberField("processType", 0);
        g.writeStringField("product", name);
        g.writeNumberField("stackwalk", 0);
        g.writeNumberField("version", 32);
        g.writeNumberField("preprocessedProfileVersion", VERSION);
        g.writeStringField("importedFrom", "stackfold");
        g.writeBooleanField("symbolicated", true);
        g.writeArrayFieldStart("categories");
        g.writeStartObject();
        g.writeStringField("name", "Other");
        g.writeStringField("color", "grey");
        g.writeArrayFieldStart("subcategories");
        g.writeString("Other");
        g.writeEndArray();
        g.writeEndObject();
        g.writeEndArray();
        g.writeArrayFieldStart("markerSchema");
        g.writeEndArray();
        g.writeEndObject();
    }

    private void writeTimeline(JsonGenerator g, Profile profile, Timeline tl, double weightMs) throws IOException {
        // Threads in order of first appearance; each thread's samples keep the timeline's order.
        Map<Long, Integer> index = new HashMap<>();
        int[] threadOf = new int[tl.size()];
        long[] ids = new long[16];
        int[] counts = new int[16];
        long first = Long.MAX_VALUE;
        for (int i = 0; i < tl.size(); i++) {
            Integer k = index.get(tl.threadId(i));
            if (k == null) {
                k = index.size();
                index.put(tl.threadId(i), k);
                if (k == ids.length) {
                    ids = Arrays.copyOf(ids, k * 2);
                    counts = Arrays.copyOf(counts, k * 2);
                }
                ids[k] = tl.threadId(i);
            }
            threadOf[i] = k;
            counts[k]++;
            first = Math.min(first, tl.timestamp(i));
        }
        double tickMs = msPerUnit(tl.timeUnit());
        for (int k = 0; k < index.size(); k++) {
            int[] samples = new int[counts[k]];
            int n = 0;
            for (int i = 0; i < tl.size(); i++) {
                if (threadOf[i] == k) {
                    samples[n++] = i;
                }
            }
            String threadName = tl.threadName(ids[k]);
            int[] nodes = new int[n];
            double[] times = new double[n];
            double[] weights = new double[n];
            for (int j = 0; j < n; j++) {
                int i = samples[j];
                nodes[j] = tl.node(i);
                long rel = tl.timestamp(i) - first;
                times[j] = Double.isNaN(tickMs) ? rel : rel * tickMs;
                weights[j] = Double.isNaN(weightMs) ? tl.weight(i) : tl.weight(i) * weightMs;
            }
            boolean unit = Double.isNaN(weightMs) && tl.unitWeights();
            thread(g, profile, threadName != null ? threadName : "thread " + ids[k], Long.toString(ids[k]), k == 0,
                    nodes, times, unit ? null : weights, Double.isNaN(weightMs) ? "samples" : "tracing-ms");
        }
    }

    private void writeAggregate(JsonGenerator g, Profile profile, int column, double weightMs) throws IOException {
        CallTree tree = profile.tree();
        tree.sortChildren(profile.frames());
        int[] order = new int[tree.size()];
        int[] count = new int[1];
        tree.walk((node, depth) -> {
            if (tree.self(node, column) != 0) {
                order[count[0]++] = node;
            }
        });
        int n = count[0];
        int[] nodes = Arrays.copyOf(order, n);
        double[] times = new double[n];
        double[] weights = new double[n];
        for (int j = 0; j < n; j++) {
            times[j] = j;
            long w = tree.self(nodes[j], column);
            weights[j] = Double.isNaN(weightMs) ? w : w * weightMs;
        }
        thread(g, profile, "profile", "0", true, nodes, times, weights, Double.isNaN(weightMs) ? "samples" : "tracing-ms");
    }

    private void thread(JsonGenerator g, Profile profile, String name, String tid, boolean main, int[] nodes,
                        double[] times, double[] weights, String weightType) throws IOException {
        CallTree tree = profile.tree();
        FrameTable frames = profile.frames();
        // The stacks these samples use and their prefixes, in node order: a parent is made before its children.
        boolean[] used = new boolean[tree.size()];
        for (int node : nodes) {
            for (int x = node; x != CallTree.ROOT && !used[x]; x = tree.parent(x)) {
                used[x] = true;
            }
        }
        int[] stackOf = new int[tree.size()];
        int[] frameOf = new int[frames.size()];
        Arrays.fill(frameOf, -1);
        List<Integer> frameIds = new ArrayList<>();
        int stacks = 0;
        int[] stackFrame = new int[tree.size()];
        int[] stackPrefix = new int[tree.size()];
        int[] order = preorder(tree, used);
        for (int x : order) {
            int f = tree.frame(x);
            if (frameOf[f] < 0) {
                frameOf[f] = frameIds.size();
                frameIds.add(f);
            }
            int parent = tree.parent(x);
            stackFrame[stacks] = frameOf[f];
            stackPrefix[stacks] = parent == CallTree.ROOT ? -1 : stackOf[parent];
            stackOf[x] = stacks++;
        }
        g.writeStartObject();
        g.writeStringField("name", name);
        g.writeBooleanField("isMainThread", main);
        g.writeStringField("processType", "default");
        g.writeStringField("processName", "stackfold");
        g.writeNumberField("processStartupTime", 0);
        g.writeNullField("processShutdownTime");
        g.writeNumberField("registerTime", 0);
        g.writeNullField("unregisterTime");
        g.writeArrayFieldStart("pausedRanges");
        g.writeEndArray();
        g.writeStringField("pid", "0");
        g.writeStringField("tid", tid);

        g.writeObjectFieldStart("samples");
        g.writeArrayFieldStart("stack");
        for (int node : nodes) {
            g.writeNumber(node == CallTree.ROOT ? -1 : stackOf[node]);
        }
        g.writeEndArray();
        g.writeArrayFieldStart("time");
        for (double t : times) {
            g.writeNumber(t);
        }
        g.writeEndArray();
        if (weights == null) {
            g.writeNullField("weight");
        } else {
            g.writeArrayFieldStart("weight");
            for (double w : weights) {
                if (w == Math.rint(w) && Math.abs(w) < 1e15) {
                    g.writeNumber((long) w);
                } else {
                    g.writeNumber(w);
                }
            }
            g.writeEndArray();
        }
        g.writeStringField("weightType", weightType);
        g.writeNumberField("length", nodes.length);
        g.writeEndObject();

        g.writeObjectFieldStart("stackTable");
        g.writeFieldName("frame");
        g.writeArray(stackFrame, 0, stacks);
        g.writeArrayFieldStart("prefix");
        for (int i = 0; i < stacks; i++) {
            if (stackPrefix[i] < 0) {
                g.writeNull();
            } else {
                g.writeNumber(stackPrefix[i]);
            }
        }
        g.writeEndArray();
        g.writeNumberField("length", stacks);
        g.writeEndObject();

        int nFrames = frameIds.size();
        g.writeObjectFieldStart("frameTable");
        constant(g, "address", nFrames, -1);
        constant(g, "inlineDepth", nFrames, 0);
        constant(g, "category", nFrames, 0);
        constant(g, "subcategory", nFrames, 0);
        g.writeArrayFieldStart("func");
        for (int i = 0; i < nFrames; i++) {
            g.writeNumber(i);
        }
        g.writeEndArray();
        nulls(g, "nativeSymbol", nFrames);
        nulls(g, "innerWindowID", nFrames);
        nulls(g, "implementation", nFrames);
        g.writeArrayFieldStart("line");
        for (int f : frameIds) {
            numberOrNull(g, frames.line(f));
        }
        g.writeEndArray();
        g.writeArrayFieldStart("column");
        for (int f : frameIds) {
            numberOrNull(g, frames.column(f));
        }
        g.writeEndArray();
        g.writeNumberField("length", nFrames);
        g.writeEndObject();

        g.writeObjectFieldStart("funcTable");
        g.writeArrayFieldStart("name");
        for (int f : frameIds) {
            g.writeNumber(string(frames.name(f)));
        }
        g.writeEndArray();
        g.writeArrayFieldStart("isJS");
        for (int f : frameIds) {
            g.writeBoolean(frames.file(f) != null);
        }
        g.writeEndArray();
        g.writeArrayFieldStart("relevantForJS");
        for (int i = 0; i < nFrames; i++) {
            g.writeBoolean(false);
        }
        g.writeEndArray();
        constant(g, "resource", nFrames, -1);
        g.writeArrayFieldStart("fileName");
        for (int f : frameIds) {
            String file = frames.file(f);
            if (file == null) {
                g.writeNull();
            } else {
                g.writeNumber(string(file));
            }
        }
        g.writeEndArray();
        g.writeArrayFieldStart("lineNumber");
        for (int f : frameIds) {
            numberOrNull(g, frames.line(f));
        }
        g.writeEndArray();
        g.writeArrayFieldStart("columnNumber");
        for (int f : frameIds) {
            numberOrNull(g, frames.column(f));
        }
        g.writeEndArray();
        g.writeNumberField("length", nFrames);
        g.writeEndObject();

        g.writeObjectFieldStart("resourceTable");
        for (String c : List.of("lib", "name", "host", "type")) {
            g.writeArrayFieldStart(c);
            g.writeEndArray();
        }
        g.writeNumberField("length", 0);
        g.writeEndObject();
        g.writeObjectFieldStart("nativeSymbols");
        for (String c : List.of("libIndex", "address", "name", "functionSize")) {
            g.writeArrayFieldStart(c);
            g.writeEndArray();
        }
        g.writeNumberField("length", 0);
        g.writeEndObject();
        g.writeObjectFieldStart("markers");
        for (String c : List.of("data", "name", "startTime", "endTime", "phase", "category")) {
            g.writeArrayFieldStart(c);
            g.writeEndArray();
        }
        g.writeNumberField("length", 0);
        g.writeEndObject();
        g.writeEndObject();
    }

    /** The used nodes, each after its parent (depth first from the root). */
    private static int[] preorder(CallTree tree, boolean[] used) {
        int[] out = new int[tree.size()];
        int[] n = new int[1];
        tree.walk((node, depth) -> {
            if (node != CallTree.ROOT && used[node]) {
                out[n[0]++] = node;
            }
        });
        return Arrays.copyOf(out, n[0]);
    }

    private static void constant(JsonGenerator g, String field, int n, int value) throws IOException {
        g.writeArrayFieldStart(field);
        for (int i = 0; i < n; i++) {
            g.writeNumber(value);
        }
        g.writeEndArray();
    }

    private static void nulls(JsonGenerator g, String field, int n) throws IOException {
        g.writeArrayFieldStart(field);
        for (int i = 0; i < n; i++) {
            g.writeNull();
        }
        g.writeEndArray();
    }

    private static void numberOrNull(JsonGenerator g, int v) throws IOException {
        if (v == FrameTable.NONE) {
            g.writeNull();
        } else {
            g.writeNumber(v);
        }
    }
}
