package org.stackfold.format.folded;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.stackfold.model.ByteStringPool;
import org.stackfold.model.CallTree;
import org.stackfold.model.DistinctStacks;
import org.stackfold.model.FrameKind;
import org.stackfold.model.FrameTable;
import org.stackfold.model.IndexSort;
import org.stackfold.model.Profile;

/**
 * Writes a profile as folded stacks: one line per stack with a non-zero count, frames joined by
 * {@code ;}, one space, the count (two counts for a differential profile), {@code \n}.
 *
 * <p>Lines come in unsigned byte order of the stack, the order {@code LC_ALL=C sort} gives and the
 * FlameGraph tools produce, from a depth-first walk: siblings are ranked as their names followed by
 * {@code ;} would sort, and the rare record that byte order puts before a sibling's subtree (stack
 * {@code a;x} before {@code a;x!;y}, whose frame {@code x!} sorts before {@code x;}) is written
 * early, when the walk reaches that sibling. A profile whose stacks are not yet a tree
 * ({@link Profile#pendingStacks}) is written in the same order without building one.
 */
public final class FoldedWriter {
    private final boolean differential;
    private final boolean trimNames;
    private final boolean annotate;
    private final boolean consume;

    /** Writes column 0 only, or both columns of a differential profile. */
    public FoldedWriter(boolean differential) {
        this(differential, true);
    }

    /**
     * {@code trimNames} false keeps white space at the ends of names, for byte-compatibility with
     * stackcollapse-perf.pl ({@code collapse perf --perl-compat}); names are made safe for folded
     * text either way ({@link FoldedNames}).
     */
    public FoldedWriter(boolean differential, boolean trimNames) {
        this(differential, trimNames, false, false);
    }

    private FoldedWriter(boolean differential, boolean trimNames, boolean annotate, boolean consume) {
        this.differential = differential;
        this.trimNames = trimNames;
        this.annotate = annotate;
        this.consume = consume;
    }

    /**
     * This writer marking frame kinds as async-profiler's and perf's Java collapse do: {@code _[k]}
     * kernel, {@code _[j]} JIT-compiled, {@code _[i]} inlined (a name that already ends with its tag
     * keeps one). Folded text has no other place for a kind.
     */
    public FoldedWriter annotatingKinds(boolean on) {
        return new FoldedWriter(differential, trimNames, on, consume);
    }

    /**
     * This writer allowed to consume the profile's call tree where frames must merge by name (a
     * caller that is done with the profile): the renamed tree is built as the old one is dropped,
     * so a tree of 20 million nodes is not held twice (`fold` of a 757 MB file in a 1 GiB heap).
     */
    public FoldedWriter consumingTree() {
        return new FoldedWriter(differential, trimNames, annotate, true);
    }

    /** The folded tag of a frame kind, or null. */
    static String tag(FrameKind k) {
        return switch (k) {
            case KERNEL -> "_[k]";
            case JIT -> "_[j]";
            case INLINED -> "_[i]";
            default -> null;
        };
    }

    public void write(Profile profile, OutputStream out) throws IOException {
        if (!differential && profile.pendingStacks() != null) {
            writeStacks(profile.frames(), profile.pendingStacks(), out);
            return;
        }
        if (differential && profile.tree().weights() < 2) {
            throw new IllegalArgumentException("not a differential profile");
        }
        profile = byName(profile, trimNames, annotate, consume);
        CallTree tree = profile.tree();
        FrameTable frames = profile.frames();
        // Siblings in the order "name;" sorts: a name before its extensions unless they go on below ';'.
        ByteStringPool names = frames.names();
        EarlyRecords early = new EarlyRecords(tree, frames);
        tree.sortChildren(frames.ranks((a, b) -> names.compareTerminated(frames.nameId(a), frames.nameId(b), ';')), early);
        Emitter emitter = new Emitter(frames, tree, new LineBuffer(out), differential, early.byAnchor);
        tree.walk(emitter);
        if (emitter.failure != null) {
            throw emitter.failure;
        }
        emitter.lines.flush();
    }

