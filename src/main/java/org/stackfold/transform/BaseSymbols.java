package org.stackfold.transform;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.stackfold.model.FrameTable;

/**
 * flamegraph.pl's and inferno's {@code --base}: keeps the stacks through one of the symbols (exact
 * names), cut so the deepest such frame becomes the root. With inferno's quirks the leaf never matches
 * (inferno compares it with the count still attached) and a match at the root drops the stack.
 */
public final class BaseSymbols extends StackTransform {
    private final Set<String> symbols;
    private final boolean infernoQuirks;

    public BaseSymbols(List<String> symbols, boolean infernoQuirks) {
        this.symbols = new HashSet<>(symbols);
        this.infernoQuirks = infernoQuirks;
    }

    @Override
    public String describe() {
        return "--base " + String.join(",", symbols);
    }

    @Override
    public StackRule bind(FrameTable frames) {
        return new StackRule() {
            private byte[] state = new byte[0]; // per frame id: 0 not looked up yet, 1 no, 2 a base symbol

            private boolean isBase(int f) {
                if (f >= state.length) {
                    state = Arrays.copyOf(state, Math.max(f + 1, frames.size()));
                }
                if (state[f] == 0) {
                    state[f] = (byte) (symbols.contains(frames.name(f)) ? 2 : 1);
                }
                return state[f] == 2;
            }

            @Override
            public int rewrite(int[] stack, int n) {
                int cut = -1;
                for (int i = infernoQuirks ? n - 2 : n - 1; i >= 0; i--) {
                    if (isBase(stack[i])) {
                        cut = i;
                        break;
                    }
                }
                if (cut < 0 || (cut == 0 && infernoQuirks)) {
                    return -1;
                }
                System.arraycopy(stack, cut, stack, 0, n - cut);
                return n - cut;
            }
        };
    }
}
