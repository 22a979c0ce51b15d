package org.stackfold.transform;

import org.stackfold.model.FrameTable;

/** pprof's {@code -show}: keeps only the matching frames of every stack (the stacks stay). */
public final class Show extends StackTransform {
    private final FramePattern pattern;

    public Show(FramePattern pattern) {
        this.pattern = pattern;
    }

    @Override
    public String describe() {
        return "--show " + pattern;
    }

    @Override
    public StackRule bind(FrameTable frames) {
        FramePattern.Bound m = pattern.bind(frames);
        return (s, n) -> {
            int w = 0;
            for (int i = 0; i < n; i++) {
                if (m.test(s[i])) {
                    s[w++] = s[i];
                }
            }
            return w;
        };
    }
}
