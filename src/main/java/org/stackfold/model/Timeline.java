package org.stackfold.model;

import java.util.Arrays;

/**
 * Samples in the order they were taken, each pointing at its call-tree node: the thread and
 * interpreter it came from, its timestamp and status flags. Columns of primitives, about 28 bytes a
 * sample. Formats that only aggregate (folded) leave the profile without one.
 *
 * <p>Timestamps are in the unit the source used (Tachyon: microseconds); {@link #timeUnit} says
 * which. Status flags are the source's bits (Tachyon's on-CPU, has-GIL, GIL-wanted, exception...).
 */
public final class Timeline {
    private long[] threadId = new long[1024];
    private int[] interpreterId = new int[1024];
    private long[] timestamp = new long[1024];
    private int[] status = new int[1024];
    private int[] node = new int[1024];
    private int size;
    private final String timeUnit;
    private final java.util.Map<Long, String> threadNames = new java.util.HashMap<>();

    public Timeline(String timeUnit) {
        this.timeUnit = timeUnit;
    }

    public String timeUnit() {
        return timeUnit;
    }

    public int size() {
        return size;
    }

    public void add(long thread, int interpreter, long time, int statusFlags, int treeNode) {
        if (size == node.length) {
            int cap = Math.max(16, size + (size >> 1));
            threadId = Arrays.copyOf(threadId, cap);
            interpreterId = Arrays.copyOf(interpreterId, cap);
            timestamp = Arrays.copyOf(timestamp, cap);
            status = Arrays.copyOf(status, cap);
            node = Arrays.copyOf(node, cap);
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
}
