package org.stackfold.collapse;

import java.util.Arrays;

/**
 * A stack listed leaf first, as debuggers and thread dumps print it (frame #0 is the innermost):
 * frame ids are appended as they come and counted in {@link Stacks} root first, after optional
 * root frames (thread or process names) that the formats put above the listed ones.
 */
final class LeafFirst {
    private int[] ids = new int[64];
    private int size;

    void add(int frame) {
        if (size == ids.length) {
            ids = Arrays.copyOf(ids, size * 2);
        }
        ids[size++] = frame;
    }

    int size() {
        return size;
    }

    /** The frame at a position, 0 = the leaf. */
    int at(int i) {
        return ids[i];
    }

    boolean isEmpty() {
        return size == 0;
    }

    void clear() {
        size = 0;
    }

    /** Counts the stack: {@code roots} (root first, may be empty), then the frames root first. */
    void addTo(Stacks stacks, long count, int... roots) {
        stacks.clear();
        for (int r : roots) {
            stacks.pushFrame(r);
        }
        for (int i = size - 1; i >= 0; i--) {
            stacks.pushFrame(ids[i]);
        }
        stacks.add(count);
    }
}
