package org.stackfold.transform;

import java.util.Arrays;
import java.util.List;
import org.stackfold.model.CallTree;
import org.stackfold.model.DistinctStacks;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;
import org.stackfold.model.Timeline;

/**
 * Runs stack rules, in order, over every stack of a profile in one pass into a new call tree: the
 * stacks of a tree are its nodes with counts (in node order, which is creation order, so the new tree
 * is made in the order the old one was), a profile's pending {@link DistinctStacks} are taken as they
 * are (no tree is built for them). Consecutive rewritten stacks share their leading nodes without a
 * lookup. A timeline's samples follow their stacks (and go with a dropped one).
 */
final class StackPass {
    private StackPass() {
    }

    static Profile apply(Profile p, List<StackTransform> steps) {
        FrameTable frames = p.frames();
        StackRule[] rules = new StackRule[steps.size()];
        for (int i = 0; i < rules.length; i++) {
            rules[i] = steps.get(i).bind(frames);
        }
        Pass pass = new Pass(rules);
        DistinctStacks pending = p.pendingStacks();
        if (pending != null && p.timeline() == null) {
            CallTree out = new CallTree(1);
            pass.out = out;
            for (int i = 0; i < pending.size(); i++) {
                long d = pending.pathAt(i);
                int n = DistinctStacks.length(d);
                int[] buf = pass.buffer(n);
                for (int k = 0; k < n; k++) {
                    buf[k] = pending.frame(d, k);
                }
                int node = pass.place(n);
                if (node >= 0) {
                    out.addSelf(node, 0, pending.weight(d));
                }
            }
            return new Profile(frames, out, p.valueTypes());
        }
        CallTree t = p.tree();
        CallTree out = new CallTree(t.weights());
        pass.out = out;
        Timeline tl = p.timeline();
        boolean[] sampled = null;
        if (tl != null) {
            sampled = new boolean[t.size()];
            for (int i = 0; i < tl.size(); i++) {
                sampled[tl.node(i)] = true;
            }
        }
        int[] map = tl == null ? null : new int[t.size()];
        int[] depth = t.depths();
        for (int n = 0; n < t.size(); n++) {
            if (!hasSelf(t, n) && (sampled == null || !sampled[n])) {
                continue;
            }
            int d = depth[n];
            int[] buf = pass.buffer(d);
            int k = d;
            for (int m = n; m != CallTree.ROOT; m = t.parent(m)) {
                buf[--k] = t.frame(m);
            }
            int node = pass.place(d);
            if (map != null) {
                map[n] = node;
            }
            if (node >= 0) {
                for (int c = 0; c < t.weights(); c++) {
                    long s = t.self(n, c);
                    if (s != 0) {
                        out.addSelf(node, c, s);
                    }
                }
            }
        }
        Profile result = new Profile(frames, out, p.valueTypes());
        if (tl != null) {
            result.setTimeline(remap(tl, map));
        }
        return result;
    }

    /** The timeline with each sample at its stack's new node; samples of dropped stacks left out. */
    static Timeline remap(Timeline tl, int[] map) {
        Timeline r = new Timeline(tl.timeUnit());
        java.util.Set<Long> named = new java.util.HashSet<>();
        for (int i = 0; i < tl.size(); i++) {
            int node = map[tl.node(i)];
            if (node < 0) {
                continue;
            }
            long thread = tl.threadId(i);
            if (named.add(thread)) {
                r.nameThread(thread, tl.threadName(thread));
            }
            if (tl.isDifferential()) {
                r.add(thread, tl.interpreterId(i), tl.timestamp(i), tl.status(i), node, tl.before(i), tl.weight(i));
            } else {
                r.add(thread, tl.interpreterId(i), tl.timestamp(i), tl.status(i), node, tl.weight(i));
            }
        }
        return r;
    }

    static boolean hasSelf(CallTree t, int n) {
        for (int c = 0; c < t.weights(); c++) {
            if (t.self(n, c) != 0) {
                return true;
            }
        }
        return false;
    }

    /** The rules and the node path of the stack placed last. */
    private static final class Pass {
        private final StackRule[] rules;
        CallTree out;
        private int[] buf = new int[256];
        private int[] prevFrames = new int[256];
        private int[] prevNodes = new int[256];
        private int prevLength;

        Pass(StackRule[] rules) {
            this.rules = rules;
        }

        int[] buffer(int n) {
            if (buf.length < n) {
                buf = Arrays.copyOf(buf, Math.max(n, buf.length * 2));
            }
            return buf;
        }

        /** Rewrites buf[0, n) through every rule and returns its node in the new tree, or -1. */
        int place(int n) {
            for (StackRule r : rules) {
                n = r.rewrite(buf, n);
                if (n < 0) {
                    return -1;
                }
            }
            if (prevFrames.length < n) {
                prevFrames = Arrays.copyOf(prevFrames, Math.max(n, prevFrames.length * 2));
                prevNodes = Arrays.copyOf(prevNodes, prevFrames.length);
            }
            int shared = 0;
            int limit = Math.min(n, prevLength);
            while (shared < limit && prevFrames[shared] == buf[shared]) {
                shared++;
            }
            int node = shared == 0 ? CallTree.ROOT : prevNodes[shared - 1];
            for (int d = shared; d < n; d++) {
                node = out.child(node, buf[d]);
                prevFrames[d] = buf[d];
                prevNodes[d] = node;
            }
            prevLength = n;
            return node;
        }
    }
}
