package org.stackfold.render.flamegraph;

import org.stackfold.model.CallTree;

/**
 * What is left of the flame graph's own stack rewrites: {@code --normalize} of a differential tree.
 * {@code --reverse} and {@code --base} are transforms ({@code transform.Reverse},
 * {@code transform.BaseSymbols}) the command applies before rendering, or while reading folded input
 * ({@code format.folded.RewritingFoldedReader}); a renderer reads no files.
 */
public final class StackTransforms {
    private StackTransforms() {
    }

    /** Whether the options ask for stack rewrites (--reverse, --base) before layout. */
    public static boolean needed(FlameGraphOptions o) {
        return o.reverse || !o.base.isEmpty();
    }

    /**
     * difffolded.pl's {@code -n} on an already differential tree: scales the "before" column to the
     * "after" total (truncating, as difffolded.pl), in place, so a global load change does not paint
     * everything red or blue.
     */
    public static void normalize(CallTree t) {
        if (!t.isDifferential()) {
            return;
        }
        long before = t.totalSamples(0), after = t.totalSamples(1);
        if (before == 0 || before == after) {
            return;
        }
        double scale = (double) after / before;
        for (int n = 0; n < t.size(); n++) {
            long s = t.self(n, 0);
            if (s != 0) {
                t.setSelf(n, 0, (long) (s * scale));
            }
        }
    }
}
