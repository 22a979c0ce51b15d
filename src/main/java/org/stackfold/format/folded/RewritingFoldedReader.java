package org.stackfold.format.folded;

import java.io.IOException;
import java.util.List;
import java.util.function.Consumer;
import org.stackfold.io.Input;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;
import org.stackfold.transform.StackRule;
import org.stackfold.transform.StackTransform;

/**
 * Folded (or differential folded) inputs read record by record, each stack rewritten by stack
 * transforms before it enters the tree, which so never holds the unrewritten stacks as well: a
 * flame graph's {@code --reverse} of a 1M-line profile fits the heap the plain one needs.
 */
public final class RewritingFoldedReader {
    private RewritingFoldedReader() {
    }

    /** Differential when the first record has two counts; mixing kinds is an error. */
    public static Profile read(List<Input> inputs, List<StackTransform> transforms, Consumer<String> warn) throws IOException {
        FrameTable frames = new FrameTable();
        StackRule[] rules = transforms.stream().map(t -> t.bind(frames)).toArray(StackRule[]::new);
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
                int n = depth;
                for (StackRule r : rules) {
                    n = r.rewrite(b, n);
                    if (n < 0) {
                        return;
                    }
                }
                int node = tree[0].path(b, 0, n);
                if (count2 >= 0) {
                    tree[0].addSelf(node, 0, count);
                    tree[0].addSelf(node, 1, count2);
                } else {
                    tree[0].addSelf(node, 0, count);
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
}
