package org.stackfold.format.speedscope;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;
import org.stackfold.model.Timeline;

/**
 * Writes a profile as a speedscope JSON file (https://www.speedscope.app/file-format-schema.json),
 * streamed with jackson-core.
 *
 * <ul>
 *   <li>Every frame of the frame table becomes a shared frame (name, file, line, column where
 *       known); frames that differ only in their kind share one.
 *   <li>A profile with a {@link Timeline} whose samples account for every count becomes one sampled
 *       profile per thread, samples in time order, weight 1 each: speedscope's time-order view then
 *       shows the real sequence.
 *   <li>Otherwise one sampled profile with one sample per distinct stack (depth first, siblings
 *       sorted by name) weighted by its count; a differential profile becomes two, "before" and
 *       "after".
 * </ul>
 */
public final class SpeedscopeWriter {
    static final String SCHEMA = "https://www.speedscope.app/file-format-schema.json";
    private static final JsonFactory JSON = JsonFactory.builder().build();

    private final String name;

    public SpeedscopeWriter(String name) {
        this.name = name == null ? "profile" : name;
    }

    public void write(Profile profile, OutputStream out) throws IOException {
        FrameTable frames = profile.frames();
        CallTree tree = profile.tree();
        try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.writeStartObject();
            g.writeStringField("$schema", SCHEMA);
            g.writeStringField("exporter", "stackfold");
            g.writeStringField("name", name);
            g.writeNumberField("activeProfileIndex", 0);
            g.writeObjectFieldStart("shared");
            g.writeArrayFieldStart("frames");
            // Frames that differ only in what speedscope cannot show (their kind) share one entry.
            int[] shared = new int[frames.size()];
            java.util.Map<java.util.List<Object>, Integer> seen = new java.util.HashMap<>();
            for (int f = 0; f < frames.size(); f++) {
                java.util.List<Object> key = java.util.Arrays.asList(frames.nameId(f), frames.file(f), frames.line(f),
                        frames.column(f));
                Integer known = seen.putIfAbsent(key, seen.size());
                if (known != null) {
                    shared[f] = known;
                    continue;
                }
                shared[f] = seen.size() - 1;
                g.writeStartObject();
                g.writeStringField("name", frames.name(f));
                String file = frames.file(f);
                if (file != null) {
                    g.writeStringField("file", file);
                }
                if (frames.line(f) != FrameTable.NONE) {
                    g.writeNumberField("line", frames.line(f));
                }
                if (frames.column(f) != FrameTable.NONE) {
                    g.writeNumberField("col", frames.column(f));
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
            g.writeArrayFieldStart("profiles");
            Timeline tl = profile.timeline();
            if (tl != null && tl.size() > 0 && !tree.isDifferential() && timelineCoversTree(tl, tree)) {
                writeTimeline(g, profile, tl, shared);
            } else {
                for (int c = 0; c < tree.weights(); c++) {
                    String pname = tree.isDifferential() ? (c == 0 ? "before" : "after") : name;
                    writeAggregate(g, profile, c, pname, shared);
                }
            }
            g.writeEndArray();
            g.writeEndObject();
        }
    }

    /** True where every node's count equals the number of timeline samples on it. */
    static boolean timelineCoversTree(Timeline tl, CallTree tree) {
        if (!tl.unitWeights()) {
            return false;
        }
        long[] n = new long[tree.size()];
        for (int i = 0; i < tl.size(); i++) {
            int node = tl.node(i);
            if (node < 0 || node >= n.length) {
                return false;
            }
            n[node]++;
        }
        for (int i = 0; i < n.length; i++) {
            if (n[i] != tree.self(i)) {
                return false;
            }
        }
        return true;
    }

    private static String unit(Profile.ValueType vt) {
        return switch (vt.unit()) {
            case "nanoseconds", "microseconds", "milliseconds", "seconds", "bytes" -> vt.unit();
            default -> "none";
        };
    }

    /** The stack of a node as shared-frame indices, root first. */
    private static int[] stack(CallTree tree, int node, int[] shared) {
        int[] s = tree.stack(node);
        for (int i = 0; i < s.length; i++) {
            s[i] = shared[s[i]];
        }
        return s;
    }

    private static void writeAggregate(JsonGenerator g, Profile profile, int column, String pname, int[] shared)
            throws IOException {
        CallTree tree = profile.tree();
        g.writeStartObject();
        g.writeStringField("type", "sampled");
        g.writeStringField("name", pname);
        g.writeStringField("unit", unit(profile.valueTypes().get(column)));
        g.writeNumberField("startValue", 0);
        // Depth-first order with sorted siblings: stable output for the same profile.
        int[] order = new int[tree.size()];
        int[] count = new int[1];
        tree.sortChildren(profile.frames());
        tree.walk((node, depth) -> {
            if (tree.self(node, column) != 0) {
                order[count[0]++] = node;
            }
        });
        long total = 0;
        for (int i = 0; i < count[0]; i++) {
            total = Math.addExact(total, tree.self(order[i], column));
        }
        g.writeNumberField("endValue", total);
        g.writeArrayFieldStart("samples");
        for (int i = 0; i < count[0]; i++) {
            int[] s = stack(tree, order[i], shared);
            g.writeArray(s, 0, s.length);
        }
        g.writeEndArray();
        g.writeArrayFieldStart("weights");
        for (int i = 0; i < count[0]; i++) {
            g.writeNumber(tree.self(order[i], column));
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    private static void writeTimeline(JsonGenerator g, Profile profile, Timeline tl, int[] shared) throws IOException {
        CallTree tree = profile.tree();
        // Threads in order of first appearance; a stable counting sort groups samples by thread and
        // keeps each thread's samples in time order.
        java.util.Map<Long, Integer> index = new java.util.HashMap<>();
        int[] threadOf = new int[tl.size()];
        int[] counts = new int[16];
        long[] ids = new long[16];
        for (int i = 0; i < tl.size(); i++) {
            long t = tl.threadId(i);
            Integer k = index.get(t);
            if (k == null) {
                k = index.size();
                index.put(t, k);
                if (k == counts.length) {
                    counts = Arrays.copyOf(counts, k * 2);
                    ids = Arrays.copyOf(ids, k * 2);
                }
                ids[k] = t;
            }
            threadOf[i] = k;
            counts[k]++;
        }
        int nThreads = index.size();
        int[] start = new int[nThreads + 1];
        for (int k = 0; k < nThreads; k++) {
            start[k + 1] = start[k] + counts[k];
        }
        int[] fill = Arrays.copyOf(start, nThreads);
        int[] order = new int[tl.size()];
        for (int i = 0; i < tl.size(); i++) {
            order[fill[threadOf[i]]++] = i;
        }
        int[][] stacks = new int[tree.size()][];
        String unit = unit(profile.valueTypes().getFirst());
        for (int k = 0; k < nThreads; k++) {
            g.writeStartObject();
            g.writeStringField("type", "sampled");
            String threadName = tl.threadName(ids[k]);
            g.writeStringField("name", threadName != null ? threadName : "thread " + ids[k]);
            g.writeStringField("unit", unit);
            g.writeNumberField("startValue", 0);
            g.writeNumberField("endValue", counts[k]);
            g.writeArrayFieldStart("samples");
            for (int j = start[k]; j < start[k + 1]; j++) {
                int node = tl.node(order[j]);
                if (stacks[node] == null) {
                    stacks[node] = stack(tree, node, shared);
                }
                g.writeArray(stacks[node], 0, stacks[node].length);
            }
            g.writeEndArray();
            g.writeArrayFieldStart("weights");
            for (int j = start[k]; j < start[k + 1]; j++) {
                g.writeNumber(1);
            }
            g.writeEndArray();
            g.writeEndObject();
        }
    }
}
