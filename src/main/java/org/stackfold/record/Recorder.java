package org.stackfold.record;

import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.stackfold.record.bpf.BpfProgram;
import org.stackfold.record.bpf.ErrnoException;

/**
 * Runs a recording: sets up the {@link Sampler}, attaches it to the whole system, the given
 * processes or a command it starts, drains the counts every {@link RecordOptions#drainMillis} until
 * the time is up, the processes are gone or {@link #stop} is called, and keeps what it drained.
 * Each process is announced to the {@link Listener} the first time it is seen, while it still
 * lives, so that its memory maps can be read.
 */
public final class Recorder {
    /** Learns of each new process as it is drained (still on the drain thread). */
    public interface Listener {
        void newProcess(int pid);

        /** The recorded command was started as {@code pid} (before it runs its first instruction). */
        default void commandStarted(int pid) {
        }

        /**
         * A process seen running a program for the first time: after {@code exec} execs since the
         * recording began (always 0 with the frame-pointer program, which does not count them).
         */
        default void newProgram(int pid, int exec) {
            newProcess(pid);
        }

        /**
         * A process that was running {@code exec}'s program mapped new code (a {@code dlopen}) after its
         * maps were first read; called on the unwind worker's thread (walker only).
         */
        default void mapsChanged(int pid, int exec) {
        }

        /** After each drain, on the drain thread. */
        default void drained() {
        }
    }

    /** What a recording produced. */
    public record Result(Drained drained, int maxDepth, int stackEntries, int cpus, double seconds,
                         BpfProgram.RunStats programStats, Sampler.WalkerStats walker, String note) {
    }

    /**
     * One interval of an always-on recording ({@link #every}): the counts of the drains since the previous
     * interval (cut at a drain boundary: each count is in exactly one interval), from and to in
     * microseconds after the start, samples lost to a full count map meanwhile, and the processes found
     * gone at the cut (none of them can have samples in a later interval).
     */
    public record Interval(Drained drained, long fromMicros, long toMicros, int maxDepth, long lostToFullCountMap,
                           Set<Integer> exited, boolean last) {
    }

    /** Receives each interval on the drain thread; hand the work elsewhere, the next drain is due. */
    public interface Intervals {
        void interval(Interval interval) throws IOException;
    }

    private final RecordOptions options;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Object wake = new Object();
    private long everyMicros;
    private Intervals intervals;
    private volatile Sampler sampler;
    private volatile boolean commandStdoutToStderr;
    private boolean pythonLines = true;

    public Recorder(RecordOptions options) {
        this.options = options;
    }

    /**
     * Sends the recorded command's stdout to this process's stderr (where the profile goes to stdout,
     * so that the command's output never lands in the profile).
     */
    public void commandStdoutToStderr(boolean yes) {
        commandStdoutToStderr = yes;
    }

    /** Python frames with their instruction (line-level, the default) or function-level ({@code --no-lines}). */
    public void pythonLines(boolean yes) {
        pythonLines = yes;
    }

    /** Ends the recording at the next check (within ~50 ms); safe from a signal handler's thread. */
    public void stop() {
        stop.set(true);
        synchronized (wake) {
            wake.notifyAll();
        }
    }

    /**
     * Cuts the recording into intervals of about {@code seconds} (at the first drain boundary after each
     * interval's end), each handed to {@code sink} with its own {@link Drained}; the last one when the
     * recording ends. The recording's {@link Result} then holds no counts.
     */
    public Recorder every(double seconds, Intervals sink) {
        everyMicros = (long) (seconds * 1e6);
        intervals = sink;
        return this;
    }

    /** The drains' bpf(2) calls so far ({@link Sampler#drainCalls}), or null before the recording starts. */
    public long[] drainCalls() {
        Sampler s = sampler;
        return s == null ? null : s.drainCalls();
    }

