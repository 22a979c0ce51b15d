package org.stackfold.transform;

import org.stackfold.model.FrameTable;

/** Keeps the stacks whose root frame matches: a thread or process where the input put one at the root (--thread-frames, tid:N, perf's comm-pid). */
public final class RootFilter extends StackTransform {
    private final FramePattern pattern;

    public RootFilter(FramePattern pattern) {
        this.pattern = pattern;
    }

    @Override
    public String describe() {
        return "--root " + pattern;
    }

    @Override
    public StackRule bind(FrameTable frames) {
        FramePattern.Bound m = pattern.bind(frames);
        return (s, n) -> {
            return n > 0 && m.test(s[0]) ? n : -1;
        };
    }
}
