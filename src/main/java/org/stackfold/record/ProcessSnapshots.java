package org.stackfold.record;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import org.stackfold.symbolize.AddressSymbolizer;
import org.stackfold.symbolize.Symbolizer;

/**
 * The symbolizer's view of every process a recording saw, taken the moment each first appears (BCC
 * and bpftrace read /proc/PID/maps only at the end and print [unknown] for processes that exited
 * before). JVMs' JIT code is named by their perf maps, which are snapshots: each live JVM is asked
 * to write a fresh one ({@link JvmPerfMap}) and its snapshot is taken again 2, 4, 8, ... seconds
 * after it was first seen (most code is compiled early in a JVM's life, and each refresh reads the
 * whole map again) and when sampling stops, so a JVM that exits before the end keeps the names of
 * all but its most recent code.
 */
public final class ProcessSnapshots implements Recorder.Listener {
    static final long FIRST_JVM_REFRESH_NANOS = 2_000_000_000L;

    private final Symbolizer symbolizer;
    private final Map<Integer, AddressSymbolizer> snapshots = new HashMap<>();
    /** Live JVMs: pid to {next refresh time, interval}. */
    private final Map<Integer, long[]> jvms = new HashMap<>();

    public ProcessSnapshots(Symbolizer symbolizer) {
        this.symbolizer = symbolizer;
    }

    @Override
    public void newProcess(int pid) {
        if (JvmPerfMap.isJvm(pid)) {
            jvms.put(pid, new long[] {System.nanoTime() + FIRST_JVM_REFRESH_NANOS, FIRST_JVM_REFRESH_NANOS});
            JvmPerfMap.request(pid);
        }
        snapshots.put(pid, snapshot(pid));
    }

    @Override
    public void drained() {
        long now = System.nanoTime();
        for (Iterator<Map.Entry<Integer, long[]>> it = jvms.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Integer, long[]> e = it.next();
            long[] due = e.getValue();
            if (now - due[0] >= 0) {
                due[1] *= 2;
                due[0] = now + due[1];
                if (!refresh(e.getKey())) {
                    it.remove();
                }
            }
        }
    }

    private AddressSymbolizer snapshot(int pid) {
        try {
            return symbolizer.process(pid);
        } catch (IOException | RuntimeException e) {
            return null; // gone before we could look: its frames stay [unknown]
        }
    }

    /** Fresh perf maps and snapshots of the JVMs still running. */
    public void refreshJvms() {
        jvms.keySet().removeIf(pid -> !refresh(pid));
    }

    /** A fresh perf map and snapshot of one JVM; false once it has exited (its last snapshot stays). */
    private boolean refresh(int pid) {
        if (!JvmPerfMap.request(pid)) {
            return Files.exists(Path.of("/proc/" + pid));
        }
        symbolizer.forget(pid);
        AddressSymbolizer fresh = snapshot(pid);
        if (fresh != null) {
            snapshots.put(pid, fresh);
        }
        return true;
    }

    /** The process's symbolizer, or null when it could not be read. */
    public AddressSymbolizer of(int pid) {
        return snapshots.get(pid);
    }

    public int processes() {
        return snapshots.size();
    }
}
