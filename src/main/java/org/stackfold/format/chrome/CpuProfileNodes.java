package org.stackfold.format.chrome;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import org.stackfold.io.InputException;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameKind;
import org.stackfold.model.FrameTable;

/**
 * One V8 CPU profile as columns of primitives: its nodes (id, parent id, frame, kind), the
 * {@code children} links, samples and time deltas. Filled from a {@code .cpuprofile} or from the
 * {@code Profile}/{@code ProfileChunk}/{@code CpuProfile} events of a trace, then replayed into a
 * call tree by speedscope's rules ({@link #replay}).
 */
final class CpuProfileNodes {
    static final int NORMAL = 0;
    /** {@code (root)}, {@code (idle)}, {@code native dummy.js}: the stack stops below it. */
    static final int IGNORED = 1;
    /** {@code (program)}, {@code (garbage collector)}: put on top of the previous sample's stack. */
    static final int ON_PREVIOUS = 2;

    int size;
    long[] ids = new long[64];
    int[] frame = new int[64];
    long[] parentId = new long[64];
    byte[] kind = new byte[64];
    // children links as (parent position, child id) pairs
    int links;
    int[] linkParent = new int[64];
    long[] linkChild = new long[64];
    int nSamples;
    long[] samples = new long[256];
    int nDeltas;
    long[] deltas = new long[256];

