package org.stackfold.model;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Timed samples collected in the order a file gives them, put into a {@link Timeline} in time order
 * at the end: for formats that do not store samples in time order (JFR writes each thread's events
 * in its own buffers, OTLP groups samples by stack and thread). The sort is stable, so samples with
 * equal times keep the file's order, and unsigned, as OTLP's fixed64 nanoseconds are.
 */
public final class TimedSamples {
    private long[] time = new long[1024];
    private long[] thread = new long[1024];
    private long[] weight = new long[1024];
    private int[] node = new int[1024];
    private int size;
    private final Map<Long, String> names = new HashMap<>();

    public void add(long at, long threadId, int treeNode, long w) {
        if (size == node.length) {
            int cap = size * 2;
            time = Arrays.copyOf(time, cap);
            thread = Arrays.copyOf(thread, cap);
            weight = Arrays.copyOf(weight, cap);
            node = Arrays.copyOf(node, cap);
        }
        time[size] = at;
        thread[size] = threadId;
        weight[size] = w;
        node[size] = treeNode;
        size++;
    }

    /** True once the thread has a name (the first one given is kept). */
    public boolean hasName(long threadId) {
        return names.containsKey(threadId);
    }

    public void nameThread(long threadId, String name) {
        names.putIfAbsent(threadId, name);
    }

    /**
     * The samples in time order, times in {@code unit}; {@code fromFirst}: counted from the first
     * sample's time rather than as given.
     */
    public Timeline timeline(String unit, boolean fromFirst) {
        long[] t = time;
        int[] order = IndexSort.sorted(size, (x, y) -> Long.compareUnsigned(t[x], t[y]));
        long origin = fromFirst && size > 0 ? t[order[0]] : 0;
        Timeline tl = new Timeline(unit);
        for (int i : order) {
            tl.add(thread[i], 0, t[i] - origin, 0, node[i], weight[i]);
        }
        names.forEach(tl::nameThread);
        return tl;
    }
}
