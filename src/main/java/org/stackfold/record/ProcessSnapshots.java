package org.stackfold.record;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
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
 *
 * <p>All of this runs on a worker thread of its own, so that reading a burst of new processes never
 * delays a drain (a late drain lets stack maps fill and collide). Map access is by that thread only
 * until {@link #finish} has returned.
 */
public final class ProcessSnapshots implements Recorder.Listener {
    static final long FIRST_JVM_REFRESH_NANOS = 2_000_000_000L;

    private final Symbolizer symbolizer;
    /** By pid and exec count ({@link #key}): a process that execs gets a snapshot per program. */
    private final Map<Long, AddressSymbolizer> snapshots = new HashMap<>();
    /** The exec count of each process's latest snapshot. */
    private final Map<Integer, Integer> latest = new HashMap<>();
    /** Live JVMs: pid to {next refresh time, interval}. */
    private final Map<Integer, long[]> jvms = new HashMap<>();

    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "stackfold-snapshots");
        t.setDaemon(true);
        return t;
    });

    public ProcessSnapshots(Symbolizer symbolizer) {
        this.symbolizer = symbolizer;
    }

    static long key(int pid, int exec) {
        return (long) pid << 32 | (exec & 0xffffffffL);
    }

    @Override
    public void newProcess(int pid) {
        newProgram(pid, 0);
    }

    @Override
    public void newProgram(int pid, int exec) {
        worker.execute(() -> take(pid, exec));
    }

    private void take(int pid, int exec) {
        Integer before = latest.get(pid);
        if (before != null && before >= exec) {
            return; // a sample of an earlier program, seen late: its maps are gone
        }
        if (before != null) {
            symbolizer.forget(pid); // the process exec'd: its old snapshot must not name the new program
        }
        latest.put(pid, exec);
        if (JvmPerfMap.isJvm(pid)) {
            jvms.put(pid, new long[] {System.nanoTime() + FIRST_JVM_REFRESH_NANOS, FIRST_JVM_REFRESH_NANOS});
            JvmPerfMap.request(pid);
        }
        snapshots.put(key(pid, exec), snapshot(pid));
    }

    @Override
    public void drained() {
        worker.execute(this::refreshDueJvms);
    }

    private void refreshDueJvms() {
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

    /**
     * Takes the snapshots still queued, then fresh perf maps and snapshots of the JVMs still running;
     * returns when all is done.
     */
    public void finish() {
        worker.execute(() -> jvms.keySet().removeIf(pid -> !refresh(pid)));
        worker.shutdown();
        try {
            while (!worker.awaitTermination(1, TimeUnit.MINUTES)) {
                // keep waiting: the profile needs every snapshot
            }
        } catch (InterruptedException e) {
            worker.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    /** A fresh perf map and snapshot of one JVM; false once it has exited (its last snapshot stays). */
    private boolean refresh(int pid) {
        if (!JvmPerfMap.request(pid)) {
            return Files.exists(Path.of("/proc/" + pid));
        }
        symbolizer.forget(pid);
        AddressSymbolizer fresh = snapshot(pid);
        if (fresh != null) {
            snapshots.put(key(pid, latest.getOrDefault(pid, 0)), fresh);
        }
        return true;
    }

    /** The process's symbolizer, or null when it could not be read. */
    public AddressSymbolizer of(int pid) {
        return of(pid, 0);
    }

    /** The symbolizer of the program a process ran after {@code exec} execs, or null when none was taken. */
    public AddressSymbolizer of(int pid, int exec) {
        return snapshots.get(key(pid, exec));
    }

    public int processes() {
        return latest.size();
    }
}