    /** Reads one node object (the parser is on its START_OBJECT) and adds it. */
    void readNode(JsonParser p, FrameTable frames, String source, String format) throws IOException {
        long id = Long.MIN_VALUE;
        long parent = Long.MIN_VALUE;
        String name = "";
        String url = "";
        int line = FrameTable.NONE;
        int column = FrameTable.NONE;
        int firstLink = links;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            switch (field) {
                case "id" -> id = p.getValueAsLong(Long.MIN_VALUE);
                case "parent" -> parent = p.getValueAsLong(Long.MIN_VALUE);
                case "children" -> {
                    if (t == JsonToken.START_ARRAY) {
                        while (p.nextToken() == JsonToken.VALUE_NUMBER_INT) {
                            link(size, p.getLongValue());
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
            links = firstLink;
            throw InputException.atLine(source, p.currentLocation().getLineNr(), format + ": a node without an id");
        }
        if (size == ids.length) {
            int cap = size * 2;
            ids = Arrays.copyOf(ids, cap);
            frame = Arrays.copyOf(frame, cap);
            parentId = Arrays.copyOf(parentId, cap);
            kind = Arrays.copyOf(kind, cap);
        }
        int i = size++;
        ids[i] = id;
        parentId[i] = parent;
        kind[i] = (byte) (name.equals("(root)") || name.equals("(idle)") || url.equals("native dummy.js") ? IGNORED
                : name.equals("(program)") || name.equals("(garbage collector)") ? ON_PREVIOUS : NORMAL);
        String shown = !name.isEmpty() ? name
                : !url.isEmpty() ? "(anonymous " + url.substring(url.lastIndexOf('/') + 1) + ":" + line + ")"
                : "(anonymous)";
        frame[i] = frames.frame(shown, FrameKind.UNKNOWN, url.isEmpty() ? null : url, line, FrameTable.NONE,
                column, FrameTable.NONE, FrameTable.NONE);
    }

    private void link(int parentPosition, long child) {
        if (links == linkParent.length) {
            linkParent = Arrays.copyOf(linkParent, links * 2);
            linkChild = Arrays.copyOf(linkChild, links * 2);
        }
        linkParent[links] = parentPosition;
        linkChild[links++] = child;
    }

    void addSample(long node) {
        if (nSamples == samples.length) {
            samples = Arrays.copyOf(samples, nSamples * 2);
        }
        samples[nSamples++] = node;
    }

    void addDelta(long delta) {
        if (nDeltas == deltas.length) {
            deltas = Arrays.copyOf(deltas, nDeltas * 2);
        }
        deltas[nDeltas++] = delta;
    }

    /** Appends another part of the same profile (a trace's next {@code ProfileChunk}). */
    void append(CpuProfileNodes o) {
        int base = size;
        for (int i = 0; i < o.size; i++) {
            if (size == ids.length) {
                int cap = Math.max(64, size * 2);
                ids = Arrays.copyOf(ids, cap);
                frame = Arrays.copyOf(frame, cap);
                parentId = Arrays.copyOf(parentId, cap);
                kind = Arrays.copyOf(kind, cap);
            }
            ids[size] = o.ids[i];
            frame[size] = o.frame[i];
            parentId[size] = o.parentId[i];
            kind[size++] = o.kind[i];
        }
        for (int i = 0; i < o.links; i++) {
            link(base + o.linkParent[i], o.linkChild[i]);
        }
        for (int i = 0; i < o.nSamples; i++) {
            addSample(o.samples[i]);
        }
        for (int i = 0; i < o.nDeltas; i++) {
            addDelta(o.deltas[i]);
        }
    }

    /** Receives each run of samples: its call-tree node, its start (µs after the profile's start) and length. */
    interface Runs {
        void run(int treeNode, long start, long micros);
    }

    /**
     * Replays the samples as speedscope does, under {@code root} of {@code tree}: runs of equal
     * samples are one, each run's stack gets the time up to the next run's (the last run none).
     * Adds each run's time to its node and hands it to {@code runs} (may be null).
     */
    void replay(CallTree tree, int root, Runs runs) {
        int samplesUsed = Math.min(nSamples, nDeltas);
        NodeIndex index = new NodeIndex(ids, size);
        int[] parent = new int[size];
        for (int i = 0; i < size; i++) {
            parent[i] = parentId[i] == Long.MIN_VALUE ? -1 : index.get(parentId[i]);
        }
        for (int l = 0; l < links; l++) {
            int ci = index.get(linkChild[l]);
            if (ci >= 0) {
                parent[ci] = linkParent[l];
            }
        }
        // speedscope's sample list: runs of equal samples, and the last sample's node again at the end
        long elapsed = samplesUsed > 0 ? deltas[0] : 0;
        long lastValid = elapsed;
        long last = Long.MIN_VALUE;
        boolean haveLast = false;
        long[] runNode = new long[Math.max(1, samplesUsed + 1)];
        long[] runTime = new long[Math.max(1, samplesUsed + 1)];
        int nRuns = 0;
        for (int i = 0; i < samplesUsed; i++) {
            long node = samples[i];
            if (!haveLast || node != last) {
                runNode[nRuns] = node;
                runTime[nRuns++] = Math.max(elapsed, lastValid);
                lastValid = Math.max(elapsed, lastValid);
            }
            if (i == samplesUsed - 1) {
                if (haveLast) {
                    runNode[nRuns] = last;
                    runTime[nRuns++] = Math.max(elapsed, lastValid);
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
        int current = -1; // the open stack's call-tree node; -1 = nothing open
        long openedAt = 0;
        int[] path = new int[64];
        for (int r = 0; r < nRuns; r++) {
            int top = index.get(runNode[r]);
            if (top < 0) {
                continue;
            }
            close(tree, runs, current, openedAt, runTime[r]);
            openedAt = runTime[r];
            if (treeNode[top] >= 0) {
                current = treeNode[top];
                continue;
            }
            int n = 0;
            boolean onPrevious = false;
            for (int node = top; node >= 0 && kind[node] != IGNORED; node = parent[node]) {
                if (n == path.length) {
                    path = Arrays.copyOf(path, n * 2);
                }
                path[n++] = node;
                if (kind[node] == ON_PREVIOUS) {
                    onPrevious = true;
                    break;
                }
                if (n > size) {
                    throw new InputException("the parent links of node " + ids[top] + " form a cycle");
                }
            }
            int t = onPrevious && current >= 0 ? current : root;
            for (int k = n - 1; k >= 0; k--) {
                t = tree.child(t, frame[path[k]]);
            }
            if (n == 0) {
                current = -1; // a (root) or (idle) sample: nothing runs
                continue;
            }
            if (!onPrevious) {
                treeNode[top] = t;
            }
            current = t;
        }
        if (nRuns > 0) {
            close(tree, runs, current, openedAt, runTime[nRuns - 1]);
        }
    }

    private static void close(CallTree tree, Runs runs, int node, long from, long to) {
        if (node >= 0 && to > from) {
            tree.addSelf(node, to - from);
            if (runs != null) {
                runs.run(node, from, to - from);
            }
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
