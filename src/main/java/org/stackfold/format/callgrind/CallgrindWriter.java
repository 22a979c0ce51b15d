package org.stackfold.format.callgrind;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/**
 * Writes a profile as a callgrind file for KCachegrind/QCachegrind and {@code callgrind_annotate}.
 * A function is a frame's name and file ({@code ???} where none is known, as Valgrind writes it);
 * every weight column is an event. The call tree becomes a call graph:
 *
 * <ul>
 *   <li>a function's cost lines carry its self weight summed over every node of the tree;
 *   <li>a {@code calls=} edge from caller to callee carries, for each tree node of the callee under
 *       a node of the caller, that node's total weight, unless the callee is already on the node's
 *       stack (a recursive call), which adds nothing; its call count is the number of such nodes.
 * </ul>
 *
 * So the cost of the calls into a function is its inclusive weight counted once per stack, which is
 * how {@code callgrind_annotate --inclusive=yes} computes inclusive cost for a called function,
 * and a function nobody calls gets its self weight plus the cost of its calls, which is its total.
 * Positions are one {@code line} column, always 0: a profile's stacks carry no call-site lines.
 */
public final class CallgrindWriter {
    private final int columns;

    public CallgrindWriter(int columns) {
        this.columns = columns;
    }

    public void write(Profile profile, OutputStream raw) throws IOException {
        FrameTable frames = profile.frames();
        CallTree tree = profile.tree();
        Functions functions = new Functions(frames);
        long[][] totals = new long[columns][];
        for (int c = 0; c < columns; c++) {
            totals[c] = tree.totals(c);
        }
        Edges edges = new Edges(columns);
        int[] functionOfNode = new int[tree.size()];
        int[] active = new int[functions.count()];
        long[][] selfOfFunction = new long[columns][functions.count()];
        tree.walk(new CallTree.Visitor() {
            @Override
            public void enter(int node, int depth) {
                int f = functions.of(tree.frame(node));
                functionOfNode[node] = f;
                for (int c = 0; c < columns; c++) {
                    selfOfFunction[c][f] += tree.self(node, c);
                }
                int parent = tree.parent(node);
                if (parent != CallTree.ROOT) {
                    int e = edges.of(functionOfNode[parent], f);
                    edges.calls[e]++;
                    if (active[f] == 0) {
                        for (int c = 0; c < columns; c++) {
                            edges.cost[c][e] += totals[c][node];
                        }
                    }
                }
                active[f]++;
            }

            @Override
            public void exit(int node, int depth) {
                active[functionOfNode[node]]--;
            }
        });
        OutputStream out = new BufferedOutputStream(raw, 1 << 16);
        Text t = new Text(out);
        t.line("# callgrind format");
        t.line("version: 1");
        t.line("creator: stackfold");
        t.line("positions: line");
        t.line("events: " + eventNames(profile.valueTypes()));
        StringBuilder totalLine = new StringBuilder("totals:");
        for (int c = 0; c < columns; c++) {
            totalLine.append(' ').append(totals[c][CallTree.ROOT]);
        }
        t.line(totalLine.toString());
        int[] order = edges.byCaller(functions.count());
        int k = 0;
        for (int f = 0; f < functions.count(); f++) {
            t.line("");
            t.name("fl=", functions.fileName(functions.file(f)), t.fileIds);
            t.name("fn=", functions.name(f), t.fnIds);
            t.costs(selfOfFunction, f);
            for (; k < edges.size && edges.caller[order[k]] == f; k++) {
                int e = order[k];
                int callee = edges.callee[e];
                if (functions.file(callee) != functions.file(f)) {
                    t.name("cfi=", functions.fileName(functions.file(callee)), t.fileIds);
                }
                t.name("cfn=", functions.name(callee), t.fnIds);
                t.line("calls=" + edges.calls[e] + " 0");
                t.costs(edges.cost, e);
            }
        }
        out.flush();
    }

    private static String eventNames(List<Profile.ValueType> types) {
        Set<String> seen = new HashSet<>();
        List<String> names = new ArrayList<>();
        for (Profile.ValueType t : types) {
            String base = t.type().replaceAll("[^A-Za-z0-9_]", "_");
            if (base.isEmpty()) {
                base = "samples";
            }
            String name = base;
            for (int i = 2; !seen.add(name); i++) {
                name = base + "_" + i;
            }
            names.add(name);
        }
        return String.join(" ", names);
    }