    /**
     * The same lines from distinct stacks that are not yet a call tree (a perf collapse's), with no
     * tree built: the stacks are sorted by their frames' names, each taken with what follows it in
     * the line, {@code ;} where the stack goes on and a byte below any a name holds where it ends.
     * That is the order of the tree walk with its early records: a stack's own line comes before
     * the lines of every longer name it is a prefix of. Stacks whose names are the same are one line.
     */
    private void writeStacks(FrameTable original, DistinctStacks stacks, OutputStream out) throws IOException {
        Renaming r = renaming(original, trimNames, annotate);
        FrameTable frames = r.frames();
        ByteStringPool names = frames.names();
        int nf = frames.size();
        // Each name twice, as (name ';') at 2f and (name, end) at 2f + 1, ranked together.
        int[] pairs = IndexSort.sorted(2 * nf, (x, y) -> names.compareTerminated(
                frames.nameId(x >> 1), (x & 1) == 0 ? ';' : 0, frames.nameId(y >> 1), (y & 1) == 0 ? ';' : 0));
        int[] goesOn = new int[nf];
        int[] ends = new int[nf];
        for (int rank = 0; rank < pairs.length; rank++) {
            int x = pairs[rank];
            (((x & 1) == 0) ? goesOn : ends)[x >> 1] = rank;
        }
        int[] map = r.map();
        int[] inner = new int[original.size()];
        int[] last = new int[original.size()];
        for (int f = 0; f < inner.length; f++) {
            int g = map == null ? f : map[f];
            inner[f] = goesOn[g];
            last[f] = ends[g];
        }
        DistinctStacks.Sorted sorted = stacks.sort(inner, last);
        long[] x = sorted.paths();
        int[] shared = sorted.shared();
        StackText text = new StackText(stacks, frames, map, new LineBuffer(out));
        long weight = 0;
        for (int i = 0; i < x.length; i++) {
            long p = x[i];
            int len = DistinctStacks.length(p);
            text.names(p, shared[i], len);
            weight = Math.addExact(weight, stacks.weight(p));
            if (i + 1 < x.length && shared[i + 1] == len && DistinctStacks.length(x[i + 1]) == len) {
                continue; // the next stack has the same names: one line
            }
            if (len > 0 && weight != 0) { // a stack without frames is the root: no line
                text.lines.line(len - 1, weight, false, 0);
            }
            weight = 0;
        }
        text.lines.flush();
    }

    /**
     * The line of the current stack, rewritten from the first frame it does not share with the one
     * before. A method of its own: writeStacks's loop runs once, and C1 compiled it once per loop
     * it entered (on-stack replacement) and once more whole.
     */
    private static final class StackText {
        private final DistinctStacks stacks;
        private final FrameTable frames;
        private final ByteStringPool names;
        private final int[] map;
        final LineBuffer lines;

        StackText(DistinctStacks stacks, FrameTable frames, int[] map, LineBuffer lines) {
            this.stacks = stacks;
            this.frames = frames;
            this.names = frames.names();
            this.map = map;
            this.lines = lines;
        }

        /** Frames {@code from} to {@code len} of path {@code p} into the line. */
        void names(long p, int from, int len) {
            for (int d = from; d < len; d++) {
                int f = stacks.frame(p, d);
                lines.name(d, names, frames.nameId(map == null ? f : map[f]));
            }
        }
    }

    /** Frames as folded text names them ({@link #renaming}): the table, and each frame's id in it (null: the same). */
    private record Renaming(FrameTable frames, int[] map) {
    }

    /**
     * Folded text knows only names: frames that differ in kind or location but share a name become
     * one frame, and so do names that differ only in what folded text cannot carry
     * ({@link FoldedNames}), so that no stack is written twice.
     */
    private static Renaming renaming(FrameTable f, boolean trim, boolean annotate) {
        byte[][] safe = FoldedNames.replacements(f.names(),
                trim ? FoldedNames.Rules.FOLDED : FoldedNames.Rules.KEEP_SPACE);
        boolean tagged = false;
        for (int frame = 0; annotate && frame < f.size() && !tagged; frame++) {
            tagged = tag(f.kind(frame)) != null;
        }
        if (safe == null && !tagged && f.size() == f.names().size()) {
            return new Renaming(f, null);
        }
        FrameTable renamed = new FrameTable();
        int[] map = new int[f.size()];
        boolean same = true;
        for (int frame = 0; frame < map.length; frame++) {
            byte[] name = safe != null && safe[f.nameId(frame)] != null ? safe[f.nameId(frame)] : f.nameBytes(frame);
            String tag = tagged ? tag(f.kind(frame)) : null;
            if (tag != null && !f.name(frame).endsWith(tag)) {
                byte[] t = tag.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                byte[] both = Arrays.copyOf(name, name.length + t.length);
                System.arraycopy(t, 0, both, name.length, t.length);
                name = both;
            }
            map[frame] = renamed.plain(name, 0, name.length);
            same &= map[frame] == frame;
        }
        return new Renaming(renamed, same ? null : map);
    }

