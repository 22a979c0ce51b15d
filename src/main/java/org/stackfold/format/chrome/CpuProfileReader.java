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
        HashMap<Long, Integer> index = new HashMap<>(size * 2);
        for (int i = 0; i < size; i++) {
            index.put(ids[i], i);
        }
        int[] parent = new int[size];
        for (int i = 0; i < size; i++) {
            Integer pi = parentId[i] == Long.MIN_VALUE ? null : index.get(parentId[i]);
            parent[i] = pi == null ? -1 : pi;
        }
        childLists.forEach((node, children) -> {
            for (long c : children) {
                Integer ci = index.get(c);
                if (ci != null) {
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
        int[] stack = new int[64]; // node positions, root first
        int depth = 0;
        int[] frames = new int[64];
        long openedAt = 0;
        boolean open = false;
        for (int r = 0; r < runs; r++) {
            Integer top = index.get(runNode[r]);
            if (top == null) {
                continue;
            }
            if (open && depth > 0) {
                add(tree, stack, depth, frames, runTime[r] - openedAt);
            }
            // the new stack: walk up from top; (program)/(gc) sit on the previous stack
            int[] path = new int[16];
            int n = 0;
            int base = 0; // frames of the previous stack kept under the new ones
            for (int node = top; node >= 0 && kind[node] != 1; ) {
                if (n == path.length) {
                    path = Arrays.copyOf(path, n * 2);
                }
                path[n++] = node;
                if (kind[node] == 2) {
                    base = depth;
                    break;
                }
                node = parent[node];
            }
            if (base + n > stack.length) {
                stack = Arrays.copyOf(stack, (base + n) * 2);
                frames = Arrays.copyOf(frames, (base + n) * 2);
            }
            for (int k = 0; k < n; k++) {
                stack[base + k] = path[n - 1 - k];
            }
            depth = base + n;
            openedAt = runTime[r];
            open = true;
        }
        if (open && depth > 0 && runs > 0) {
            add(tree, stack, depth, frames, runTime[runs - 1] - openedAt);
        }
    }

    private void add(CallTree tree, int[] stack, int depth, int[] frames, long micros) {
        if (micros <= 0) {
            return;
        }
        for (int k = 0; k < depth; k++) {
            frames[k] = frame[stack[k]];
        }
        tree.addSelf(tree.path(frames, 0, depth), micros);
    }
}
