package org.stackfold.transform;

import org.stackfold.model.FrameTable;

/** Collapses recursion, direct and indirect (the viewer's "collapse recursion"): where a matching frame appears again deeper in a stack, everything from below its outermost call down to its innermost one goes, so {@code a;f;b;f;c} becomes {@code a;f;c} and {@code f;f;f} becomes {@code f}. With several matching functions, the outermost decides first. */
public final class CollapseRecursion extends StackTransform {
    private final FramePattern pattern;

    public CollapseRecursion(FramePattern pattern) {
        this.pattern = pattern;
    }

    @Override
    public String describe() {
        return "--collapse-recursion " + pattern;
    }

    @Override
    public StackRule bind(FrameTable frames) {
        FramePattern.Bound m = pattern.bind(frames);
        return (s, n) -> {
            int w = 0;
            for (int i = 0; i < n; i++) {
                int f = s[i];
                s[w++] = f;
                if (m.test(f)) {
                    for (int j = n - 1; j > i; j--) {
                        if (s[j] == f) {
                            i = j;
                            break;
                        }
                    }
                }
            }
            return w;
        };
    }
}
