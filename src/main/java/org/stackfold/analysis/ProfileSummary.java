package org.stackfold.analysis;

import org.stackfold.model.CallTree;
import org.stackfold.model.Profile;

/** The numbers {@code stackfold info} prints for any profile, computed from its tree. */
public record ProfileSummary(long distinctStacks, long[] totals, int distinctFrames, int maxDepth,
                             double meanDepth, double sampleWeightedDepth, long nodes) {

    public static ProfileSummary of(Profile p) {
        CallTree t = p.tree();
        int[] depth = t.depths();
        long stacks = 0;
        long depthSum = 0;
        int max = 0;
        double weighted = 0;
        long[] totals = new long[t.weights()];
        for (int n = 1; n < t.size(); n++) {
            boolean any = false;
            long s0 = t.self(n, t.weights() - 1);
            for (int c = 0; c < t.weights(); c++) {
                long s = t.self(n, c);
                totals[c] = Math.addExact(totals[c], s);
                any |= s != 0;
            }
            if (any) {
                stacks++;
                depthSum += depth[n];
                max = Math.max(max, depth[n]);
                weighted += (double) s0 * depth[n];
            }
        }
        long last = totals[totals.length - 1];
        return new ProfileSummary(stacks, totals, p.frames().names().size(), max,
                stacks == 0 ? 0 : (double) depthSum / stacks, last == 0 ? 0 : weighted / last, t.size() - 1);
    }
}
