package org.stackfold.record;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything drained from the kernel during a recording: each drain's counts with the time window
 * they fell in (the order of samples inside one window is not known: the kernel only counts), the
 * stacks their ids name, and samples the kernel could not store.
 */
public final class Drained {
    /** The counts of one drain, taken between {@code fromMicros} and {@code toMicros} after the start. */
    public record Window(long fromMicros, long toMicros, Map<SampleKey, Long> counts) {
    }

    private final List<Window> windows = new ArrayList<>();
    private final Map<Integer, long[]> stacks = new LinkedHashMap<>();
    private long lostToFullCountMap;

    void add(Window w) {
        if (!w.counts().isEmpty()) {
            windows.add(w);
        }
    }

    void stack(int id, long[] ips) {
        stacks.put(id, ips);
    }

    boolean hasStack(int id) {
        return stacks.containsKey(id);
    }

    void lostToFullCountMap(long n) {
        lostToFullCountMap = n;
    }

    public List<Window> windows() {
        return windows;
    }

    /** The instruction pointers of a stack id, leaf first; null when the id was never read. */
    public long[] stack(int id) {
        return stacks.get(id);
    }

    public long lostToFullCountMap() {
        return lostToFullCountMap;
    }

    public long counted() {
        long n = 0;
        for (Window w : windows) {
            for (long c : w.counts().values()) {
                n += c;
            }
        }
        return n;
    }
}
