package org.stackfold.transform;

import org.stackfold.model.CallTree;
import org.stackfold.model.Profile;

/**
 * Keeps the {@code n} heaviest stacks (by the last weight column, the "after" side of a differential
 * profile, ties to the stack found first) and drops the rest. It needs every stack's weight before it
 * keeps any, so it is a pass of its own.
 */
public final class TopStacks implements Transform {
    private final int n;

    public TopStacks(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("--top-stacks must be 0 or more, not " + n);
        }
        this.n = n;
    }

    @Override
    public String describe() {
        return "--top-stacks " + n;
    }

    @Override
    public Profile apply(Profile p) {
        CallTree t = p.tree();
        int last = t.weights() - 1;
        int stacks = 0;
        for (int i = 1; i < t.size(); i++) {
            if (StackPass.hasSelf(t, i)) {
                stacks++;
            }
        }
        if (stacks <= n) {
            return p;
        }
        // Nodes by weight, heaviest first; ties keep node order.
        Integer[] order = new Integer[stacks];
        int k = 0;
        for (int i = 1; i < t.size(); i++) {
            if (StackPass.hasSelf(t, i)) {
                order[k++] = i;
            }
        }
        java.util.Arrays.sort(order, (a, b) -> {
            int c = Long.compare(Math.abs(t.self(b, last)), Math.abs(t.self(a, last)));
            return c != 0 ? c : Integer.compare(a, b);
        });
        boolean[] keep = new boolean[t.size()];
        for (int i = 0; i < n; i++) {
            keep[order[i]] = true;
        }
        CallTree out = new CallTree(t.weights());
        int[] to = new int[t.size()]; // new node + 1, 0 not made yet
        to[CallTree.ROOT] = CallTree.ROOT + 1;
        int[] chain = new int[64];
        int[] map = new int[t.size()];
        java.util.Arrays.fill(map, -1);
        for (int i = 1; i < t.size(); i++) {
            if (!keep[i]) {
                continue;
            }
            int depth = 0;
            for (int m = i; to[m] == 0; m = t.parent(m)) {
                if (depth == chain.length) {
                    chain = java.util.Arrays.copyOf(chain, depth * 2);
                }
                chain[depth++] = m;
            }
            while (depth > 0) {
                int m = chain[--depth];
                to[m] = out.child(to[t.parent(m)] - 1, t.frame(m)) + 1;
            }
            map[i] = to[i] - 1;
            for (int c = 0; c < t.weights(); c++) {
                out.addSelf(map[i], c, t.self(i, c));
            }
        }
        Profile result = new Profile(p.frames(), out, p.valueTypes());
        if (p.timeline() != null) {
            result.setTimeline(StackPass.remap(p.timeline(), map));
        }
        return result;
    }
}
