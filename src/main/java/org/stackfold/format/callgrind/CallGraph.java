package org.stackfold.format.callgrind;

import java.util.Arrays;
import org.stackfold.model.CallTree;

/**
 * A weighted call graph as callgrind describes it: per function its cost, and per caller → callee
 * edge the inclusive cost of those calls. Functions and edges keep the order they first carried a
 * cost, because the call tree made from them ({@link #addTo}) follows that order as speedscope does.
 */
final class CallGraph {
    private int nodes;
    private int[] frame = new int[64];
    /** Self cost plus the inclusive cost of every call made: speedscope's "total weight" of a function. */
    private long[] total = new long[64];
    private int[] firstEdge = new int[64];
    private int[] lastEdge = new int[64];
    private boolean[] called = new boolean[64];
    private final LongIntMap nodeOfFrame = new LongIntMap();

    private int edges;
    private int[] edgeCallee = new int[64];
    private long[] edgeCost = new long[64];
    private int[] nextEdge = new int[64];
    private final LongIntMap edgeOf = new LongIntMap();

    /** The graph node of a frame, made on its first cost. */
    int node(int frameId) {
        int n = nodeOfFrame.get(frameId);
        if (n >= 0) {
            return n;
        }
        if (nodes == frame.length) {
            int cap = nodes * 2;
            frame = Arrays.copyOf(frame, cap);
            total = Arrays.copyOf(total, cap);
            firstEdge = Arrays.copyOf(firstEdge, cap);
            lastEdge = Arrays.copyOf(lastEdge, cap);
            called = Arrays.copyOf(called, cap);
        }
        n = nodes++;
        frame[n] = frameId;
        firstEdge[n] = -1;
        lastEdge[n] = -1;
        nodeOfFrame.put(frameId, n);
        return n;
    }

    /** The sum of every self cost the file holds: no unfolding may give more. */
    private long selfSum;

    void addSelf(int node, long cost) {
        total[node] = Math.addExact(total[node], cost);
        selfSum = Math.addExact(selfSum, cost);
    }

    long selfSum() {
        return selfSum;
    }

    /** Each function a root with its self cost: the flat profile, where unfolding would invent cost. */
    void addFlatTo(CallTree tree, long multiplier) {
        long[] self = total.clone();
        for (int n = 0; n < nodes; n++) {
            for (int e = firstEdge[n]; e >= 0; e = nextEdge[e]) {
                self[n] -= edgeCost[e];
            }
            if (self[n] != 0) {
                tree.addSelf(tree.child(CallTree.ROOT, frame[n]), Math.multiplyExact(self[n], multiplier));
            }
        }
    }

    /** The largest total of a function: past 2^53 the unfolding's doubles are no longer exact. */
    long maxTotal() {
        long max = 0;
        for (int n = 0; n < nodes; n++) {
            max = Math.max(max, total[n]);
        }
        return max;
    }

    void addCall(int caller, int callee, long inclusiveCost) {
        long key = ((long) caller << 32) | callee;
        int e = edgeOf.get(key);
        if (e < 0) {
            if (edges == edgeCallee.length) {
                int cap = edges * 2;
                edgeCallee = Arrays.copyOf(edgeCallee, cap);
                edgeCost = Arrays.copyOf(edgeCost, cap);
                nextEdge = Arrays.copyOf(nextEdge, cap);
            }
            e = edges++;
            edgeCallee[e] = callee;
            nextEdge[e] = -1;
            if (lastEdge[caller] < 0) {
                firstEdge[caller] = e;
            } else {
                nextEdge[lastEdge[caller]] = e;
            }
            lastEdge[caller] = e;
            edgeOf.put(key, e);
            called[callee] = true;
        }
        edgeCost[e] = Math.addExact(edgeCost[e], inclusiveCost);
        total[caller] = Math.addExact(total[caller], inclusiveCost);
    }

    /**
     * Unfolds the graph into {@code tree} (column 0) as speedscope's callgrind importer does: every
     * function nobody calls is a root with its total cost; a child gets its parent's share of the
     * parent's total in the proportion of the edge's cost to the parent's total (every call of a
     * function is assumed to spend its time like the average call); a function already on the stack
     * is not entered again (its share stays with the caller); subtrees under 0.01% of the heaviest
     * function are dropped; weights are the differences of the rounded running sums.
     */
    void addTo(CallTree tree, double multiplier) {
        long max = 0;
        for (int n = 0; n < nodes; n++) {
            max = Math.max(max, total[n]);
        }
        double floor = 1e-4 * max;
        boolean[] onStack = new boolean[nodes];
        Walk w = new Walk(tree, multiplier);
        for (int root = 0; root < nodes; root++) {
            if (!called[root]) {
                w.visit(root, total[root], floor, onStack);
            }
        }
    }

    /** The depth-first walk with an explicit stack, so deep graphs cannot overflow the thread's. */
    private final class Walk {
        private final CallTree tree;
        private final double multiplier;
        private double cumulative;
        private int depth;
        private int[] node = new int[64];
        private int[] treeNode = new int[64];
        private int[] edge = new int[64];
        private double[] weight = new double[64];
        private double[] self = new double[64];
        private double[] before = new double[64];
        private long[] entered = new long[64];
        private long[] childrenTotal = new long[64];

        Walk(CallTree tree, double multiplier) {
            this.tree = tree;
            this.multiplier = multiplier;
        }

        void visit(int root, double rootWeight, double floor, boolean[] onStack) {
            if (!enter(root, rootWeight, floor, onStack, CallTree.ROOT)) {
                return;
            }
            while (depth > 0) {
                int d = depth - 1;
                int e = edge[d];
                if (e >= 0) {
                    edge[d] = nextEdge[e];
                    int callee = edgeCallee[e];
                    double share = weight[d] * ((double) edgeCost[e] / total[node[d]]);
                    before[d] = cumulative;
                    if (!enter(callee, share, floor, onStack, treeNode[d])) {
                        continue; // nothing of the share was used: it stays the caller's self
                    }
                    continue;
                }
                // leave node d
                onStack[node[d]] = false;
                cumulative += self[d];
                long left = Math.round(cumulative * multiplier);
                long nodeTotal = left - entered[d];
                tree.addSelf(treeNode[d], nodeTotal - childrenTotal[d]);
                depth--;
                if (depth > 0) {
                    int p = depth - 1;
                    self[p] -= cumulative - before[p];
                    childrenTotal[p] += nodeTotal;
                }
            }
        }

        private boolean enter(int n, double w, double floor, boolean[] onStack, int parentTreeNode) {
            if (onStack[n] || w < floor || total[n] == 0) {
                return false;
            }
            if (depth == node.length) {
                int cap = depth * 2;
                node = Arrays.copyOf(node, cap);
                treeNode = Arrays.copyOf(treeNode, cap);
                edge = Arrays.copyOf(edge, cap);
                weight = Arrays.copyOf(weight, cap);
                self = Arrays.copyOf(self, cap);
                before = Arrays.copyOf(before, cap);
                entered = Arrays.copyOf(entered, cap);
                childrenTotal = Arrays.copyOf(childrenTotal, cap);
            }
            int d = depth++;
            node[d] = n;
            treeNode[d] = tree.child(parentTreeNode, frame[n]);
            edge[d] = firstEdge[n];
            weight[d] = w;
            self[d] = w;
            entered[d] = Math.round(cumulative * multiplier);
            childrenTotal[d] = 0;
            onStack[n] = true;
            return true;
        }
    }
}