    /** The profile with its frames renamed as {@link #renaming} says, its tree merged where names became one. */
    private static Profile byName(Profile p, boolean trim, boolean annotate, boolean consume) {
        Renaming r = renaming(p.frames(), trim, annotate);
        if (r.frames() == p.frames()) {
            return p;
        }
        if (r.map() == null) {
            return new Profile(r.frames(), p.tree(), p.valueTypes()); // no two frames became one: same tree
        }
        CallTree tree = consume ? p.tree().renamedConsuming(r.map()) : p.tree().renamed(r.map());
        return new Profile(r.frames(), tree, p.valueTypes());
    }

    /**
     * For every node whose own record must be written before an earlier sibling's subtree: the
     * sibling it must precede, mapped to those records in order (shorter names first). Found as the
     * siblings are sorted (one walk of the tree's lists, not two).
     */
    private static final class EarlyRecords implements CallTree.SortedSiblings {
        private static final int[] NONE = {};
        final Map<Integer, int[]> byAnchor = new HashMap<>();
        private final CallTree tree;
        private final FrameTable frames;
        private final ByteStringPool names;
        private int[] nameIds = new int[16];

        EarlyRecords(CallTree tree, FrameTable frames) {
            this.tree = tree;
            this.frames = frames;
            this.names = frames.names();
        }

        @Override
        public void sorted(int parent, int[] siblings, int k) {
            if (nameIds.length < k) {
                nameIds = new int[siblings.length];
            }
            int[] ids = nameIds;
            for (int i = 0; i < k; i++) {
                ids[i] = frames.nameId(tree.frame(siblings[i]));
            }
            for (int i = 1; i < k; i++) {
                int x = ids[i];
                if (!names.startsWith(ids[i - 1], x)) {
                    continue;
                }
                int j = i - 1;
                while (j > 0 && names.startsWith(ids[j - 1], x)) {
                    j--;
                }
                // Among records anchored at one sibling, shorter names (prefixes of longer ones)
                // first: inserted after those no longer than its own. Plain loops, no streams or
                // lambdas: their first use spins classes at run time, paid by one-shot commands.
                int[] list = byAnchor.getOrDefault(siblings[j], NONE);
                int length = names.length(x);
                int at = list.length;
                while (at > 0 && names.length(frames.nameId(tree.frame(list[at - 1]))) > length) {
                    at--;
                }
                int[] grown = new int[list.length + 1];
                System.arraycopy(list, 0, grown, 0, at);
                grown[at] = siblings[i];
                System.arraycopy(list, at, grown, at + 1, list.length - at);
                byAnchor.put(siblings[j], grown);
            }
        }
    }

    /** Builds each stack's bytes incrementally as the walk goes down, and writes the non-zero ones. */
    private static final class Emitter implements CallTree.Visitor {
        private final FrameTable frames;
        private final ByteStringPool names;
        private final CallTree tree;
        final LineBuffer lines;
        private final boolean differential;
        private final Map<Integer, int[]> early;
        /**
         * Per node, whether {@link #early} has records for it ({@link #ANCHOR}) or has it among
         * another's ({@link #EARLY}: written by then); null when there are none. Read for each node,
         * where boxed map lookups cost a tenth of the walk of a big tree.
         */
        private final byte[] marks;
        private static final byte ANCHOR = 1;
        private static final byte EARLY = 2;
        IOException failure;

