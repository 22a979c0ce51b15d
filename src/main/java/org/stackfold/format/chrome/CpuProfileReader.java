package org.stackfold.format.chrome;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.HashMap;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameKind;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/**
 * Reads a {@code .cpuprofile} ({@code {"nodes": [...], "startTime", "endTime", "samples": [...],
 * "timeDeltas": [...]}}) as speedscope's {@code importFromChromeCPUProfile} does:
 *
 * <ul>
 *   <li>Each node's stack is the node and its ancestors (by {@code children} lists or
 *       {@code parent} ids) up to, not including, a {@code (root)} or {@code (idle)} node or a
 *       node with url {@code native dummy.js}; {@code (program)} and {@code (garbage collector)}
 *       are put on top of the previous sample's stack instead of under their own parent.
 *   <li>Time: sample {@code i} is taken {@code timeDeltas[0] + ... + timeDeltas[i]} µs after the
 *       start (a time earlier than the latest seen counts as the latest); runs of equal samples
 *       are one; each run's stack gets the time up to the next run's, the last run none. Weights
 *       are microseconds.
 *   <li>Frames: {@code functionName}, or {@code (anonymous FILE:LINE)} / {@code (anonymous)};
 *       location url, line and column (made 1-based, as speedscope shows them).
 * </ul>
 *
 * Errors: invalid JSON (with its line), a sample naming no node (skipped, as speedscope skips it,
 * but counted in one warning), {@code samples} and {@code timeDeltas} of different lengths.
 */
final class CpuProfileReader {
    private static final JsonFactory JSON = JsonFactory.builder().build();

    // node columns, by position in "nodes"
    private int size;
    private long[] ids = new long[256];
    private int[] frame = new int[256];
    private long[] parentId = new long[256];
    private int[] kind = new int[256]; // 0 normal, 1 ignored (stops the stack), 2 on top of the previous stack
    private long[] samples = new long[1024];
    private int nSamples;
    private long[] deltas = new long[1024];
    private int nDeltas;

    Profile read(Input in) throws IOException {
        Profile profile = new Profile();
        try (InputStream s = in.stream(); JsonParser p = JSON.createParser(s)) {
            try {
                parse(p, profile.frames(), in.name());
            } catch (StreamReadException e) {
                throw InputException.atLine(in.name(), e.getLocation() == null ? 0 : e.getLocation().getLineNr(),
                        "cpuprofile: invalid JSON: " + e.getOriginalMessage());
            }
        }
        if (nDeltas != nSamples) {
            throw new InputException(in.name() + ": cpuprofile: " + nSamples + " samples but " + nDeltas
                    + " timeDeltas");
        }
        build(profile.tree());
        return profile;
    }

