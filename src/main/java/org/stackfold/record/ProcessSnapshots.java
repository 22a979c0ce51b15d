package org.stackfold.record;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import org.stackfold.symbolize.AddressSymbolizer;
import org.stackfold.symbolize.Symbolizer;

/**
 * The symbolizer's view of every process a recording saw, taken the moment each first appears (BCC
 * and bpftrace read /proc/PID/maps only at the end and print [unknown] for processes that exited
 * before). JVMs' JIT code is named by their perf maps, which are snapshots: every
 * {@link #JVM_REFRESH_NANOS} and when sampling stops, each live JVM is asked to write a fresh one
 * ({@link JvmPerfMap}) and its snapshot is taken again, so a JVM that exits before the end keeps the
 * names of all but its last seconds' new code.
 */
public final class ProcessSnapshots implements Recorder.Listener {
    static final long JVM_REFRESH_NANOS = 2_000_000_000L;

    private final Symbolizer symbolizer;
    private final Map<Integer, AddressSymbolizer> snapshots = new HashMap<>();
    private final Set<Integer> jvms = new HashSet<>();
    private long lastRefresh = System.nanoTime();

    public ProcessSnapshots(Symbolizer symbolizer) {
        this.symbolizer = symbolizer;
    }

    @Override
    public void newProcess(int pid) {
        if (JvmPerfMap.isJvm(pid)) {
            jvms.add(pid);
            JvmPerfMap.request(pid);
        }
        snapshots.put(pid, snapshot(pid));
    }

    @Override
    public void drained() {
        if (!jvms.isEmpty() && System.nanoTime() - lastRefresh >= JVM_REFRESH_NANOS) {
            refreshJvms();
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
        lastRefresh = System.nanoTime();
        for (Iterator<Integer> it = jvms.iterator(); it.hasNext(); ) {
            int pid = it.next();
            if (!JvmPerfMap.request(pid)) {
                if (!Files.exists(Path.of("/proc/" + pid))) {
                    it.remove(); // exited: keep the last snapshot
                }
                continue;
            }
            symbolizer.forget(pid);
            AddressSymbolizer fresh = snapshot(pid);
            if (fresh != null) {
                snapshots.put(pid, fresh);
            }
        }
    }

    /** The process's symbolizer, or null when it could not be read. */
    public AddressSymbolizer of(int pid) {
        return snapshots.get(pid);
    }

    public int processes() {
        return snapshots.size();
    }
}
