package org.stackfold.fleet.store;

import org.stackfold.io.InputException;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/** Walks a profile's stacks with a count: the rows it adds to the fleet table. */
final class ProfileRows {
    interface Sink {
        void row(String stack, String leaf, long value) throws Exception;
    }

    private ProfileRows() {
    }

    static void each(StoredProfile sp, Sink sink) throws Exception {
        Profile p = sp.profile();
        CallTree tree = p.tree();
        if (tree.isDifferential()) {
            throw new InputException(sp.source() + ": a differential profile cannot be stored; store each side");
        }
        FrameTable frames = p.frames();
        String[] names = new String[frames.size()];
        StringBuilder stack = new StringBuilder();
        for (int node = 1; node < tree.size(); node++) {
            long self = tree.self(node);
            if (self == 0) {
                continue;
            }
            stack.setLength(0);
            String leaf = null;
            for (int f : tree.stack(node)) {
                if (names[f] == null) {
                    names[f] = frames.name(f);
                }
                leaf = names[f];
                if (!stack.isEmpty()) {
                    stack.append(ProfileTable.SEPARATOR);
                }
                stack.append(leaf);
            }
            sink.row(stack.toString(), leaf, self);
        }
    }
}
