package org.stackfold.transform;

import org.stackfold.model.Profile;

/**
 * A profile → profile operation. Most are rewrites of one stack at a time ({@link StackTransform}),
 * which a {@link Transforms} chain runs together in one pass over the stacks; the others need the
 * whole profile ({@link TopStacks}, {@link TimeRange}). The input profile may be consumed.
 */
public interface Transform {
    Profile apply(Profile profile);

    /** How the docs and errors name it, e.g. {@code --focus 'handle_.*'}. */
    String describe();
}
