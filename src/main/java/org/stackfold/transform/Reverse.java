package org.stackfold.transform;

import java.util.Arrays;
import org.stackfold.model.FrameTable;

/**
 * Every stack leaf first (flamegraph.pl's and inferno's {@code --reverse}: an icicle of callers). A
 * reversed stack is trimmed like a line: the new root loses leading and the new leaf trailing white
 * space (inferno reverses each line's text and trims it).
 */
public final class Reverse extends StackTransform {
    @Override
    public String describe() {
        return "--reverse";
    }

    @Override
    public StackRule bind(FrameTable frames) {
        return new StackRule() {
            private int[] leading = new int[0];   // frame id + 1 of the name without leading white space
            private int[] trailing = new int[0];  // ... without trailing white space

            @Override
            public int rewrite(int[] stack, int n) {
                if (n > 0) {
                    for (int i = 0, j = n - 1; i < j; i++, j--) {
                        int t = stack[i];
                        stack[i] = stack[j];
                        stack[j] = t;
                    }
                    stack[0] = trimmed(stack[0], true);
                    stack[n - 1] = trimmed(stack[n - 1], false);
                }
                return n;
            }

            private int trimmed(int f, boolean lead) {
                int[] cache = lead ? leading : trailing;
                if (f >= cache.length) {
                    cache = Arrays.copyOf(cache, Math.max(f + 1, frames.size()));
                    if (lead) {
                        leading = cache;
                    } else {
                        trailing = cache;
                    }
                }
                if (cache[f] != 0) {
                    return cache[f] - 1;
                }
                String name = frames.name(f);
                String s = lead ? name.stripLeading() : name.stripTrailing();
                int g = s.length() == name.length() ? f : frames.plain(s);
                cache[f] = g + 1;
                return g;
            }
        };
    }
}
