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
    private final List<long[]> stacks;
    private final Map<Stack, Integer> ids;
    private long lostToFullCountMap;
    private PythonFrames python;
    private PythonFrames.Names pythonNames;

    public Drained() {
        this(new ArrayList<>(), new HashMap<>());
    }

    private Drained(List<long[]> stacks, Map<Stack, Integer> ids) {
        this.stacks = stacks;
        this.ids = ids;
    }

    /**
     * The counts of the processes {@code pids} accepts, in the same windows, sharing this one's stacks
     * (the agent's profile per process or service) and the names of their Python frames; no lost
     * samples of its own.
     */
    public Drained select(java.util.function.IntPredicate pids) {
        Drained d = new Drained(stacks, ids);
        d.python = python; // without it, --split and --label rules folded every Python frame as [python]
        d.pythonNames = pythonNames;
        for (Window w : windows) {
            Map<SampleKey, Long> counts = new HashMap<>();
            w.counts().forEach((k, n) -> {
                if (pids.test(k.pid())) {
                    counts.put(k, n);
                }
            });
            d.add(new Window(w.fromMicros(), w.toMicros(), counts));
        }
        return d;
    }

    /** The processes with counts here. */
    public java.util.Set<Integer> pids() {
        java.util.Set<Integer> pids = new java.util.TreeSet<>();
        for (Window w : windows) {
            for (SampleKey k : w.counts().keySet()) {
                pids.add(k.pid());
            }
        }
        return pids;
    }

    /** The thread name of one of a process's counts (for a process whose name could not be read). */
    public String comm(int pid) {
        for (Window w : windows) {
            for (SampleKey k : w.counts().keySet()) {
                if (k.pid() == pid) {
                    return k.comm();
                }
            }
        }
        return "";
    }

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

    /** The Python frames' detection, and the table of names the stacks drained into this one index. */
    void python(PythonFrames p) {
        python = p;
        pythonNames = p == null ? null : p.names();
    }

    /** The names of the Python frames in the stacks (null without the walker). */
    PythonFrames.Names pythonNames() {
        return pythonNames;
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
