package org.stackfold.render.viewer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameKind;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;
import org.stackfold.model.Timeline;

/**
 * The profile as the viewer page reads it. One function is one frame of the page: frames of the model
 * that differ only in their kind or line (JFR's interpreted, compiled and inlined variants of a method)
 * are merged into one, as are their sibling nodes, and the kinds become a breakdown of the function
 * (its colour is its heaviest kind). Encoded as one deflated stream of unsigned LEB128 numbers (what
 * {@code data.mjs} decodes into typed arrays), never an object per node. Sections, in order:
 * <ol>
 *   <li>frames: count, then per frame its UTF-8 name (length, bytes), kind ordinal, file index + 1
 *       (0: none) and line + 1 (0: none); frames are numbered in order of first use below;</li>
 *   <li>files: count, then each UTF-8 name (length, bytes);</li>
 *   <li>kind breakdowns: count, then per function that ran as more than one kind (a JFR method seen
 *       interpreted, JIT-compiled and inlined) its frame, the number of kinds and per kind its ordinal
 *       and weight (the total of the samples through it as that kind, a recursive call counted once);</li>
 *   <li>nodes: count (the virtual root included), the root's self count(s), then per node in
 *       preorder how many levels it climbs from the node before it (0 = child of that node), its
 *       frame and self count(s) (two for a differential profile: before, after); siblings come
 *       heaviest first (by the last column), so the page can draw the left-heavy graph as is;</li>
 *   <li>timeline: sample count (0 when the profile has none), thread count and each thread id as
 *       text, then per sample its node, thread index, time as a zigzag delta from the sample
 *       before, status bits and weight (and before-weight in a differential timeline).</li>
 *   <li>lines (the source view): count of functions with lines, then per function its frame and number
 *       of lines, and per line the line + 1, its self and its total weight (the samples at that line of
 *       the function; a recursive call counted once), over the whole profile (last column);</li>
 *   <li>sources: count, then per file its index in the files section and its text (UTF-8), for the
 *       files the caller could read ({@link #sourceFiles}: the page shows line numbers alone for the
 *       others).</li>
 * </ol>
 * Preorder plus climb counts give parents for free and keep the numbers small: 200,000 stacks of
 * 2.9 million nodes encode in about 8 MB before base64.
 */
public final class ViewerData {
    private final Profile profile;
    private final byte[] deflated;
    private final int nodes;

    private ViewerData(Profile profile, byte[] deflated, int nodes) {
        this.profile = profile;
        this.deflated = deflated;
        this.nodes = nodes;
    }

    /** Encodes a profile (plain or differential, with or without a timeline). */
    public static ViewerData of(Profile profile) throws IOException {
        return of(profile, Map.of());
    }