    /** Functions (name, file) numbered in the order their first frame appears in the frame table. */
    private static final class Functions {
        private final int[] ofFrame;
        private final List<String> names = new ArrayList<>();
        private final List<Integer> files = new ArrayList<>();
        private final List<String> fileNames = new ArrayList<>();

        Functions(FrameTable frames) {
            ofFrame = new int[frames.size()];
            HashMap<String, Integer> fileIds = new HashMap<>();
            HashMap<List<Object>, Integer> ids = new HashMap<>();
            for (int fr = 0; fr < frames.size(); fr++) {
                String file = frames.file(fr);
                String fileName = file == null || file.isEmpty() ? "???" : file;
                int fileId = fileIds.computeIfAbsent(fileName, x -> {
                    fileNames.add(x);
                    return fileNames.size() - 1;
                });
                String name = frames.name(fr);
                ofFrame[fr] = ids.computeIfAbsent(List.of(name, fileId), x -> {
                    names.add(name);
                    files.add(fileId);
                    return names.size() - 1;
                });
            }
        }

        int of(int frame) {
            return ofFrame[frame];
        }

        int count() {
            return names.size();
        }

        String name(int f) {
            return names.get(f);
        }

        int file(int f) {
            return files.get(f);
        }

        String fileName(int fileId) {
            return fileNames.get(fileId);
        }
    }

    /** Caller → callee edges with their call counts and per-column costs. */
    private static final class Edges {
        private final LongIntMap index = new LongIntMap();
        int size;
        int[] caller = new int[64];
        int[] callee = new int[64];
        long[] calls = new long[64];
        long[][] cost;

        Edges(int columns) {
            cost = new long[columns][64];
        }

        int of(int from, int to) {
            long key = ((long) from << 32) | to;
            int e = index.get(key);
            if (e >= 0) {
                return e;
            }
            if (size == caller.length) {
                int cap = size * 2;
                caller = Arrays.copyOf(caller, cap);
                callee = Arrays.copyOf(callee, cap);
                calls = Arrays.copyOf(calls, cap);
                for (int c = 0; c < cost.length; c++) {
                    cost[c] = Arrays.copyOf(cost[c], cap);
                }
            }
            e = size++;
            caller[e] = from;
            callee[e] = to;
            index.put(key, e);
            return e;
        }

        /** Edge indexes grouped by caller (a counting sort), first-seen order within a caller. */
        int[] byCaller(int functions) {
            int[] start = new int[functions + 1];
            for (int e = 0; e < size; e++) {
                start[caller[e] + 1]++;
            }
            for (int f = 0; f < functions; f++) {
                start[f + 1] += start[f];
            }
            int[] order = new int[size];
            for (int e = 0; e < size; e++) {
                order[start[caller[e]]++] = e;
            }
            return order;
        }
    }

    /** Lines with name compression: a name is written in full once, then by its number. */
    private static final class Text {
        private final OutputStream out;
        final HashMap<String, Integer> fileIds = new HashMap<>();
        final HashMap<String, Integer> fnIds = new HashMap<>();

        Text(OutputStream out) {
            this.out = out;
        }

        void line(String s) throws IOException {
            out.write(s.getBytes(StandardCharsets.UTF_8));
            out.write('\n');
        }

        void name(String key, String value, HashMap<String, Integer> ids) throws IOException {
            Integer id = ids.get(value);
            if (id != null) {
                line(key + "(" + id + ")");
                return;
            }
            id = ids.size() + 1;
            ids.put(value, id);
            line(key + "(" + id + ") " + oneLine(value));
        }

        /** A name on one line: line breaks (which would end the line) as \xNN, as folded output writes them. */
        private static String oneLine(String name) {
            if (name.indexOf('\n') < 0 && name.indexOf('\r') < 0) {
                return name;
            }
            return name.replace("\n", "\\x0a").replace("\r", "\\x0d");
        }

        void costs(long[][] cost, int index) throws IOException {
            StringBuilder sb = new StringBuilder("0");
            for (long[] column : cost) {
                sb.append(' ').append(column[index]);
            }
            line(sb.toString());
        }
    }
}
