package org.stackfold.render.flamegraph;

import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.stackfold.format.folded.OrderedFoldedReader;
import org.stackfold.io.Input;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/**
 * The stack rewrites a flame graph applies before layout: {@code --base} and {@code --reverse}, and
 * {@code --normalize} for differential trees. A rewrite works on one stack at a time, so it can run on
 * an existing tree ({@link #apply}) or while folded input is read ({@link #readFolded}), which never
 * builds the unreversed tree: a reversed 1M-line profile then fits the heap the plain one needs.
 */
public final class StackTransforms {
    private final FrameTable frames;
    private final boolean reverse;
    private final Set<String> symbols;    // --base, or null
    private byte[] baseState = new byte[0]; // per frame id: 0 not looked up yet, 1 no, 2 a base symbol
    private final boolean infernoQuirks;
    private int[] leading = new int[0];   // frame id + 1 of the name without leading white space
    private int[] trailing = new int[0];  // ... without trailing white space

    private StackTransforms(FrameTable frames, FlameGraphOptions o) {
        this.frames = frames;
        this.reverse = o.reverse;
        this.infernoQuirks = o.inferno();
        this.symbols = o.base.isEmpty() ? null : new HashSet<>(o.base);
    }

    private boolean isBase(int f) {
        if (f >= baseState.length) {
            baseState = java.util.Arrays.copyOf(baseState, Math.max(f + 1, frames.size()));
        }
        if (baseState[f] == 0) {
            baseState[f] = (byte) (symbols.contains(frames.name(f)) ? 2 : 1);
        }
        return baseState[f] == 2;
    }

    public static boolean needed(FlameGraphOptions o) {
        return o.reverse || !o.base.isEmpty();
    }

    /**
     * Rewrites {@code stack[0, n)} (root first) in place; returns the new start (the stack is then
     * {@code stack[start, n)}), or -1 to drop it.
     *
     * <p>--base keeps stacks through one of the symbols, cut so the deepest such frame becomes the
     * root. With inferno's quirks the leaf never matches (inferno compares it with the count still
     * attached) and a match at the root drops the stack.
     *
     * <p>--reverse puts the leaf first. A reversed stack is trimmed like a line: the new root loses
     * leading and the new leaf trailing white space (inferno reverses each line's text and trims it).
     */
    int rewrite(int[] stack, int n) {
        int from = 0;
        if (symbols != null) {
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
            from = cut;
        }
        if (reverse && n > from) {
            for (int i = from, j = n - 1; i < j; i++, j--) {
                int t = stack[i];
                stack[i] = stack[j];
                stack[j] = t;
            }
            stack[from] = trimmed(stack[from], true);
            stack[n - 1] = trimmed(stack[n - 1], false);
        }
        return from;
    }

    private int trimmed(int f, boolean lead) {
        int[] cache = lead ? leading : trailing;
        if (f >= cache.length) {
            cache = java.util.Arrays.copyOf(cache, Math.max(f + 1, frames.size()));
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

    /** The tree with every stack rewritten. */
    static CallTree apply(CallTree t, FrameTable frames, FlameGraphOptions o) {
        StackTransforms rw = new StackTransforms(frames, o);
        CallTree out = new CallTree(t.weights());
        int[] buf = new int[256];
        int[] depthOf = t.depths();
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
            int from = rw.rewrite(buf, d);
            if (from >= 0) {
                int node = out.path(buf, from, d);
                for (int c = 0; c < t.weights(); c++) {
                    out.addSelf(node, c, t.self(n, c));
                }
            }
        }
        return out;
    }

    /**
     * Reads folded (or differential folded) inputs record by record, rewriting each stack before it
     * enters the tree. Differential when the first record has two counts; mixing kinds is an error.
     */
    public static Profile readFolded(List<Input> inputs, FlameGraphOptions o, Consumer<String> warn) throws IOException {
        FrameTable frames = new FrameTable();
        StackTransforms rw = new StackTransforms(frames, o);
        CallTree[] tree = {null};
        int[][] buf = {new int[256]};
        for (Input in : inputs) {
            OrderedFoldedReader.Stats stats = OrderedFoldedReader.read(in, frames, (ids, depth, count, count2) -> {
                if (tree[0] == null) {
                    tree[0] = new CallTree(count2 >= 0 ? 2 : 1);
                }
                if (tree[0].isDifferential() != count2 >= 0) {
                    throw new org.stackfold.io.InputException(in.name()
                            + ": cannot merge a differential profile with a plain one");
                }
                if (buf[0].length < depth) {
                    buf[0] = new int[depth * 2];
                }
                int[] b = buf[0];
                System.arraycopy(ids, 0, b, 0, depth);
                int from = rw.rewrite(b, depth);
                if (from >= 0) {
                    int node = tree[0].path(b, from, depth);
                    if (count2 >= 0) {
                        tree[0].addSelf(node, 0, count);
                        tree[0].addSelf(node, 1, count2);
                    } else {
                        tree[0].addSelf(node, 0, count);
                    }
                }
            });
            if (stats.skipped() > 0) {
                warn.accept(in.name() + ": ignored " + stats.skipped() + " lines with invalid format");
            }
            if (stats.fractional() > 0) {
                warn.accept(in.name() + ": fractional sample counts were truncated to integers"
                        + " (scale the counts up and use --factor to keep the precision)");
            }
        }
        CallTree t = tree[0] == null ? new CallTree(1) : tree[0];
        return new Profile(frames, t, t.isDifferential()
                ? List.of(Profile.ValueType.SAMPLES, Profile.ValueType.SAMPLES) : List.of(Profile.ValueType.SAMPLES));
    }

    private static boolean hasSelf(CallTree t, int n) {
        for (int c = 0; c < t.weights(); c++) {
            if (t.self(n, c) != 0) {
                return true;
            }
        }
        return false;
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
