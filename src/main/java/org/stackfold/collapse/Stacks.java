package org.stackfold.collapse;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/**
 * Builds a collapser's {@link Profile}: frames are pushed one at a time, root first, then the
 * stack is counted. Names arrive as Latin-1 strings from {@link LineReader}
 * (one char per input byte) and are interned as those bytes; {@link #utf8()} switches to UTF-8 for
 * collapsers that decode their input as text (XML, column-positioned reports).
 *
 * <p>Counting follows the peers: {@link #add} sums a stack seen twice (inferno's
 * {@code insert_or_add}), {@link #set} keeps the last count (its {@code insert}, used by the
 * tree-report formats where a stack appears once per report).
 */
public final class Stacks {
    private final Profile profile = new Profile();
    private final FrameTable frames = profile.frames();
    private final CallTree tree = profile.tree();
    private int[] stack = new int[64];
    private int depth;
    private boolean utf8;

    /** Names are UTF-8 text rather than Latin-1 byte strings. */
    public Stacks utf8() {
        utf8 = true;
        return this;
    }

    public Profile profile() {
        return profile;
    }

    public int depth() {
        return depth;
    }

    /** The frame id of the last pushed frame. */
    public int leaf() {
        return stack[depth - 1];
    }

    /** The frame id at a position, 0 = root. */
    public int frameAt(int i) {
        return stack[i];
    }

    public void clear() {
        depth = 0;
    }

    /** The frame id of a name. */
    public int frame(String name) {
        byte[] b = name.getBytes(utf8 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
        return frames.plain(b, 0, b.length);
    }

    /** The frame id of a name given as bytes (kept as they are). */
    public int frame(byte[] b, int off, int len) {
        return frames.plain(b, off, len);
    }

    /** Appends a frame below the current ones (towards the leaf). */
    public void push(String name) {
        pushFrame(frame(name));
    }

    public void pushFrame(int frame) {
        if (depth == stack.length) {
            stack = Arrays.copyOf(stack, depth * 2);
        }
        stack[depth++] = frame;
    }

    /** Removes the last pushed frames down to {@code newDepth}. */
    public void truncate(int newDepth) {
        depth = Math.min(depth, Math.max(0, newDepth));
    }

    /** Adds {@code count} to the pushed stack (root first). */
    public void add(long count) {
        try {
            tree.addSelf(tree.path(stack, 0, depth), count);
        } catch (ArithmeticException e) {
            throw new org.stackfold.io.InputException("the counts of one stack add up to more than 2^63-1");
        }
    }

    /** The call-tree node of the pushed stack (made if new), for weights summed elsewhere first. */
    public int node() {
        return tree.path(stack, 0, depth);
    }

    /** Adds {@code count} to a node from {@link #node()}. */
    public void addAt(int node, long count) {
        try {
            tree.addSelf(node, count);
        } catch (ArithmeticException e) {
            throw new org.stackfold.io.InputException("the counts of one stack add up to more than 2^63-1");
        }
    }

    /** Sets the pushed stack's count, replacing an earlier one. */
    public void set(long count) {
        tree.setSelf(tree.path(stack, 0, depth), 0, count);
    }
}
