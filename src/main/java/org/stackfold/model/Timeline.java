package org.stackfold.model;

import java.util.Arrays;

/**
 * Samples in the order they were taken, each pointing at its call-tree node: the thread and
 * interpreter it came from, its timestamp and status flags. Columns of primitives, about 28 bytes a
 * sample. Formats that only aggregate (folded) leave the profile without one.
 *
 * <p>Timestamps are in the unit the source used (Tachyon: microseconds); {@link #timeUnit} says
 * which. Status flags are the source's bits (Tachyon's on-CPU, has-GIL, GIL-wanted, exception...).
 * A sample weighs 1 unless its source gave it a weight (a folded line's count, a speedscope
 * sample's duration); the weight column exists only once some sample weighs other than 1. A
 * differential timeline (a differential folded file in line order) gives each sample a "before"
 * weight too, as its tree has two columns.
 */
public final class Timeline {
    private long[] threadId = new long[1024];
    private int[] interpreterId = new int[1024];
    private long[] timestamp = new long[1024];
    private int[] status = new int[1024];
    private int[] node = new int[1024];
    private long[] weight;
    private long[] before;
    private int size;
    private final String timeUnit;
    private long sampleInterval;
    private final java.util.Map<Long, String> threadNames = new java.util.HashMap<>();

    public Timeline(String timeUnit) {
        this.timeUnit = timeUnit;
    }

    public String timeUnit() {
        return timeUnit;
    }

    /**
     * The sampling interval the source declares (Tachyon's header), in {@link #timeUnit}; 0 where it
     * declares none. Samplers write in bursts, so gaps between samples are no measure of it.
     */
    public long sampleInterval() {
        return sampleInterval;
    }

    public void setSampleInterval(long interval) {
        this.sampleInterval = Math.max(0, interval);
    }

    public int size() {
        return size;
    }

    public void add(long thread, int interpreter, long time, int statusFlags, int treeNode) {
        add(thread, interpreter, time, statusFlags, treeNode, 1);
    }

    /** Adds a sample of weight {@code w} (the count it adds to its node). */
    public void add(long thread, int interpreter, long time, int statusFlags, int treeNode, long w) {
        if (size == node.length) {
            int cap = Math.max(16, size + (size >> 1));
            threadId = Arrays.copyOf(threadId, cap);
            interpreterId = Arrays.copyOf(interpreterId, cap);
            timestamp = Arrays.copyOf(timestamp, cap);
            status = Arrays.copyOf(status, cap);
            node = Arrays.copyOf(node, cap);
            if (weight != null) {
                weight = Arrays.copyOf(weight, cap);
            }
            if (before != null) {
                before = Arrays.copyOf(before, cap);
            }
        }
        if (w != 1 && weight == null) {
            weight = new long[node.length];
            Arrays.fill(weight, 0, size, 1);
        }
        if (weight != null) {
            weight[size] = w;
        }
        threadId[size] = thread;
        interpreterId[size] = interpreter;
        timestamp[size] = time;
        status[size] = statusFlags;
        node[size] = treeNode;
        size++;
    }

    /** Names a thread (JFR's {@code main}, {@code worker-3}); where none is known, writers show its id. */
    public void nameThread(long thread, String name) {
        if (name != null && !name.isEmpty()) {
            threadNames.put(thread, name);
        }
    }

    /** The thread's name, or null where the source did not say. */
    public String threadName(long thread) {
        return threadNames.get(thread);
    }

    public long threadId(int i) {
        return threadId[i];
    }

    public int interpreterId(int i) {
        return interpreterId[i];
    }

    public long timestamp(int i) {
        return timestamp[i];
    }

    public int status(int i) {
        return status[i];
    }

    public int node(int i) {
        return node[i];
    }

    /** Adds a sample of a differential profile: its "before" and "after" weights. */
    public void add(long thread, int interpreter, long time, int statusFlags, int treeNode, long beforeWeight,
                    long afterWeight) {
        if (before == null) {
            before = new long[node.length];
        }
        before[size] = beforeWeight;
        add(thread, interpreter, time, statusFlags, treeNode, afterWeight);
    }

    /** True when samples carry a "before" weight (see {@link #before(int)}). */
    public boolean isDifferential() {
        return before != null;
    }

    /** The "before" weight of a sample of a differential timeline, else 0. */
    public long before(int i) {
        return before == null ? 0 : before[i];
    }

    public long weight(int i) {
        return weight == null ? 1 : weight[i];
    }

    /** True when every sample weighs 1, so the number of samples of a node is its count. */
    public boolean unitWeights() {
        return weight == null;
    }
}
