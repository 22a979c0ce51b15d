package org.stackfold.transform;

import org.stackfold.model.FrameTable;

/** pprof's {@code -hide} (the viewer's "merge": a function merged into its callers): removes matching frames from every stack and keeps the stacks, so a hidden frame's own counts go to its caller. */
public final class Hide extends StackTransform {
    private final FramePattern pattern;
    private final String option;

    public Hide(FramePattern pattern) {
        this(pattern, "--hide");
    }

    /** The same rule under another option's name ({@code --merge}). */
    public Hide(FramePattern pattern, String option) {
        this.pattern = pattern;
        this.option = option;
    }

    @Override
    public String describe() {
        return option + " " + pattern;
    }

    @Override
    public StackRule bind(FrameTable frames) {
        FramePattern.Bound m = pattern.bind(frames);
        return (s, n) -> {
            int w = 0;
            for (int i = 0; i < n; i++) {
                if (!m.test(s[i])) {
                    s[w++] = s[i];
                }
            }
            return w;
        };
    }
}
