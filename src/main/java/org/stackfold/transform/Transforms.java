package org.stackfold.transform;

import java.util.ArrayList;
import java.util.List;
import org.stackfold.model.Profile;

/**
 * Transforms applied in the order given. Consecutive stack rewrites run together in one pass over
 * the stacks; an empty chain returns the profile as it is (no pass at all).
 */
public final class Transforms {
    private final List<Transform> steps;

    public Transforms(List<Transform> steps) {
        this.steps = List.copyOf(steps);
    }

    public static Transforms none() {
        return new Transforms(List.of());
    }

    public boolean isEmpty() {
        return steps.isEmpty();
    }

    public List<Transform> steps() {
        return steps;
    }

    /** This chain, then {@code more}. */
    public Transforms then(List<? extends Transform> more) {
        List<Transform> all = new ArrayList<>(steps);
        all.addAll(more);
        return new Transforms(all);
    }

    public Profile apply(Profile p) {
        List<StackTransform> run = new ArrayList<>();
        for (Transform t : steps) {
            if (t instanceof StackTransform s) {
                run.add(s);
                continue;
            }
            if (!run.isEmpty()) {
                p = StackPass.apply(p, run);
                run = new ArrayList<>();
            }
            p = t.apply(p);
        }
        return run.isEmpty() ? p : StackPass.apply(p, run);
    }

    /**
     * The profile with a frame table of only the frames its tree uses (after transforms: writers that
     * list every frame then show no name a transform removed); node ids and the timeline stay valid.
     */
    public static Profile withUsedFrames(Profile p) {
        return UsedFrames.of(p);
    }

    @Override
    public String toString() {
        return String.join(" ", steps.stream().map(Transform::describe).toList());
    }
}