        Emitter(FrameTable frames, CallTree tree, LineBuffer lines, boolean differential, Map<Integer, int[]> early) {
            this.frames = frames;
            this.names = frames.names();
            this.tree = tree;
            this.lines = lines;
            this.differential = differential;
            this.early = early;
            if (early.isEmpty()) {
                marks = null;
            } else {
                marks = new byte[tree.size()];
                for (Map.Entry<Integer, int[]> e : early.entrySet()) {
                    marks[e.getKey()] |= ANCHOR;
                    for (int x : e.getValue()) {
                        marks[x] |= EARLY;
                    }
                }
            }
        }

        @Override
        public void enter(int node, int depth) {
            if (failure != null) {
                return;
            }
            int mark = marks == null ? 0 : marks[node];
            if (mark != 0) {
                if ((mark & ANCHOR) != 0) {
                    for (int x : early.get(node)) {
                        record(x, depth);
                    }
                }
                if ((mark & EARLY) != 0) { // its record was written before an earlier sibling's subtree
                    setName(node, depth);
                    return;
                }
            }
            record(node, depth);
        }

        /** Puts the node's name at {@code depth} of the current path and writes its record if non-zero. */
        private void record(int node, int depth) {
            setName(node, depth);
            long a = tree.self(node, 0);
            long b = differential ? tree.self(node, 1) : 0;
            if (a != 0 || b != 0) {
                try {
                    lines.line(depth - 1, a, differential, b);
                } catch (IOException e) {
                    failure = e;
                }
            }
        }

        private void setName(int node, int depth) {
            lines.name(depth - 1, names, frames.nameId(tree.frame(node))); // the walk's depth 1 is the root frame
        }
    }

    /** The current stack's bytes and an output buffer written in large blocks. */
    private static final class LineBuffer {
        private final OutputStream out;
        private byte[] path = new byte[4096];
        private int[] ends = new int[64]; // the stack's byte end after each of its frames
        private final byte[] buf = new byte[1 << 16];
        private int used;

        LineBuffer(OutputStream out) {
            this.out = out;
        }

        /** Puts a name as frame {@code level} (0: the root) of the stack, after the frames before it. */
        void name(int level, ByteStringPool names, int nameId) {
            if (level >= ends.length) {
                ends = Arrays.copyOf(ends, Math.max(level + 1, ends.length * 2));
            }
            int start = level == 0 ? 0 : ends[level - 1] + 1;
            int len = start + names.length(nameId) + 1;
            if (len > path.length) {
                path = Arrays.copyOf(path, Math.max(len, path.length * 2));
            }
            if (level > 0) {
                path[start - 1] = ';';
            }
            ends[level] = names.copyTo(nameId, path, start);
        }

        /** Writes the stack down to frame {@code level}, then its count (two for a differential profile). */
        void line(int level, long a, boolean two, long b) throws IOException {
            write(path, ends[level]);
            put((byte) ' ');
            number(a);
            if (two) {
                put((byte) ' ');
                number(b);
            }
            put((byte) '\n');
        }

        private void write(byte[] src, int len) throws IOException {
            if (len > buf.length - used) {
                flush();
                if (len > buf.length) {
                    out.write(src, 0, len);
                    return;
                }
            }
            System.arraycopy(src, 0, buf, used, len);
            used += len;
        }

        private void put(byte c) throws IOException {
            if (used == buf.length) {
                flush();
            }
            buf[used++] = c;
        }

        private void number(long v) throws IOException {
            if (v < 0) {
                // Readers refuse negative counts, so none should arrive; one that does is a bug to
                // report, never digits of garbage ("main;foo +") in the output.
                throw new IllegalStateException("negative count " + v + " in a profile to write as folded stacks");
            }
            if (buf.length - used < 20) {
                flush();
            }
            if (v == 0) {
                buf[used++] = '0';
                return;
            }
            int digits = 0;
            for (long t = v; t != 0; t /= 10) {
                digits++;
            }
            int end = used + digits;
            for (int i = end - 1; i >= used; i--) {
                buf[i] = (byte) ('0' + v % 10);
                v /= 10;
            }
            used = end;
        }

        void flush() throws IOException {
            if (used > 0) {
                out.write(buf, 0, used);
                used = 0;
            }
            out.flush();
        }
    }
}
