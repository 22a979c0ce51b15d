package org.stackfold.format.tachyon;

import java.nio.charset.StandardCharsets;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameKind;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;
import org.stackfold.model.Timeline;

/**
 * Feeds any profile to a {@link TachyonWriter}. With a {@link Timeline} each sample keeps its
 * thread, interpreter, time and status; without one, each stack's count becomes that many samples
 * one interval apart. A root frame {@code tid:N} (as CPython's collapsed output and Stackfold's
 * Tachyon reader write) becomes the thread id rather than a frame. Frames without a file get the
 * file {@code ~} and no location, which CPython shows as the bare name, as it does {@code <GC>}.
 */
final class ProfileToTachyon {
    private static final byte[] TILDE = {'~'};

    private ProfileToTachyon() {
    }

    static void feed(Profile p, TachyonWriter w, long start, long interval) {
        CallTree tree = p.tree();
        FrameTable frames = p.frames();
        long[] threadOfRoot = new long[frames.size()];
        boolean[] isThreadRoot = new boolean[frames.size()];
        for (int f = 0; f < frames.size(); f++) {
            String n = frames.name(f);
            if (n.startsWith("tid:") && !frames.hasLocation(f)) {
                try {
                    threadOfRoot[f] = Long.parseUnsignedLong(n.substring(4));
                    isThreadRoot[f] = true;
                } catch (NumberFormatException e) {
                    // an ordinary frame that happens to start with "tid:"
                }
            }
        }
        int[] stack = new int[Tachyon.MAX_STACK_DEPTH];
        Timeline tl = p.timeline();
        if (tl != null && tl.unitWeights()) {
            for (int i = 0; i < tl.size(); i++) {
                int d = innermostFirst(tree, tl.node(i), stack, isThreadRoot);
                w.sample(tl.threadId(i), tl.interpreterId(i), tl.status(i), tl.timestamp(i), stack, d);
            }
            return;
        }
        long t = start;
        for (int n = 1; n < tree.size(); n++) {
            long c = tree.self(n);
            if (c <= 0) {
                continue;
            }
            int d = innermostFirst(tree, n, stack, isThreadRoot);
            long tid = 0;
            int root = n;
            while (tree.parent(root) != CallTree.ROOT) {
                root = tree.parent(root);
            }
            if (isThreadRoot[tree.frame(root)]) {
                tid = threadOfRoot[tree.frame(root)];
            }
            for (long k = 0; k < c; k++) {
                t += interval;
                w.sample(tid, 0, 0, t, stack, d);
            }
        }
    }

    /** The frames of a node's stack, innermost first, without a thread root; the innermost 256 at most. */
    private static int innermostFirst(CallTree tree, int node, int[] out, boolean[] isThreadRoot) {
        int d = 0;
        for (int m = node; m != CallTree.ROOT && d < out.length; m = tree.parent(m)) {
            int f = tree.frame(m);
            if (tree.parent(m) == CallTree.ROOT && isThreadRoot[f]) {
                break;
            }
            out[d++] = f;
        }
        return d;
    }

    static FrameSource frames(FrameTable t) {
        return new FrameSource() {
            @Override
            public byte[] file(int f) {
                String file = t.file(f);
                return file == null ? TILDE : file.getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public byte[] function(int f) {
                return t.nameBytes(f);
            }

            @Override
            public int line(int f) {
                return t.line(f);
            }

            @Override
            public int endLine(int f) {
                return t.endLine(f);
            }

            @Override
            public int column(int f) {
                return t.column(f);
            }

            @Override
            public int endColumn(int f) {
                return t.endColumn(f);
            }

            @Override
            public int opcode(int f) {
                int op = t.opcode(f);
                return op == FrameTable.NONE || t.kind(f) == FrameKind.UNKNOWN && !t.hasLocation(f)
                        ? Tachyon.NO_OPCODE : op;
            }
        };
    }
}
