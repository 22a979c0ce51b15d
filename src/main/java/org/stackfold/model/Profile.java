package org.stackfold.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A profile: its frames, its call tree, what the counts measure and, where the source kept the
 * order of samples, a {@link Timeline}. Formats build one, transforms and renderers read it.
 */
public final class Profile {
    private final FrameTable frames;
    private final CallTree tree;
    // Stacks not yet built into the tree: built on the first call of tree(), so a writer that
    // takes them as they are (folded) never builds it.
    private DistinctStacks pending;
    private final List<ValueType> valueTypes;
    private Timeline timeline;

    /** What one weight column counts: pprof's ValueType, e.g. ("samples", "count") or ("cpu", "nanoseconds"). */
    public record ValueType(String type, String unit) {
        public static final ValueType SAMPLES = new ValueType("samples", "count");
    }

    public Profile() {
        this(new FrameTable(), new CallTree(1), List.of(ValueType.SAMPLES));
    }

    public Profile(FrameTable frames, CallTree tree, List<ValueType> valueTypes) {
        this.frames = Objects.requireNonNull(frames);
        this.tree = Objects.requireNonNull(tree);
        if (valueTypes.size() != tree.weights()) {
            throw new IllegalArgumentException("one value type per weight column");
        }
        this.valueTypes = List.copyOf(valueTypes);
    }

    /**
     * A profile of distinct stacks (one weight column) whose call tree is built from them when
     * first asked for ({@link #tree}); until then {@link #pendingStacks} gives them as they are.
     */
    public static Profile ofStacks(FrameTable frames, DistinctStacks stacks, List<ValueType> valueTypes) {
        Profile p = new Profile(frames, new CallTree(1), valueTypes);
        p.pending = Objects.requireNonNull(stacks);
        return p;
    }

    /** The stacks not yet built into the tree, or null (the tree is built, or the profile never had them). */
    public DistinctStacks pendingStacks() {
        return pending;
    }

    /** True where no stack has a frame: the tree would hold its root alone. */
    public boolean isEmpty() {
        return pending != null ? !pending.hasFrames() : tree.size() <= 1;
    }

    /** An empty differential profile: column 0 "before", column 1 "after". */
    public static Profile differential() {
        return new Profile(new FrameTable(), new CallTree(2),
                new ArrayList<>(List.of(ValueType.SAMPLES, ValueType.SAMPLES)));
    }

    public FrameTable frames() {
        return frames;
    }

    public CallTree tree() {
        if (pending != null) {
            pending.addTo(tree);
            pending = null;
        }
        return tree;
    }

    public List<ValueType> valueTypes() {
        return valueTypes;
    }

    /** The per-sample timeline, or null where the source had only aggregated counts. */
    public Timeline timeline() {
        return timeline;
    }

    public void setTimeline(Timeline timeline) {
        this.timeline = timeline;
    }

    /** Adds {@code count} to the stack of frame ids (root first) in column 0. */
    public void addStack(int[] frameIds, int length, long count) {
        CallTree t = tree();
        t.addSelf(t.path(frameIds, 0, length), count);
    }
}