    public Result record(Listener listener, boolean measureProgram) throws IOException {
        int cpus = OnlineCpus.read().size();
        Drained drained = new Drained();
        Set<Long> seen = new HashSet<>();
        try (Sampler sampler = new Sampler(options, stackEntries(options),
                new TablesRowSource(new org.stackfold.unwind.UnwindTables().memoryBudget(UNWIND_ROWS_IN_MEMORY)), pythonLines);
             CommandLauncher.Watchdog watchdog = new CommandLauncher.Watchdog()) {
            this.sampler = sampler;
            sampler.onRemap(listener::mapsChanged);
            drained.python(sampler.python());
            if (measureProgram) {
                sampler.enableRunTimeStats();
            }
            Process child = null;
            if (!options.command().isEmpty()) {
                child = CommandLauncher.startStopped(options.command(), commandStdoutToStderr);
                try {
                    watchdog.watch(child.pid());
                } catch (IOException | RuntimeException e) {
                    child.destroyForcibly();
                    throw e;
                }
                listener.commandStarted((int) child.pid());
                try {
                    // The command's files get their tables before it runs: its first samples are whole.
                    sampler.prepare(CommandLauncher.files(options.command()), (int) child.pid());
                    sampler.attachTaskTree((int) child.pid(), options.frequency());
                } catch (IOException e) {
                    child.destroyForcibly();
                    throw e;
                }
                CommandLauncher.resume(child);
            } else {
                sampler.refreshRunning(options.pids()); // the walker knows them before their first sample
                sampler.detectPython(options.pids());
                sampler.attachAllCpus(options.frequency());
            }
            long start = System.nanoTime();
            long deadline = options.seconds() > 0 ? start + (long) (options.seconds() * 1e9) : Long.MAX_VALUE;
            long windowStart = 0;
            long interval = drainMillis(options, cpus);
            long intervalStart = 0;
            long lostBefore = 0;
            while (!stop.get() && System.nanoTime() < deadline && targetsAlive(child)) {
                pause(Math.min(interval, Math.max(1, (deadline - System.nanoTime()) / 1_000_000)), child);
                long now = (System.nanoTime() - start) / 1000;
                drainInto(sampler, drained, new Drained.Window(windowStart, now, new HashMap<>()), seen, listener);
                windowStart = now;
                if (intervals != null && now - intervalStart >= everyMicros) {
                    long lost = sampler.lostToFullCountMap();
                    intervals.interval(new Interval(drained, intervalStart, now, sampler.maxDepth(), lost - lostBefore,
                            exited(seen), false));
                    lostBefore = lost;
                    drained = new Drained();
                    if (sampler.python() != null) {
                        sampler.python().newNames(); // the interval's names go with it once folded
                    }
                    drained.python(sampler.python()); // Python frames are named in every interval
                    intervalStart = now;
                }
            }
            sampler.stop();
            long end = (System.nanoTime() - start) / 1000;
            drainInto(sampler, drained, new Drained.Window(windowStart, end, new HashMap<>()), seen, listener);
            drained.lostToFullCountMap(sampler.lostToFullCountMap());
            if (intervals != null) {
                long lost = sampler.lostToFullCountMap();
                intervals.interval(new Interval(drained, intervalStart, end, sampler.maxDepth(), lost - lostBefore,
                        Set.of(), true));
                drained = new Drained();
            }
            if (child != null && child.isAlive()) {
                child.destroy(); // as perf record does: the command does not outlive its recording
            }
            return new Result(drained, sampler.maxDepth(), sampler.stackEntries(), cpus, end / 1e6,
                    measureProgram ? sampler.programStats() : null, sampler.walkerStats(), Unwinding.note(options));
        }
    }

    /**
     * The processes seen so far that have gone, forgotten from {@code seen} (so that a new process
     * given the same pid is announced again): after the cut they have no more samples.
     */
    private static Set<Integer> exited(Set<Long> seen) {
        Set<Integer> gone = new HashSet<>();
        Set<Integer> alive = new HashSet<>();
        for (java.util.Iterator<Long> it = seen.iterator(); it.hasNext(); ) {
            int pid = (int) (it.next() >>> 32);
            if (alive.contains(pid)) {
                continue;
            }
            if (gone.contains(pid) || !java.nio.file.Files.exists(java.nio.file.Path.of("/proc/" + pid))) {
                gone.add(pid);
                it.remove();
            } else {
                alive.add(pid);
            }
        }
        return gone;
    }

