package org.stackfold.render.flamegraph;

import java.util.Set;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameTable;

/** The stack rewrites a flame graph applies before layout: reversal and --base. */
public final class StackTransforms {
    private StackTransforms() {
    }

    /**
     * A tree with every stack reversed (leaf first): the "bottom-up" or stack-reversed graph. A
     * reversed stack is trimmed like a line: the new root loses leading and the new leaf trailing
     * white space (as inferno, which reverses the text of each line and trims it).
     */
    static CallTree reverse(CallTree t, FrameTable frames) {
        CallTree out = new CallTree(t.weights());
        int[] buf = new int[256];
        int[] depthOf = t.depths();
        int[] leading = new int[frames.size()];   // frame id + 1 of the name without leading white space
        int[] trailing = new int[frames.size()];  // ... without trailing white space
        for (int n = 1; n < t.size(); n++) {
            if (!hasSelf(t, n)) {
                continue;
            }
            int d = depthOf[n];
            if (buf.length < d) {
                buf = new int[d * 2];
            }
            int k = 0;
            for (int m = n; m != CallTree.ROOT; m = t.parent(m)) {
                buf[k++] = t.frame(m); // leaf first: exactly the reversed stack
            }
            buf[0] = trimmed(frames, buf[0], leading, true);
            buf[k - 1] = trimmed(frames, buf[k - 1], trailing, false);
            addSelf(t, n, out, out.path(buf, 0, k));
        }
        return out;
    }

    private static int trimmed(FrameTable frames, int f, int[] cache, boolean lead) {
        if (f < cache.length && cache[f] != 0) {
            return cache[f] - 1;
        }
        String name = frames.name(f);
        String s = lead ? name.stripLeading() : name.stripTrailing();
        int g = s.length() == name.length() ? f : frames.plain(s);
        if (f < cache.length) {
            cache[f] = g + 1;
        }
        return g;
    }

    /**
     * inferno's {@code --base}: keep only stacks through one of the symbols, cut so the deepest such
     * frame becomes the root. With {@code infernoQuirks}, as inferno matches: the leaf never counts
     * (inferno compares it with the count still attached) and a match at the root drops the stack.
     */
    static CallTree base(CallTree t, FrameTable frames, Set<String> symbols, boolean infernoQuirks) {
        boolean[] isBase = new boolean[frames.size()];
        for (int f = 0; f < frames.size(); f++) {
            isBase[f] = symbols.contains(frames.name(f));
        }
        CallTree out = new CallTree(t.weights());
        int[] depthOf = t.depths();
        int[] buf = new int[256];
        for (int n = 1; n < t.size(); n++) {
            if (!hasSelf(t, n)) {
                continue;
            }
            int d = depthOf[n];
            if (buf.length < d) {
                buf = new int[d * 2];
            }
            int k = d;
            for (int m = n; m != CallTree.ROOT; m = t.parent(m)) {
                buf[--k] = t.frame(m);
            }
            int cut = -1;
            for (int i = infernoQuirks ? d - 2 : d - 1; i >= 0; i--) {
                if (isBase[buf[i]]) {
                    cut = i;
                    break;
                }
            }
            if (cut > 0 || (cut == 0 && !infernoQuirks)) {
                addSelf(t, n, out, out.path(buf, cut, d));
            }
        }
        return out;
    }

    private static boolean hasSelf(CallTree t, int n) {
        for (int c = 0; c < t.weights(); c++) {
            if (t.self(n, c) != 0) {
                return true;
            }
        }
        return false;
    }

    private static void addSelf(CallTree from, int n, CallTree to, int m) {
        for (int c = 0; c < from.weights(); c++) {
            to.addSelf(m, c, from.self(n, c));
        }
    }

    /**
     * difffolded.pl's {@code -n} on an already differential tree: scales the "before" column to the
     * "after" total (truncating, as difffolded.pl), in place, so a global load change does not paint
     * everything red or blue.
     */
    public static void normalize(CallTree t) {
        if (!t.isDifferential()) {
            return;
        }
        long before = t.totalSamples(0), after = t.totalSamples(1);
        if (before == 0 || before == after) {
            return;
        }
        double scale = (double) after / before;
        for (int n = 0; n < t.size(); n++) {
            long s = t.self(n, 0);
            if (s != 0) {
                t.setSelf(n, 0, (long) (s * scale));
            }
        }
    }
}