    private void parse(JsonParser p, FrameTable frames, String source) throws IOException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw InputException.atLine(source, p.currentLocation().getLineNr(), "cpuprofile: expected a JSON object");
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            switch (field) {
                case "nodes" -> {
                    expect(p, t, JsonToken.START_ARRAY, source, "\"nodes\" is not an array");
                    while (p.nextToken() == JsonToken.START_OBJECT) {
                        node(p, frames, source);
                    }
                }
                case "samples" -> {
                    expect(p, t, JsonToken.START_ARRAY, source, "\"samples\" is not an array");
                    while ((t = p.nextToken()) == JsonToken.VALUE_NUMBER_INT) {
                        if (nSamples == samples.length) {
                            samples = Arrays.copyOf(samples, nSamples * 2);
                        }
                        samples[nSamples++] = p.getLongValue();
                    }
                    expect(p, t, JsonToken.END_ARRAY, source, "a sample is not a whole number");
                }
                case "timeDeltas" -> {
                    expect(p, t, JsonToken.START_ARRAY, source, "\"timeDeltas\" is not an array");
                    while ((t = p.nextToken()) == JsonToken.VALUE_NUMBER_INT) {
                        if (nDeltas == deltas.length) {
                            deltas = Arrays.copyOf(deltas, nDeltas * 2);
                        }
                        deltas[nDeltas++] = p.getLongValue();
                    }
                    expect(p, t, JsonToken.END_ARRAY, source, "a time delta is not a whole number");
                }
                default -> p.skipChildren();
            }
        }
    }

    private static void expect(JsonParser p, JsonToken got, JsonToken want, String source, String what) {
        if (got != want) {
            throw InputException.atLine(source, p.currentLocation().getLineNr(), "cpuprofile: " + what);
        }
    }

    private void node(JsonParser p, FrameTable frames, String source) throws IOException {
        long id = Long.MIN_VALUE;
        long parent = Long.MIN_VALUE;
        String name = "";
        String url = "";
        int line = FrameTable.NONE;
        int column = FrameTable.NONE;
        long[] children = null;
        int nChildren = 0;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            switch (field) {
                case "id" -> id = p.getValueAsLong(Long.MIN_VALUE);
                case "parent" -> parent = p.getValueAsLong(Long.MIN_VALUE);
                case "children" -> {
                    if (t == JsonToken.START_ARRAY) {
                        children = new long[8];
                        while (p.nextToken() == JsonToken.VALUE_NUMBER_INT) {
                            if (nChildren == children.length) {
                                children = Arrays.copyOf(children, nChildren * 2);
                            }
                            children[nChildren++] = p.getLongValue();
                        }
                    } else {
                        p.skipChildren();
                    }
                }
                case "callFrame" -> {
                    while (t == JsonToken.START_OBJECT && p.nextToken() == JsonToken.FIELD_NAME) {
                        String f = p.currentName();
                        JsonToken v = p.nextToken();
                        switch (f) {
                            case "functionName" -> name = v == JsonToken.VALUE_STRING ? p.getText() : name;
                            case "url" -> url = v == JsonToken.VALUE_STRING ? p.getText() : url;
                            case "lineNumber" -> line = p.getValueAsInt(-1) + 1;
                            case "columnNumber" -> column = p.getValueAsInt(-1) + 1;
                            default -> p.skipChildren();
                        }
                    }
                    if (t != JsonToken.START_OBJECT) {
                        p.skipChildren();
                    }
                }
                default -> p.skipChildren();
            }
        }
        if (id == Long.MIN_VALUE) {
            throw InputException.atLine(source, p.currentLocation().getLineNr(), "cpuprofile: a node without an id");
        }
        grow();
        int i = size++;
        ids[i] = id;
        parentId[i] = parent;
        kind[i] = name.equals("(root)") || name.equals("(idle)") || url.equals("native dummy.js") ? 1
                : name.equals("(program)") || name.equals("(garbage collector)") ? 2 : 0;
        String shown = !name.isEmpty() ? name
                : !url.isEmpty() ? "(anonymous " + url.substring(url.lastIndexOf('/') + 1) + ":" + line + ")"
                : "(anonymous)";
        frame[i] = frames.frame(shown, FrameKind.UNKNOWN, url.isEmpty() ? null : url, line, FrameTable.NONE,
                column, FrameTable.NONE, FrameTable.NONE);
        if (children != null) {
            childLists.put(i, Arrays.copyOf(children, nChildren));
        }
    }

    private final HashMap<Integer, long[]> childLists = new HashMap<>();

    private void grow() {
        if (size == ids.length) {
            ids = Arrays.copyOf(ids, size * 2);
            frame = Arrays.copyOf(frame, size * 2);
            parentId = Arrays.copyOf(parentId, size * 2);
            kind = Arrays.copyOf(kind, size * 2);
        }
    }

    /** Replays the samples as speedscope does and adds each run's time to its stack. */
    private void build(CallTree tree) {
        NodeIndex index = new NodeIndex(ids, size);
        int[] parent = new int[size];
        for (int i = 0; i < size; i++) {
            parent[i] = parentId[i] == Long.MIN_VALUE ? -1 : index.get(parentId[i]);
        }
        childLists.forEach((node, children) -> {
            for (long c : children) {
                int ci = index.get(c);
                if (ci >= 0) {
                    parent[ci] = node;
                }
            }
        });
        // speedscope's sample list: runs of equal samples, and the last sample's node again at the end
        long elapsed = nDeltas > 0 ? deltas[0] : 0;
        long lastValid = elapsed;
        long last = Long.MIN_VALUE;
        boolean haveLast = false;
        long[] runNode = new long[Math.max(1, nSamples + 1)];
        long[] runTime = new long[Math.max(1, nSamples + 1)];
        int runs = 0;
        for (int i = 0; i < nSamples; i++) {
            long node = samples[i];
            if (!haveLast || node != last) {
                runNode[runs] = node;
                runTime[runs++] = Math.max(elapsed, lastValid);
                lastValid = Math.max(elapsed, lastValid);
            }
            if (i == nSamples - 1) {
                if (haveLast) {
                    runNode[runs] = last;
                    runTime[runs++] = Math.max(elapsed, lastValid);
                }
            } else {
                elapsed += deltas[i + 1];
                last = node;
                haveLast = true;
            }
        }
        // Each profile node's call-tree node is made once (its stack never changes), except where
        // a (program)/(garbage collector) node puts it on top of whatever ran before.
        int[] treeNode = new int[size];
        Arrays.fill(treeNode, -1);
        int current = CallTree.ROOT; // the open stack's call-tree node; ROOT = nothing open
        long openedAt = 0;
        int[] path = new int[64];
        for (int r = 0; r < runs; r++) {
            int top = index.get(runNode[r]);
            if (top < 0) {
                continue;
            }
            if (current != CallTree.ROOT && runTime[r] > openedAt) {
                tree.addSelf(current, runTime[r] - openedAt);
            }
            openedAt = runTime[r];
            if (treeNode[top] >= 0) {
                current = treeNode[top];
                continue;
            }
            int n = 0;
            boolean onPrevious = false;
            for (int node = top; node >= 0 && kind[node] != 1; node = parent[node]) {
                if (n == path.length) {
                    path = Arrays.copyOf(path, n * 2);
                }
                path[n++] = node;
                if (kind[node] == 2) {
                    onPrevious = true;
                    break;
                }
                if (n > size) {
                    throw new InputException("cpuprofile: the parent links of node " + ids[top] + " form a cycle");
                }
            }
            int t = onPrevious ? current : CallTree.ROOT;
            for (int k = n - 1; k >= 0; k--) {
                t = tree.child(t, frame[path[k]]);
            }
            if (!onPrevious) {
                treeNode[top] = t;
            }
            current = t;
        }
        if (current != CallTree.ROOT && runs > 0 && runTime[runs - 1] > openedAt) {
            tree.addSelf(current, runTime[runs - 1] - openedAt);
        }
    }

    /** Node id → position: an array where the ids are small and dense (as V8 numbers them), else a map. */
    private static final class NodeIndex {
        private final int[] dense;
        private final HashMap<Long, Integer> sparse;

        NodeIndex(long[] ids, int size) {
            long max = -1;
            boolean small = true;
            for (int i = 0; i < size; i++) {
                small &= ids[i] >= 0;
                max = Math.max(max, ids[i]);
            }
            if (small && max < 4L * size + 1024) {
                dense = new int[(int) max + 1];
                Arrays.fill(dense, -1);
                for (int i = 0; i < size; i++) {
                    dense[(int) ids[i]] = i;
                }
                sparse = null;
            } else {
                dense = null;
                sparse = new HashMap<>(size * 2);
                for (int i = 0; i < size; i++) {
                    sparse.put(ids[i], i);
                }
            }
        }

        int get(long id) {
            if (dense != null) {
                return id >= 0 && id < dense.length ? dense[(int) id] : -1;
            }
            return sparse.getOrDefault(id, -1);
        }
    }
}