    /** Sleeps about {@code millis}, waking early for a stop request or the command's exit. */
    private void pause(long millis, Process child) {
        if (child == null && options.pids().isEmpty()) {
            // The whole system: nothing to watch but a stop request, which wakes this wait.
            long until = System.nanoTime() + millis * 1_000_000;
            synchronized (wake) {
                long left;
                while (!stop.get() && (left = until - System.nanoTime()) > 0) {
                    try {
                        wake.wait(Math.max(1, left / 1_000_000));
                    } catch (InterruptedException e) {
                        stop.set(true);
                        Thread.currentThread().interrupt();
                    }
                }
            }
            return;
        }
        long until = System.nanoTime() + millis * 1_000_000;
        while (!stop.get() && System.nanoTime() < until && targetsAlive(child)) {
            try {
                Thread.sleep(Math.min(50, Math.max(1, (until - System.nanoTime()) / 1_000_000)));
            } catch (InterruptedException e) {
                stop.set(true);
                Thread.currentThread().interrupt();
            }
        }
    }

    private boolean targetsAlive(Process child) {
        if (child != null) {
            return child.isAlive();
        }
        if (options.pids().isEmpty()) {
            return true;
        }
        for (int pid : options.pids()) {
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                return true;
            }
        }
        return false;
    }

    private static void drainInto(Sampler sampler, Drained drained, Drained.Window window, Set<Long> seen,
                                  Listener listener) throws IOException {
        Map<SampleKey, Long> counts = window.counts();
        sampler.drain((key, count, kernelIps, userIps) -> {
            SampleKey k = key.withStacks(ownId(drained, key.kernelStack(), kernelIps),
                    ownId(drained, key.userStack(), userIps));
            counts.merge(k, count, Long::sum);
            if (k.userStack() >= 0 && seen.add((long) k.pid() << 32 | (k.exec() & 0xffffffffL))) {
                listener.newProgram(k.pid(), k.exec());
            }
        });
        drained.add(window);
        listener.drained();
    }

    /** The recorder's id of a drained stack; errors stay as they are, and a vanished id becomes -ENOENT. */
    private static int ownId(Drained drained, int kernelId, long[] ips) {
        if (kernelId < 0) {
            return kernelId;
        }
        return ips == null ? -ErrnoException.ENOENT : drained.intern(ips);
    }

    /**
     * Entries of each of the two stack maps. A stack map is a hash table indexed by stack hash that
     * drops a stack whose bucket is taken (EEXIST), so the share lost is about (distinct stacks in
     * one drain interval) / (2 x entries): BCC's default of 16384 keeps it near 0.3% for the ~100
     * stacks of a 250 ms interval at 99 Hz on 2 CPUs (faster rates drain more often, see
     * {@link #drainMillis}). Each 127-frame entry costs about 1 KiB of kernel memory.
     */
    static int stackEntries(RecordOptions o) {
        return o.stackStorage() > 0 ? o.stackStorage() : 16384;
    }

    /** The drain interval: as given, else about 50 samples an interval, between 50 and 250 ms. */
    static long drainMillis(RecordOptions o, int cpus) {
        if (o.drainMillis() > 0) {
            return o.drainMillis();
        }
        return Math.max(50, Math.min(250, 50_000L / ((long) o.frequency() * cpus)));
    }

    /**
     * Rows of unwind tables kept in the JVM's heap: the kernel has every loaded file's rows, so Java
     * needs a table again only for a file mapped anew after its last user exited (a compiler run again
     * and again); past this the least recently used are read back from the disk cache instead.
     */
    static final long UNWIND_ROWS_IN_MEMORY = 16L << 20;

    /** For a listener that needs nothing. */
    public static final Listener IGNORE = pid -> { };
}
