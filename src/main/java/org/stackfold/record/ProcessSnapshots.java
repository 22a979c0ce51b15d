package org.stackfold.record;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.stackfold.symbolize.AddressSymbolizer;
import org.stackfold.symbolize.Symbolizer;

/**
 * The symbolizer's view of every process a recording saw, taken the moment each first appears (BCC
 * and bpftrace read /proc/PID/maps only at the end and print [unknown] for processes that exited
 * before). JVMs are asked again when sampling stops, while they still run, because their perf maps
 * are snapshots and code compiled since the first look would otherwise have no names.
 */
public final class ProcessSnapshots implements Recorder.Listener {
    private final Symbolizer symbolizer;
    private final Map<Integer, AddressSymbolizer> snapshots = new HashMap<>();

    public ProcessSnapshots(Symbolizer symbolizer) {
        this.symbolizer = symbolizer;
    }

    @Override
    public void newProcess(int pid) {
        snapshots.put(pid, snapshot(pid));
    }

    private AddressSymbolizer snapshot(int pid) {
        try {
            return symbolizer.process(pid);
        } catch (IOException | RuntimeException e) {
            return null; // gone before we could look: its frames stay [unknown]
        }
    }

    /** Takes JVMs' snapshots again (fresh perf maps) for those still running. */
    public void refreshJvms() {
        for (Map.Entry<Integer, AddressSymbolizer> e : snapshots.entrySet()) {
            int pid = e.getKey();
            if (isJvm(pid)) {
                symbolizer.forget(pid);
                AddressSymbolizer fresh = snapshot(pid);
                if (fresh != null) {
                    e.setValue(fresh);
                }
            }
        }
    }

    private static boolean isJvm(int pid) {
        try {
            return Files.readString(Path.of("/proc/" + pid + "/maps")).contains("/libjvm.so");
        } catch (IOException | RuntimeException e) {
            return false;
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