    /**
     * Encodes a profile with the text of source files it names (file name as in the profile -> text),
     * for the source view; files without text are shown as line numbers alone.
     */
    public static ViewerData of(Profile profile, Map<String, String> sources) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(1 << 16);
        Deflater deflater = new Deflater(6, true);
        int count;
        try (Varints out = new Varints(new DeflaterOutputStream(bytes, deflater, 1 << 16))) {
            Encoder e = new Encoder(profile, out);
            e.sources = sources;
            count = e.encode();
        } finally {
            deflater.end();
        }
        return new ViewerData(profile, bytes.toByteArray(), count);
    }

    /** The raw-deflated stream (RFC 1951). */
    public byte[] deflated() {
        return deflated;
    }

    /**
     * The profile's frame ids in the order the page numbers its frames (first use in the page's
     * preorder): frame {@code i} of a viewer URL's transforms is {@code frameOrder(p)[i]} of the same
     * profile ({@code --transforms}, docs/transforms.md).
     */
    public static int[] frameOrder(Profile profile) {
        return new Encoder(profile, null).frameOrder();
    }

    /**
     * What makes model frames one function of the page (one name, one page frame): their name and file;
     * kinds and lines differ inside a function (a JFR method interpreted and compiled, say).
     */
    public static String functionKey(FrameTable frames, int frame) {
        String file = frames.file(frame);
        String name = pageName(frames, frame);
        return file == null ? name : name + '\u0000' + file;
    }

    /**
     * The kind a frame of no known kind is marked with by a trailing tag of perf's and async-profiler's
     * folded names ({@code _[k]} kernel, {@code _[j]} JIT, {@code _[i]} inlined), or null.
     */
    static FrameKind taggedKind(FrameTable frames, int frame) {
        if (frames.kind(frame) != FrameKind.UNKNOWN) {
            return null;
        }
        byte[] n = frames.nameBytes(frame);
        int l = n.length;
        if (l < 5 || n[l - 4] != '_' || n[l - 3] != '[' || n[l - 1] != ']') {
            return null;
        }
        return switch (n[l - 2]) {
            case 'k' -> FrameKind.KERNEL;
            case 'j' -> FrameKind.JIT;
            case 'i' -> FrameKind.INLINED;
            default -> null;
        };
    }

    /**
     * The frame's name as the page shows it: without a kind tag ({@link #taggedKind}), and without the
     * {@code :LINE} that JFR's and pprof's {@code --lines} append (the line is the frame's own: the
     * lines of a function are one function of the page, with its lines in the source view).
     */
    static String pageName(FrameTable frames, int frame) {
        String name = frames.name(frame);
        if (taggedKind(frames, frame) != null) {
            return name.substring(0, name.length() - 4);
        }
        int line = frames.line(frame);
        if (line != FrameTable.NONE) {
            String suffix = ":" + line;
            if (name.endsWith(suffix) && name.length() > suffix.length()) {
                return name.substring(0, name.length() - suffix.length());
            }
        }
        return name;
    }

    private static byte[] pageNameBytes(FrameTable frames, int frame) {
        byte[] raw = frames.nameBytes(frame);
        String name = pageName(frames, frame);
        return name.length() == frames.name(frame).length() ? raw : name.getBytes(StandardCharsets.UTF_8);
    }

    /** The frame's kind as the page shows it: a tag's where its name carries one. */
    static FrameKind pageKind(FrameTable frames, int frame) {
        FrameKind k = taggedKind(frames, frame);
        return k != null ? k : frames.kind(frame);
    }

    /** The files named by frames that carry a line: those whose text the source view can show. */
    public static java.util.Set<String> sourceFiles(Profile profile) {
        FrameTable frames = profile.frames();
        java.util.Set<String> files = new java.util.TreeSet<>();
        for (int f = 0; f < frames.size(); f++) {
            String file = frames.file(f);
            if (file != null && frames.line(f) != FrameTable.NONE) {
                files.add(file);
            }
        }
        return files;
    }

    /** Nodes encoded, the virtual root included. */
    public int nodes() {
        return nodes;
    }

    public Profile profile() {
        return profile;
    }

    /** The walk that writes the sections; frame ids are renumbered in order of first use. */
    private static final class Encoder {
        private final Profile profile;
        private final CallTree tree;
        private final FrameTable frames;
        private final Varints out;
        private final int columns;
        private final long[] sortKey;
        /** Model frame -> function (the page's frame); identity when no two frames merge. */
        private int[] fnOf;
        /** Per function: a model frame that names it, its kind ordinal, its line (NONE where its frames differ). */
        private int[] fnFrame;
        private int[] fnKind;
        private int[] fnLine;
        /** Model node -> node of {@link #tree} (null when the tree is the model's). */
        private int[] nodeMap;
        /** File name -> text, for the source view. */
        Map<String, String> sources = Map.of();
        /** File name -> its index in the files section. */
        private final Map<String, Integer> fileIndex = new HashMap<>();
        /** Function -> weight per kind ordinal, for functions of more than one kind. */
        private final Map<Integer, long[]> kindParts = new java.util.TreeMap<>();

        Encoder(Profile profile, Varints out) {
            this.profile = profile;
            this.frames = profile.frames();
            this.out = out;
            this.tree = functions(profile.tree());
            this.columns = tree.weights();
            long[] last = tree.totals(columns - 1);
            if (columns == 2) {
                // A frame that vanished (after = 0) still has a place, after every frame that remains.
                long[] before = tree.totals(0);
                for (int n = 0; n < last.length; n++) {
                    if (last[n] == 0 && before[n] != 0) {
                        last[n] = -1;
                    }
                }
            }
            this.sortKey = last;
        }

        /**
         * The page's frames in order of first use, each as the model frame that names its function
         * (frames of one function, same name and file, are one page frame).
         */
        int[] frameOrder() {
            int[] order = new int[tree.size()];
            int count = preorder(order, new int[tree.size()]);
            int[] newFrame = new int[fnFrame.length];
            Arrays.fill(newFrame, -1);
            int[] frameOrder = new int[fnFrame.length];
            int used = 0;
            for (int i = 1; i < count; i++) {
                int fn = tree.frame(order[i]);
                if (newFrame[fn] < 0) {
                    newFrame[fn] = used;
                    frameOrder[used++] = fnFrame[fn];
                }
            }
            return Arrays.copyOf(frameOrder, used);
        }

        /**
         * The model's tree with frames of one function (same name and file) merged. Kind breakdowns
         * are summed over the model's nodes: a node counts for its frame's kind unless an ancestor is
         * the same model frame (recursion counted once).
         */
        private CallTree functions(CallTree model) {
            int nf = frames.size();
            fnOf = new int[nf];
            Map<String, Integer> byKey = new HashMap<>();
            int[] rep = new int[Math.max(1, nf)];
            int[] kindMask = new int[Math.max(1, nf)];
            int[] line = new int[Math.max(1, nf)];
            int count = 0;
            for (int f = 0; f < nf; f++) {
                String key = functionKey(frames, f);
                Integer fn = byKey.putIfAbsent(key, count);
                if (fn == null) {
                    fn = count++;
                    rep[fn] = f;
                    line[fn] = frames.line(f);
                } else if (line[fn] != frames.line(f)) {
                    line[fn] = FrameTable.NONE;
                }
                fnOf[f] = fn;
                kindMask[fn] |= 1 << pageKind(frames, f).ordinal();
            }
            fnFrame = Arrays.copyOf(rep, count);
            fnLine = Arrays.copyOf(line, count);
            fnKind = new int[count];
            for (int fn = 0; fn < count; fn++) {
                fnKind[fn] = pageKind(frames, rep[fn]).ordinal();
            }
            if (count == nf) {
                return model; // every frame its own function: nothing to merge
            }
            long[] totals = model.totals(model.weights() - 1);
            int kinds = FrameKind.values().length;
            for (int fn = 0; fn < count; fn++) {
                if (Integer.bitCount(kindMask[fn]) > 1) {
                    kindParts.put(fn, new long[kinds]);
                }
            }
            // Preorder walk with a count of each model frame on the stack: a frame's total counts once a stack.
            int[] onStack = new int[nf];
            model.walk(new CallTree.Visitor() {
                @Override
                public void enter(int c, int depth) {
                    int f = model.frame(c);
                    long[] parts = kindParts.get(fnOf[f]);
                    if (parts != null && onStack[f] == 0) {
                        parts[pageKind(frames, f).ordinal()] += totals[c];
                    }
                    onStack[f]++;
                }

                @Override
                public void exit(int c, int depth) {
                    onStack[model.frame(c)]--;
                }
            });
            kindParts.forEach((fn, parts) -> {
                int best = fnKind[fn];
                for (int k = 0; k < parts.length; k++) {
                    if (parts[k] > parts[best]) {
                        best = k;
                    }
                }
                fnKind[fn] = best;
            });
            kindParts.values().removeIf(parts -> Arrays.stream(parts).filter(w -> w > 0).count() < 2);
            CallTree merged = new CallTree(model.weights());
            nodeMap = new int[model.size()];
            for (int n = 1; n < model.size(); n++) {
                int node = merged.child(nodeMap[model.parent(n)], fnOf[model.frame(n)]);
                nodeMap[n] = node;
                for (int c = 0; c < model.weights(); c++) {
                    long w = model.self(n, c);
                    if (w != 0) {
                        merged.addSelf(node, c, w);
                    }
                }
            }
            for (int c = 0; c < model.weights(); c++) {
                long w = model.self(CallTree.ROOT, c);
                if (w != 0) {
                    merged.addSelf(CallTree.ROOT, c, w);
                }
            }
            return merged;
        }

        int encode() throws IOException {
            int[] order = new int[tree.size()];
            int[] climb = new int[tree.size()];
            int count = preorder(order, climb);
            int[] newFrame = new int[fnFrame.length];
            Arrays.fill(newFrame, -1);
            int[] frameOrder = new int[fnFrame.length];
            int used = 0;
            for (int i = 1; i < count; i++) {
                int f = tree.frame(order[i]);
                if (newFrame[f] < 0) {
                    newFrame[f] = used;
                    frameOrder[used++] = f;
                }
            }
            writeFrames(frameOrder, used);
            int parts = 0;
            for (int fn : kindParts.keySet()) {
                parts += newFrame[fn] >= 0 ? 1 : 0;
            }
            out.write(parts);
            for (Map.Entry<Integer, long[]> e : kindParts.entrySet()) {
                if (newFrame[e.getKey()] < 0) {
                    continue;
                }
                out.write(newFrame[e.getKey()]);
                long[] w = e.getValue();
                out.write(Arrays.stream(w).filter(x -> x > 0).count());
                for (int k = 0; k < w.length; k++) {
                    if (w[k] > 0) {
                        out.write(k);
                        out.write(w[k]);
                    }
                }
            }
            out.write(count);
            for (int c = 0; c < columns; c++) {
                out.write(tree.self(CallTree.ROOT, c));
            }
            for (int i = 1; i < count; i++) {
                int n = order[i];
                out.write(climb[i]);
                out.write(newFrame[tree.frame(n)]);
                for (int c = 0; c < columns; c++) {
                    out.write(tree.self(n, c));
                }
            }
            writeTimeline(order, count);
            writeLines(newFrame);
            return count;
        }

        /** Live nodes in preorder, heaviest sibling first; climb[i] = depth(i - 1) + 1 - depth(i). */
        private int preorder(int[] order, int[] climb) {
            boolean[] live = tree.live();
            int[] stack = new int[64];
            int[] depthOf = new int[64];
            int sp = 0;
            int count = 0;
            int prevDepth = -1;
            stack[sp] = CallTree.ROOT;
            depthOf[sp++] = 0;
            int[] kids = new int[16];
            while (sp > 0) {
                int n = stack[--sp];
                int d = depthOf[sp];
                order[count] = n;
                climb[count] = count == 0 ? 0 : prevDepth + 1 - d;
                count++;
                prevDepth = d;
                int k = 0;
                for (int c = tree.firstChild(n); c != 0; c = tree.nextSibling(c)) {
                    if (live[c]) {
                        if (k == kids.length) {
                            kids = Arrays.copyOf(kids, k * 2);
                        }
                        kids[k++] = c;
                    }
                }
                sortHeaviestFirst(kids, k);
                if (sp + k > stack.length) {
                    stack = Arrays.copyOf(stack, Math.max(stack.length * 2, sp + k));
                    depthOf = Arrays.copyOf(depthOf, stack.length);
                }
                // Pushed lightest first so the heaviest is popped (visited) first.
                for (int i = k - 1; i >= 0; i--) {
                    stack[sp] = kids[i];
                    depthOf[sp++] = d + 1;
                }
            }
            return count;
        }

        /** Insertion sort for the usual few children, a keyed sort for many. */
        private void sortHeaviestFirst(int[] kids, int k) {
            if (k < 24) {
                for (int i = 1; i < k; i++) {
                    int x = kids[i];
                    int j = i - 1;
                    while (j >= 0 && heavier(x, kids[j])) {
                        kids[j + 1] = kids[j];
                        j--;
                    }
                    kids[j + 1] = x;
                }
                return;
            }
            Integer[] boxed = new Integer[k];
            for (int i = 0; i < k; i++) {
                boxed[i] = kids[i];
            }
            Arrays.sort(boxed, (a, b) -> heavier(a, b) ? -1 : heavier(b, a) ? 1 : 0);
            for (int i = 0; i < k; i++) {
                kids[i] = boxed[i];
            }
        }

        private boolean heavier(int a, int b) {
            return sortKey[a] > sortKey[b] || (sortKey[a] == sortKey[b] && a < b);
        }

        /**
         * Per function of the page, its lines' self and total weights, from the model's nodes (whose
         * frames keep their lines); then the text of the files given. A line's total counts a node
         * unless the same model frame is on the stack above it (recursion counted once).
         */
        private void writeLines(int[] newFrame) throws IOException {
            int nf = frames.size();
            boolean any = false;
            for (int f = 0; f < nf && !any; f++) {
                any = frames.line(f) != FrameTable.NONE;
            }
            java.util.TreeMap<Integer, java.util.TreeMap<Integer, long[]>> byFn = new java.util.TreeMap<>();
            if (any) {
                CallTree model = profile.tree();
                int col = model.weights() - 1;
                long[] totals = model.totals(col);
                int[] onStack = new int[nf];
                model.walk(new CallTree.Visitor() {
                    @Override
                    public void enter(int c, int depth) {
                        int f = model.frame(c);
                        int line = frames.line(f);
                        int page = newFrame[fnOf[f]];
                        if (line != FrameTable.NONE && page >= 0 && totals[c] != 0) {
                            long[] w = byFn.computeIfAbsent(page, k -> new java.util.TreeMap<>())
                                    .computeIfAbsent(line, k -> new long[2]);
                            w[0] += model.self(c, col);
                            if (onStack[f] == 0) {
                                w[1] += totals[c];
                            }
                        }
                        onStack[f]++;
                    }

                    @Override
                    public void exit(int c, int depth) {
                        onStack[model.frame(c)]--;
                    }
                });
            }
            out.write(byFn.size());
            for (Map.Entry<Integer, java.util.TreeMap<Integer, long[]>> e : byFn.entrySet()) {
                out.write(e.getKey());
                out.write(e.getValue().size());
                for (Map.Entry<Integer, long[]> l : e.getValue().entrySet()) {
                    out.write(l.getKey() + 1L);
                    out.write(Math.max(0, l.getValue()[0]));
                    out.write(Math.max(0, l.getValue()[1]));
                }
            }
            java.util.List<Map.Entry<String, String>> texts = new java.util.ArrayList<>();
            for (Map.Entry<String, String> e : new java.util.TreeMap<>(sources).entrySet()) {
                if (fileIndex.containsKey(e.getKey())) {
                    texts.add(e);
                }
            }
            out.write(texts.size());
            for (Map.Entry<String, String> e : texts) {
                out.write(fileIndex.get(e.getKey()));
                out.bytes(e.getValue().getBytes(StandardCharsets.UTF_8));
            }
        }

        private void writeFrames(int[] frameOrder, int used) throws IOException {
            java.util.List<String> files = new java.util.ArrayList<>();
            out.write(used);
            for (int i = 0; i < used; i++) {
                int fn = frameOrder[i];
                int f = fnFrame[fn];
                out.bytes(pageNameBytes(frames, f));
                out.write(fnKind[fn]);
                String file = frames.file(f);
                if (file == null) {
                    out.write(0);
                } else {
                    out.write(fileIndex.computeIfAbsent(file, x -> {
                        files.add(x);
                        return files.size() - 1;
                    }) + 1);
                }
                out.write(fnLine[fn] == FrameTable.NONE ? 0 : fnLine[fn] + 1L);
            }
            out.write(files.size());
            for (String f : files) {
                out.bytes(f.getBytes(StandardCharsets.UTF_8));
            }
        }

        private void writeTimeline(int[] order, int count) throws IOException {
            Timeline tl = profile.timeline();
            if (tl == null || tl.size() == 0) {
                out.write(0);
                return;
            }
            int[] index = new int[tree.size()];
            Arrays.fill(index, -1);
            for (int i = 0; i < count; i++) {
                index[order[i]] = i;
            }
            if (nodeMap != null) {
                // The timeline points at the model's nodes: through the merge to this tree's.
                int[] merged = new int[nodeMap.length];
                for (int n = 0; n < nodeMap.length; n++) {
                    merged[n] = index[nodeMap[n]];
                }
                index = merged;
            }
            int kept = 0;
            for (int i = 0; i < tl.size(); i++) {
                if (index[tl.node(i)] >= 0) {
                    kept++;
                }
            }
            out.write(kept);
            Map<Long, Integer> threads = new HashMap<>();
            java.util.List<Long> ids = new java.util.ArrayList<>();
            for (int i = 0; i < tl.size(); i++) {
                threads.computeIfAbsent(tl.threadId(i), t -> {
                    ids.add(t);
                    return ids.size() - 1;
                });
            }
            out.write(ids.size());
            for (long t : ids) {
                // The thread's name where the format has one (JFR, perf.data's comm), with its id.
                String name = tl.threadName(t);
                String id = Long.toUnsignedString(t);
                out.bytes((name == null ? id : name + " (" + id + ")").getBytes(StandardCharsets.UTF_8));
            }
            out.write(tl.isDifferential() ? 1 : 0);
            long prev = 0;
            for (int i = 0; i < tl.size(); i++) {
                int n = index[tl.node(i)];
                if (n < 0) {
                    continue;
                }
                out.write(n);
                out.write(threads.get(tl.threadId(i)));
                long t = tl.timestamp(i);
                long delta = t - prev;
                out.write((delta << 1) ^ (delta >> 63));
                prev = t;
                out.write(tl.status(i) & 0xFFFFFFFFL);
                out.write(tl.weight(i));
                if (tl.isDifferential()) {
                    out.write(tl.before(i));
                }
            }
        }
    }

    /** Unsigned LEB128 numbers into a buffered stream. */
    private static final class Varints implements AutoCloseable {
        private final OutputStream out;
        private final byte[] buf = new byte[1 << 16];
        private int pos;

        Varints(OutputStream out) {
            this.out = out;
        }

        void write(long v) throws IOException {
            if (pos > buf.length - 10) {
                flush();
            }
            while ((v & ~0x7FL) != 0) {
                buf[pos++] = (byte) ((v & 0x7F) | 0x80);
                v >>>= 7;
            }
            buf[pos++] = (byte) v;
        }

        void bytes(byte[] b) throws IOException {
            write(b.length);
            flush();
            out.write(b);
        }

        private void flush() throws IOException {
            out.write(buf, 0, pos);
            pos = 0;
        }

        @Override
        public void close() throws IOException {
            flush();
            out.close();
        }
    }
}
