package org.stackfold.transform;

import java.util.List;
import org.stackfold.model.CallTree;
import org.stackfold.model.Profile;

/** Picks weight columns out of a profile (the "after" side of a differential one, say). */
public final class Columns {
    private Columns() {
    }

    /** A one-column profile with the same frames and the counts of {@code column}. */
    public static Profile select(Profile p, int column) {
        CallTree dst = new CallTree(1);
        int[] identity = new int[p.frames().size()];
        for (int f = 0; f < identity.length; f++) {
            identity[f] = f;
        }
        Merge.addColumn(p.tree(), column, dst, 0, identity);
        return new Profile(p.frames(), dst, List.of(p.valueTypes().get(column)));
    }
}
