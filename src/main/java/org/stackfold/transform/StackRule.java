package org.stackfold.transform;

/** One stack rewritten in place: the form most transforms take once bound to a profile's frames. */
@FunctionalInterface
public interface StackRule {
    /**
     * Rewrites {@code stack[0, n)} (frame ids, root first) in place and returns its new length, or
     * -1 to drop the stack (its counts go nowhere). A rule may add frames to the table it was bound to.
     */
    int rewrite(int[] stack, int n);
}
