package org.stackfold.record;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.stackfold.io.TempFiles;
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
 * <p>Passive by default ({@link JvmPerfMap}): only JVMs whose attach listener already runs are asked,
 * except the processes of a command the recording started and, with {@code --jvm-attach}, every JVM.
 * A perf map that did not exist before a JVM was first asked is deleted when the recording ends (its
 * names are in the snapshots by then): a recording leaves no file behind.
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
    /** Each process's name ({@code /proc/PID/comm}) when it was first seen: the agent's service names. */
    private final Map<Integer, String> names = new HashMap<>();
    /** Each process's executable and command line when it was first seen, if {@link #readFacts} asked. */
    private final Map<Integer, Facts> facts = new HashMap<>();
    private volatile boolean readFacts;
    /** Live JVMs: pid to {next refresh time, interval}. */
    private final Map<Integer, long[]> jvms = new HashMap<>();
    /** Perf maps the JVMs wrote because they were asked, to delete at the end. */
    private final Set<Path> createdPerfMaps = new HashSet<>();
    private final boolean attachAnyJvm;
    private volatile int command = -1;

    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "stackfold-snapshots");
        t.setDaemon(true);
        return t;
    });

    public ProcessSnapshots(Symbolizer symbolizer) {
        this(symbolizer, false);
    }

    /** {@code attachAnyJvm}: start the attach listener of any JVM (SIGQUIT), not only of the recorded command's. */
    public ProcessSnapshots(Symbolizer symbolizer, boolean attachAnyJvm) {
        this.symbolizer = symbolizer;
        this.attachAnyJvm = attachAnyJvm;
    }

    /**
     * What a process was when first seen after its last exec: {@code /proc/PID/comm}, the target of
     * {@code /proc/PID/exe} and {@code /proc/PID/cmdline} with its NULs as spaces (each "" when it
     * could not be read: a kernel thread has no exe nor command line).
     */
    public record Facts(String comm, String exe, String cmdline) {
    }

    /** Also read each new process's executable and command line ({@link #facts}): the agent's label rules. */
    public ProcessSnapshots readFacts(boolean yes) {
        readFacts = yes;
        return this;
    }

    @Override
    public void commandStarted(int pid) {
        command = pid;
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
        String comm = null;
        try {
            comm = ProcFiles.read(Path.of("/proc/" + pid + "/comm")).strip();
            names.put(pid, comm);
        } catch (IOException | RuntimeException e) {
            // gone already: the name of its samples' threads stands in
        }
        if (readFacts) {
            facts.put(pid, readFacts(pid, comm));
        }
        if (JvmPerfMap.isJvm(pid)) {
            jvms.put(pid, new long[] {System.nanoTime() + FIRST_JVM_REFRESH_NANOS, FIRST_JVM_REFRESH_NANOS});
            ask(pid);
        }
        snapshots.put(key(pid, exec), snapshot(pid));
    }

    /**
     * A process mapped new code since its snapshot (a {@code dlopen}): a fresh snapshot names the new
     * code, and the one before stays behind it for code unmapped since ({@code dlclose}), so samples
     * from before the change keep their names. Before its first snapshot nothing is needed: that
     * snapshot is taken later and sees the new code.
     */
    @Override
    public void mapsChanged(int pid, int exec) {
        worker.execute(() -> {
            Integer at = latest.get(pid);
            AddressSymbolizer before = snapshots.get(key(pid, exec));
            if (at == null || at != exec || before == null) {
                return;
            }
            symbolizer.forget(pid);
            AddressSymbolizer fresh = snapshot(pid);
            if (fresh != null) {
                snapshots.put(key(pid, exec), new Layered(fresh, before));
            }
        });
    }

    /** The newer snapshot first; an address it has no mapping for goes to the older one. */
    private record Layered(AddressSymbolizer newer, AddressSymbolizer older) implements AddressSymbolizer {
        @Override
        public java.util.List<org.stackfold.symbolize.SymbolFrame> symbolize(long address) {
            java.util.List<org.stackfold.symbolize.SymbolFrame> f = newer.symbolize(address);
            if (f.size() == 1 && f.get(0).module() == null && Symbolizer.UNKNOWN.equals(f.get(0).function())) {
                return older.symbolize(address);
            }
            return f;
        }
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

    private static Facts readFacts(int pid, String comm) {
        Path dir = Path.of("/proc/" + pid);
        String exe = "", cmdline = "";
        try {
            exe = Files.readSymbolicLink(dir.resolve("exe")).toString();
        } catch (IOException | RuntimeException e) {
            // a kernel thread, or gone
        }
        try {
            byte[] b = Files.readAllBytes(dir.resolve("cmdline"));
            int n = b.length;
            while (n > 0 && b[n - 1] == 0) {
                n--;
            }
            for (int i = 0; i < n; i++) {
                if (b[i] == 0) {
                    b[i] = ' ';
                }
            }
            cmdline = new String(b, 0, n, java.nio.charset.StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            // gone
        }
        return new Facts(comm == null ? "" : comm, exe, cmdline);
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
        if (!ask(pid)) {
            return Files.exists(Path.of("/proc/" + pid));
        }
        symbolizer.forget(pid);
        AddressSymbolizer fresh = snapshot(pid);
        if (fresh != null) {
            snapshots.put(key(pid, latest.getOrDefault(pid, 0)), fresh);
        }
        return true;
    }

    /** Asks one JVM for its perf map, noting a map file that only exists because it was asked. */
    private boolean ask(int pid) {
        Path map = JvmPerfMap.perfMapPath(pid);
        boolean existed = Files.exists(map);
        boolean done = JvmPerfMap.request(pid, attachAnyJvm || descendsFromCommand(pid));
        if (done && !existed && Files.exists(map)) {
            Path stable = stablePath(pid, map);
            createdPerfMaps.add(stable);
            TempFiles.register(stable);
        }
        return done;
    }

    /** The map's path that outlives the process: /tmp/... when the JVM shares our root directory. */
    private static Path stablePath(int pid, Path map) {
        try {
            if (Files.isSameFile(Path.of("/proc/" + pid + "/root"), Path.of("/proc/self/root"))) {
                return Path.of("/tmp").resolve(map.getFileName());
            }
        } catch (IOException | RuntimeException e) {
            // keep the /proc path
        }
        return map;
    }

    /** Whether {@code pid} is the recorded command or one of its descendants (a process the recording started). */
    private boolean descendsFromCommand(int pid) {
        int root = command;
        if (root <= 0) {
            return false;
        }
        for (int p = pid, hops = 0; p > 1 && hops < 4096; hops++) {
            if (p == root) {
                return true;
            }
            try {
                String stat = ProcFiles.read(Path.of("/proc/" + p + "/stat"));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                p = Integer.parseInt(f[1]);
            } catch (IOException | RuntimeException e) {
                return false;
            }
        }
        return false;
    }

    /** Runs {@code task} on the worker, after every snapshot asked for so far (it may read them). */
    public void onWorker(Runnable task) {
        worker.execute(task);
    }

    /**
     * Forgets processes that have exited (on the worker, after their last interval was folded): their
     * snapshots and the symbolizer's state, so that an always-on recording holds only live processes.
     */
    public void forget(java.util.Collection<Integer> exited) {
        for (int pid : exited) {
            Integer exec = latest.remove(pid);
            if (exec != null) {
                for (int e = 0; e <= exec; e++) {
                    snapshots.remove(key(pid, e));
                }
            }
            jvms.remove(pid);
            names.remove(pid);
            facts.remove(pid);
            symbolizer.forget(pid);
        }
    }

    /** Deletes the perf maps the recording caused (after {@link #finish}: the snapshots hold their names). */
    public void removeCreatedFiles() {
        for (Path p : createdPerfMaps) {
            TempFiles.delete(p);
        }
        createdPerfMaps.clear();
    }

    /** The process's symbolizer, or null when it could not be read. */
    public AddressSymbolizer of(int pid) {
        return of(pid, 0);
    }

    /** The symbolizer of the program a process ran after {@code exec} execs, or null when none was taken. */
    public AddressSymbolizer of(int pid, int exec) {
        return snapshots.get(key(pid, exec));
    }

    /** A process's name when it was first seen (after its program's exec), or null; on the worker. */
    public String name(int pid) {
        return names.get(pid);
    }

    /**
     * A process's {@link Facts} when it was first seen (with {@link #readFacts}), or null; on the worker.
     * A process not announced yet (its samples so far had no user stack: the walker had not read its
     * maps) has its facts read now, not kept (it is forgotten only once announced).
     */
    public Facts facts(int pid) {
        Facts f = facts.get(pid);
        if (f == null && readFacts && !latest.containsKey(pid)) {
            String comm = null;
            try {
                comm = ProcFiles.read(Path.of("/proc/" + pid + "/comm")).strip();
            } catch (IOException | RuntimeException e) {
                return null; // gone: its samples' thread name stands in
            }
            f = readFacts(pid, comm);
        }
        return f;
    }

    public int processes() {
        return latest.size();
    }
}
