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

    /** An empty differential profile: column 0 "before", column 1 "after". */
    public static Profile differential() {
        return new Profile(new FrameTable(), new CallTree(2),
                new ArrayList<>(List.of(ValueType.SAMPLES, ValueType.SAMPLES)));
    }

    public FrameTable frames() {
        return frames;
    }

    public CallTree tree() {
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
        tree.addSelf(tree.path(frameIds, 0, length), count);
    }
}
