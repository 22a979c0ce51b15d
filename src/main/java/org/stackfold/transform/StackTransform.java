package org.stackfold.transform;

import java.util.List;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/** A transform that rewrites each stack on its own: bound to a profile's frames, a {@link StackRule}. */
public abstract class StackTransform implements Transform {
    /** The rule for stacks of frames in {@code frames}. */
    public abstract StackRule bind(FrameTable frames);

    @Override
    public Profile apply(Profile profile) {
        return StackPass.apply(profile, List.of(this));
    }
}
