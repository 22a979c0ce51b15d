package org.stackfold.transform;

import org.stackfold.model.FrameTable;

/** pprof's {@code -show_from} (the viewer's "focus on" a function): cuts every stack above its outermost matching frame, which becomes the root; stacks without a match are dropped. */
public final class ShowFrom extends StackTransform {
    private final FramePattern pattern;

    public ShowFrom(FramePattern pattern) {
        this.pattern = pattern;
    }

    @Override
    public String describe() {
        return "--show-from " + pattern;
    }

    @Override
    public StackRule bind(FrameTable frames) {
        FramePattern.Bound m = pattern.bind(frames);
        return (s, n) -> {
            int i = m.first(s, n);
            if (i < 0) {
                return -1;
            }
            System.arraycopy(s, i, s, 0, n - i);
            return n - i;
        };
    }
}
