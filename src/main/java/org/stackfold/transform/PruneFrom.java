package org.stackfold.transform;

import org.stackfold.model.FrameTable;

/** pprof's {@code -prune_from}: cuts every stack below its innermost matching frame, which becomes the leaf; stacks without a match stay as they are. */
public final class PruneFrom extends StackTransform {
    private final FramePattern pattern;

    public PruneFrom(FramePattern pattern) {
        this.pattern = pattern;
    }

    @Override
    public String describe() {
        return "--prune-from " + pattern;
    }

    @Override
    public StackRule bind(FrameTable frames) {
        FramePattern.Bound m = pattern.bind(frames);
        return (s, n) -> {
            for (int i = n - 1; i >= 0; i--) {
                if (m.test(s[i])) {
                    return i + 1;
                }
            }
            return n;
        };
    }
}
