package org.stackfold.transform;

import org.stackfold.model.FrameTable;

/** pprof's {@code -focus}: keeps the stacks with a matching frame, whole; the others are dropped. */
public final class Focus extends StackTransform {
    private final FramePattern pattern;

    public Focus(FramePattern pattern) {
        this.pattern = pattern;
    }

    @Override
    public String describe() {
        return "--focus " + pattern;
    }

    @Override
    public StackRule bind(FrameTable frames) {
        FramePattern.Bound m = pattern.bind(frames);
        return (s, n) -> {
            return m.first(s, n) >= 0 ? n : -1;
        };
    }
}
