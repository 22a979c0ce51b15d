package org.stackfold.transform;

import org.stackfold.model.FrameTable;

/** pprof's {@code -ignore} (the viewer's "drop"): drops the stacks with a matching frame. */
public final class Ignore extends StackTransform {
    private final FramePattern pattern;

    public Ignore(FramePattern pattern) {
        this.pattern = pattern;
    }

    @Override
    public String describe() {
        return "--ignore " + pattern;
    }

    @Override
    public StackRule bind(FrameTable frames) {
        FramePattern.Bound m = pattern.bind(frames);
        return (s, n) -> {
            return m.first(s, n) >= 0 ? -1 : n;
        };
    }
}
