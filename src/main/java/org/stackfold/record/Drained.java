package org.stackfold.record;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything drained from the kernel during a recording: each drain's counts with the time window
 * they fell in (the order of samples inside one window is not known: the kernel only counts), the
 * stacks their ids name, and samples the kernel could not store. The kernel reuses stack ids from
 * one drain to the next, so stacks are kept by content under ids of their own.
 */
public final class Drained {
    /** The counts of one drain, taken between {@code fromMicros} and {@code toMicros} after the start. */
    public record Window(long fromMicros, long toMicros, Map<SampleKey, Long> counts) {
    }

    private final List<Window> windows = new ArrayList<>();
    private final List<long[]> stacks = new ArrayList<>();
    private final Map<Stack, Integer> ids = new HashMap<>();
    private long lostToFullCountMap;
    private PythonFrames python;

    void add(Window w) {
        if (!w.counts().isEmpty()) {
            windows.add(w);
        }
    }

    /** Instruction pointers as a hash key. */
    private record Stack(long[] ips) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Stack s && Arrays.equals(ips, s.ips);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(ips);
        }
    }

    /** The id of a stack (leaf first), the same for the same instruction pointers. */
    int intern(long[] ips) {
        return ids.computeIfAbsent(new Stack(ips), s -> {
            stacks.add(s.ips());
            return stacks.size() - 1;
        });
    }

    void lostToFullCountMap(long n) {
        lostToFullCountMap = n;
    }

    public List<Window> windows() {
        return windows;
    }

    /** The instruction pointers of a stack id from {@link #intern}, leaf first. */
    public long[] stack(int id) {
        return stacks.get(id);
    }

    void python(PythonFrames p) {
        python = p;
    }

    /** The names of the Python frames in the stacks (null without the walker). */
    public PythonFrames python() {
        return python;
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
