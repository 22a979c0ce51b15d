package org.stackfold.format.tachyon;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameKind;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;
import org.stackfold.model.Timeline;

/**
 * Folds replayed samples into a call tree (and, when asked, a {@link Timeline}). Each thread keeps
 * the tree nodes of its current stack, so a changed stack costs only the frames that changed and a
 * run of repeated samples costs one addition.
 *
 * <p>Frames either keep everything the file knows (naming {@code raw}: function name, file, lines,
 * columns, opcode) or become their folded text (the other namings), so that frames with the same
 * text merge, as in CPython's collapsed output. Empty stacks (after dropping the profiler's own
 * frames) are not counted, as CPython's collectors do not count them.
 */
final class TreeBuilder implements SampleListener {
    private final TachyonFile file;
    private final TachyonOptions options;
    private final FrameTable frames;
    private final CallTree tree = new CallTree(1);
    private final Timeline timeline;
    private final int[] frameMap;
    private final boolean labelled;
    private int[][] paths = new int[16][];
    private boolean[] keep = new boolean[16];
    private final boolean checkStatus;
    private final boolean checkTime;
    private final long from;
    private final long to;

    private TreeBuilder(TachyonFile file, TachyonOptions options, boolean labelled) {
        this.file = file;
        this.options = options;
        this.labelled = labelled;
        this.frames = new FrameTable();
        this.timeline = options.timeline() ? new Timeline("microseconds") : null;
        this.checkStatus = options.filtersStatus();
        this.checkTime = options.filtersTime();
        this.from = options.fromMicros();
        this.to = options.toMicros();
        int n = file.frameCount();
        frameMap = new int[n];
        for (int f = 0; f < n; f++) {
            frameMap[f] = file.frameStringsValid(f) ? map(f) : -1;
        }
    }

    /**
     * Frames named by their folded text ({@link TachyonOptions#naming()}), or, for
     * {@link TachyonOptions.Naming#RAW}, frames with all their file data.
     */
    static TreeBuilder of(TachyonFile file, TachyonOptions options) {
        return new TreeBuilder(file, options, options.naming() != TachyonOptions.Naming.RAW);
    }

    private int map(int f) {
        byte[] fileName = file.string(file.frameFile(f));
        if (!options.keepInternal() && FrameLabels.isInternal(fileName)) {
            return -1;
        }
        byte[] func = file.string(file.frameFunc(f));
        if (labelled) {
            byte[] l = FrameLabels.label(options.naming(), fileName, func, file.frameLine(f));
            return frames.plain(l, 0, l.length);
        }
        int op = file.frameOpcode(f);
        return frames.frame(new String(func, StandardCharsets.UTF_8),
                FrameLabels.isSynthetic(fileName) ? FrameKind.SYNTHETIC : FrameKind.PYTHON,
                new String(fileName, StandardCharsets.UTF_8), file.frameLine(f), file.frameEndLine(f),
                file.frameColumn(f), file.frameEndColumn(f), op == Tachyon.NO_OPCODE ? FrameTable.NONE : op);
    }

    @Override
    public void threadStarted(TachyonThread t) {
        int o = t.ordinal();
        if (o >= paths.length) {
            paths = Arrays.copyOf(paths, o * 2);
            keep = Arrays.copyOf(keep, o * 2);
        }
        int[] path = new int[Tachyon.MAX_STACK_DEPTH + 1];
        if (options.perThread()) {
            String root = "tid:" + Long.toUnsignedString(t.threadId());
            path[0] = tree.child(CallTree.ROOT, labelled ? frames.plain(root) : frames.frame(root, FrameKind.SYNTHETIC));
        }
        paths[o] = path;
        keep[o] = options.keepsThread(t.threadId());
    }

    // A direct-mapped cache of (parent node, frame) -> child in front of the tree's own table:
    // stacks change a few frames at a time among a small working set, so most lookups hit here.
    private static final int CACHE_BITS = 14;
    private final long[] cacheKey = new long[1 << CACHE_BITS];
    private final int[] cacheChild = new int[1 << CACHE_BITS];

    private int child(int parent, int frame) {
        long key = ((long) parent << 32) | (frame & 0xFFFFFFFFL);
        int slot = (int) ((key * 0x9E3779B97F4A7C15L) >>> (64 - CACHE_BITS));
        if (cacheKey[slot] == key + 1) {
            return cacheChild[slot];
        }
        int c = tree.child(parent, frame);
        cacheKey[slot] = key + 1;
        cacheChild[slot] = c;
        return c;
    }

    @Override
    public void stackChanged(TachyonThread t, int kept) {
        int[] path = paths[t.ordinal()];
        int[] map = frameMap;
        int node = path[kept];
        for (int i = kept, d = t.depth(); i < d; i++) {
            int f = map[t.frame(i)];
            if (f >= 0) {
                node = child(node, f);
            }
            path[i + 1] = node;
        }
    }

    @Override
    public void samples(TachyonThread t, int status, long[] timestamps, int count) {
        int o = t.ordinal();
        if (!keep[o] || checkStatus && !options.keepsStatus(status)) {
            return;
        }
        int[] path = paths[o];
        int leaf = path[t.depth()];
        if (leaf == path[0]) {
            return; // nothing left of the stack
        }
        if (!checkTime && timeline == null) {
            tree.addSelf(leaf, count);
            return;
        }
        long start = file.startTime();
        long added = 0;
        for (int i = 0; i < count; i++) {
            long rel = timestamps[i] - start;
            if (checkTime && (rel < from || rel >= to)) {
                continue;
            }
            added++;
            if (timeline != null) {
                timeline.add(t.threadId(), t.interpreterId(), timestamps[i], status, leaf);
            }
        }
        if (added > 0) {
            tree.addSelf(leaf, added);
        }
    }

    CallTree tree() {
        return tree;
    }

    FrameTable frames() {
        return frames;
    }

    Profile profile() {
        Profile p = new Profile(frames, tree, java.util.List.of(Profile.ValueType.SAMPLES));
        if (timeline != null) {
            timeline.setSampleInterval(file.interval()); // microseconds, as the timeline's times
            p.setTimeline(timeline);
        }
        return p;
    }
}
