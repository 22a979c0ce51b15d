package org.stackfold.transform;

import java.util.Arrays;
import java.util.List;
import org.stackfold.model.FrameTable;

/**
 * The viewer's "focus" on one node: keeps the stacks that begin with the given frames (root first,
 * exact names, or exact frame ids for a viewer URL replayed), cut so the last of them is the root.
 */
public final class FocusPath extends StackTransform {
    private final List<String> names;
    private final int[] ids;

    /** By names: {@code path} is a folded prefix, frames root first. */
    public FocusPath(List<String> path) {
        this.names = List.copyOf(path);
        this.ids = null;
    }

    /** By frame ids of the profile it is applied to. */
    public FocusPath(int[] ids, List<String> names) {
        this.names = List.copyOf(names);
        this.ids = ids.clone();
    }

    @Override
    public String describe() {
        return "--focus-path " + String.join(";", names);
    }

    @Override
    public StackRule bind(FrameTable frames) {
        int k = names.size();
        String[] want = names.toArray(String[]::new);
        return new StackRule() {
            private byte[][] state = new byte[k][0]; // per depth and frame: 0 unknown, 1 no, 2 yes

            private boolean at(int d, int f) {
                if (ids != null) {
                    return ids[d] == f;
                }
                byte[] s = state[d];
                if (f >= s.length) {
                    s = state[d] = Arrays.copyOf(s, Math.max(f + 1, frames.size()));
                }
                if (s[f] == 0) {
                    s[f] = (byte) (frames.name(f).equals(want[d]) ? 2 : 1);
                }
                return s[f] == 2;
            }

            @Override
            public int rewrite(int[] s, int n) {
                if (n < k) {
                    return -1;
                }
                for (int d = 0; d < k; d++) {
                    if (!at(d, s[d])) {
                        return -1;
                    }
                }
                if (k > 1) {
                    System.arraycopy(s, k - 1, s, 0, n - k + 1);
                }
                return n - Math.max(k - 1, 0);
            }
        };
    }
}
