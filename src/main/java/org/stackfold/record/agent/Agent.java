package org.stackfold.record.agent;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.stackfold.record.ProcessSnapshots;
import org.stackfold.record.RecordOptions;
import org.stackfold.record.Recorder;
import org.stackfold.record.StackFolder;
import org.stackfold.symbolize.Symbolizer;
import org.stackfold.symbolize.SymbolizerOptions;

/**
 * {@code stackfold record --every SECONDS}: one recording that never stops, cut into intervals at
 * drain boundaries ({@link Recorder#every}), each folded into its own profile on the snapshot worker
 * (which holds the processes' symbols; a process's are forgotten once it has exited and its last
 * interval is folded) and handed to an output thread that sends it to every {@link Destination}
 * through a {@link Delivery} (back-off, the on-disk {@link PendingQueue}). Health lines on stderr every
 * few intervals; {@link #stop} flushes the last interval. See docs/agent.md.
 */
public final class Agent {
    /** What the agent does beyond the recording. */
    public record Settings(double everySeconds, int healthEvery, Path queueDir, long queueMaxBytes,
                           Duration queueMaxAge, Map<String, String> labels, Split split, List<LabelRule> rules) {
        public Settings {
            rules = List.copyOf(rules);
        }

        public Settings(double everySeconds, int healthEvery, Path queueDir, long queueMaxBytes, Duration queueMaxAge,
                        Map<String, String> labels, Split split) {
            this(everySeconds, healthEvery, queueDir, queueMaxBytes, queueMaxAge, labels, split, List.of());
        }
    }

    /**
     * One profile an interval for everything recorded, or one per process (pid and service labels), or
     * per service (one per distinct set of a process's service and {@link LabelRule} labels).
     */
    public enum Split { NONE, PROCESS, SERVICE }

    /** What a run did, for the last line and for tests. */
    public record Summary(long intervals, long samples, long lost, long sent, long dropped, int queued,
                          long programRuns) {
    }

    /** The output thread's signal to finish (compared by identity). */

    private final RecordOptions options;
    private final Settings settings;
    private final List<Destination> destinations;
    private final PrintWriter err;
    private final Recorder recorder;
    private boolean attachAnyJvm;
    private org.stackfold.format.tachyon.TachyonOptions.Naming pythonNaming =
            org.stackfold.format.tachyon.TachyonOptions.Naming.CPYTHON;
    /**
     * Per destination, the intervals folded (each one profile, or one per process or service) and
     * waiting for its output thread; bounded: a destination stuck past 4 intervals drops its oldest.
     * A thread each, so that a slow one (the first store loading DuckDB on a loaded machine, a disk
     * or a server that hangs) never holds up the others: the files were dropped with the table's intervals.
     */
    private final List<BlockingQueue<List<IntervalProfile>>> inboxes = new ArrayList<>();
    private volatile boolean finished;
    /** SIGHUPs so far: each output thread ends its back-off once per new one. */
    private final java.util.concurrent.atomic.AtomicLong hangups = new java.util.concurrent.atomic.AtomicLong();
    private volatile long intervals, samples, lost, droppedBehind;
    private final Instant started = Instant.now();
    /** Symbolized addresses shared by the intervals (64 Ki addresses, a few MB), used on the snapshot worker only. */
    private final StackFolder.SymbolCache symbols = new StackFolder.SymbolCache(1 << 16);
    private final long cpuAtStart = cpuTicks();

    public Agent(RecordOptions options, Settings settings, List<Destination> destinations, PrintWriter err) {
        this.options = options;
        this.settings = settings;
        this.destinations = List.copyOf(destinations);
        this.err = err;
        this.recorder = new Recorder(options);
    }

    public Agent attachAnyJvm(boolean yes) {
        attachAnyJvm = yes;
        return this;
    }

    /**
     * Python frames line-level ({@code --lines}, the default) or by function ({@code --no-lines}), and
     * their text ({@code --tachyon-naming}): the agent ignored both before, always line-level CPython style.
     */
    public Agent python(boolean lines, org.stackfold.format.tachyon.TachyonOptions.Naming naming) {
        recorder.pythonLines(lines);
        pythonNaming = naming;
        return this;
    }

    /** Ends the recording after flushing the last interval (Ctrl-C, SIGTERM). */
    public void stop() {
        recorder.stop();
    }

    /** SIGHUP: queued intervals are tried again now, whatever their back-off, and files re-opened by name. */
    public void reopen() {
        hangups.incrementAndGet();
    }

    public Summary run(boolean measureProgram) throws IOException, InterruptedException {
        PendingQueue queue = new PendingQueue(settings.queueDir(), settings.queueMaxBytes(), settings.queueMaxAge());
        List<Delivery> deliveries = new ArrayList<>();
        for (int i = 0; i < destinations.size(); i++) {
            deliveries.add(new Delivery(destinations.get(i), i, queue, err));
        }
        List<Thread> outputs = new ArrayList<>();
        for (Delivery d : deliveries) {
            BlockingQueue<List<IntervalProfile>> inbox = new ArrayBlockingQueue<>(4);
            inboxes.add(inbox);
            outputs.add(Thread.ofPlatform().name("stackfold-output-" + (outputs.size() + 1)).daemon()
                    .start(() -> send(d, inbox)));
        }
        List<Destination.Upkeep> upkeeps = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (Destination d : destinations) {
            if (d.upkeep() != null) {
                upkeeps.add(d.upkeep());
                names.add(d.name());
            }
        }
        Thread upkeep = upkeeps.isEmpty() ? null
                : Thread.ofPlatform().name("stackfold-upkeep").daemon().start(() -> upkeep(upkeeps, names));
        SymbolizerOptions symbols = new SymbolizerOptions(true, false, false, false);
        Recorder.Result result;
        try (Symbolizer symbolizer = new Symbolizer(symbols).askJvmsForPerfMaps(false).symbolTableBudget(SYMBOL_TABLES)) {
            ProcessSnapshots processes = new ProcessSnapshots(symbolizer, attachAnyJvm)
                    .readFacts(!settings.rules().isEmpty());
            recorder.every(settings.everySeconds(), interval -> processes.onWorker(() -> {
                fold(interval, symbolizer, processes, queue, deliveries);
                processes.forget(interval.exited());
            }));
            try {
                result = recorder.record(processes, measureProgram);
            } finally {
                processes.finish();
                processes.removeCreatedFiles();
            }
        } finally {
            finished = true;
            synchronized (upkeepLock) {
                upkeepStopping = true;
                upkeepLock.notifyAll();
            }
            for (Thread t : outputs) {
                t.join();
            }
            if (upkeep != null) {
                upkeep.join(); // a compaction under way ends at its next safe point (a partition's rewrite)
            }
        }
        long sent = 0, dropped = droppedBehind + queue.dropped();
        for (Delivery d : deliveries) {
            sent += d.sent();
            dropped += d.dropped();
        }
        long runs = result.programStats() == null ? -1 : result.programStats().runCount();
        Summary s = new Summary(intervals, samples, lost, sent, dropped, queue.size(), runs);
        err.printf(Locale.ROOT, "stackfold agent: stopped after %,d intervals: %,d samples, %,d lost, %,d profiles sent,"
                        + " %,d dropped, %,d queued%s; CPU %.2f s%n", s.intervals(), s.samples(), s.lost(), s.sent(),
                s.dropped(), s.queued(), runs >= 0 ? String.format(Locale.ROOT, "; BPF program runs %,d", runs) : "",
                (cpuTicks() - cpuAtStart) / 100.0);
        err.flush();
        return s;
    }

    /** On the snapshot worker: one interval's counts into a profile, handed to the output thread. */
    private void fold(Recorder.Interval interval, Symbolizer symbolizer, ProcessSnapshots processes, PendingQueue queue,
                      List<Delivery> deliveries) {
        long from = interval.fromMicros(), to = interval.toMicros();
        Instant start = started.plusNanos(from * 1000);
        Duration duration = Duration.ofNanos((to - from) * 1000);
        Map<String, String> labels = new TreeMap<>(settings.labels());
        labels.put("interval_ms", Long.toString(duration.toMillis()));
        intervals++;
        lost += interval.lostToFullCountMap();
        org.stackfold.record.Drained all = interval.drained();
        List<IntervalProfile> out = new ArrayList<>();
        if (settings.split() == Split.NONE) {
            out.add(profile(folder(all, symbolizer, processes, interval), start, duration, labels));
        } else {
            // Groups: each process, or each set of labels (service: a rule's, else the process's name, read
            // when the process was first seen; and the rules' other labels).
            Map<String, java.util.Set<Integer>> groups = new TreeMap<>();
            for (int pid : all.pids()) {
                Map<String, String> l = new TreeMap<>(labels);
                l.putAll(processLabels(pid, processes, all));
                if (settings.split() == Split.PROCESS) {
                    l.put("pid", Integer.toString(pid));
                }
                String key = settings.split() == Split.PROCESS ? Integer.toString(pid) : l.toString();
                groups.computeIfAbsent(key, k -> new java.util.HashSet<>()).add(pid);
                groupLabels.put(key, l);
            }
            for (Map.Entry<String, java.util.Set<Integer>> g : groups.entrySet()) {
                java.util.Set<Integer> pids = g.getValue();
                out.add(profile(folder(all.select(pids::contains), symbolizer, processes, interval), start, duration,
                        groupLabels.get(g.getKey())));
            }
            groupLabels.clear();
        }
        for (BlockingQueue<List<IntervalProfile>> inbox : inboxes) {
            while (!inbox.offer(out)) {
                List<IntervalProfile> dropped = inbox.poll(); // this destination is stuck: its oldest interval goes
                droppedBehind += dropped == null ? 0 : dropped.size();
            }
        }
        symbols.forget(interval.exited());
        // The pages of the files whose symbols were read leave resident memory (100-200 MB of this busy
        // machine's binaries otherwise: compilers, JVMs, node); what the next fold needs is read again.
        symbolizer.unloadFiles();
        if (Duration.between(released, start).compareTo(RELEASE_FILES_EVERY) >= 0) {
            // The symbolizer keeps every ELF file it parsed (its symbol index: 40 MB of heap after 15 minutes of
            // this busy machine, and the files' pages it read are resident while mapped). Live processes'
            // snapshots hold the files they map; dropping the cache frees the rest (files only exited
            // processes mapped), at the cost of parsing again what a new process maps. Every 2 minutes, not
            // 10: the old generation's high-water mark stays resident.
            released = start;
            symbolizer.close();
        }
        if (settings.healthEvery() > 0 && intervals % settings.healthEvery() == 0 && !interval.last()) {
            health(queue, deliveries);
        }
    }

    /**
     * The heap the files' symbol tables may take (least recently used dropped past it, built again
     * when needed): a host runs hundreds of binaries over a day; a table is ~64 bytes a symbol (libjvm
     * 4.5 MB, DuckDB's library 7 MB), and each copy of a library a JVM unpacks to /tmp is a file of its own.
     */
    static final long SYMBOL_TABLES = 32L << 20;

    /** How often files only exited processes mapped are released: the heap follows the live processes. */
    static final Duration RELEASE_FILES_EVERY = Duration.ofMinutes(2);
    private Instant released = Instant.now();

    private final Map<String, Map<String, String>> groupLabels = new java.util.HashMap<>();

    private StackFolder.Folded folder(org.stackfold.record.Drained d, Symbolizer symbolizer, ProcessSnapshots processes,
                                      Recorder.Interval interval) {
        return new StackFolder(options, symbolizer, processes, d, interval.maxDepth()).cache(symbols)
                .pythonNaming(pythonNaming).fold();
    }

    private IntervalProfile profile(StackFolder.Folded f, Instant start, Duration duration, Map<String, String> labels) {
        long n = f.accounting().samples();
        samples += n;
        return new IntervalProfile(f.profile(), start, duration, labels, n);
    }

    /** A process's own labels: the rules' (first match per label), and service = its name unless a rule named it. */
    private Map<String, String> processLabels(int pid, ProcessSnapshots processes, org.stackfold.record.Drained all) {
        Map<String, String> l = new TreeMap<>();
        ProcessSnapshots.Facts f = processes.facts(pid);
        String name = processes.name(pid);
        if (!settings.rules().isEmpty()) {
            // A process seen before the rules' facts were read (or gone first): its thread name stands in.
            l.putAll(LabelRule.labels(settings.rules(),
                    f != null ? f : new ProcessSnapshots.Facts(name != null ? name : all.comm(pid), "", "")));
        }
        if (!l.containsKey("service")) {
            String service = labelValue(name != null ? name : all.comm(pid));
            l.put("service", service.isEmpty() ? "unknown" : service);
        }
        return l;
    }

    /**
     * A process name fit for a label value (as {@code record --store} makes them): characters other
     * than letters, digits, {@code _ . -} become {@code _}, as does {@code ..}.
     */
    static String labelValue(String name) {
        StringBuilder b = new StringBuilder();
        for (char c : (name == null ? "" : name.strip()).toCharArray()) {
            boolean ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.'
                    || c == '-';
            b.append(ok ? c : '_');
        }
        return b.toString().replace("..", "__");
    }

    /**
     * One destination's output thread: each interval in order, queued ones retried between; once the
     * recording has ended and its inbox is empty, the last try of what is queued or batched.
     */
    private void send(Delivery d, BlockingQueue<List<IntervalProfile>> inbox) {
        long hangupsSeen = 0;
        try {
            while (true) {
                List<IntervalProfile> ps = inbox.poll(1, TimeUnit.SECONDS);
                if (ps == null && finished && inbox.isEmpty()) {
                    d.backoffOver(); // the last intervals, batched or waiting: one more try each
                    d.retry(Instant.now(), true);
                    return;
                }
                long h = hangups.get();
                if (h != hangupsSeen) {
                    hangupsSeen = h;
                    d.backoffOver();
                }
                for (IntervalProfile p : ps == null ? List.<IntervalProfile>of() : ps) {
                    if (p.samples() > 0) {
                        d.deliver(p, Instant.now());
                    }
                }
                d.retry(Instant.now(), false);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private final Object upkeepLock = new Object();
    private boolean upkeepStopping;
    private volatile long upkeepRuns;

    /** Upkeep runs so far (each destination's, each boundary): for tests that wait for one. */
    public long upkeepRuns() {
        return upkeepRuns;
    }

    /**
     * The upkeep thread, at nice 19 (the kernel runs it when nothing else wants the CPU; DuckDB's
     * threads, one here, inherit it), once what it shares with other threads is loaded at the agent's
     * priority ({@link Destination.Upkeep#prepare}: a store waiting for a starved thread to finish
     * loading DuckDB's classes would be held up): each destination's work once at the start (what an earlier
     * run left) and then at each multiple of its period since the epoch. Never on the output thread,
     * so stores and pushes are not held up; its CPU is the process's, in the health lines.
     */
    private void upkeep(List<Destination.Upkeep> upkeeps, List<String> names) {
        for (int i = 0; i < upkeeps.size(); i++) {
            try {
                upkeeps.get(i).prepare();
            } catch (IOException | RuntimeException e) {
                err.println("stackfold: agent: " + names.get(i) + ": " + Delivery.oneLine(e));
                err.flush();
            }
        }
        lowerPriority();
        Instant[] done = new Instant[upkeeps.size()];
        while (true) {
            Instant now = Instant.now();
            long wait = Long.MAX_VALUE;
            for (int i = 0; i < upkeeps.size(); i++) {
                long every = upkeeps.get(i).every().toMillis();
                Instant boundary = Instant.ofEpochMilli(Math.floorDiv(now.toEpochMilli(), every) * every);
                if (done[i] == null || boundary.isAfter(done[i])) {
                    done[i] = boundary;
                    runUpkeep(upkeeps.get(i), names.get(i), boundary);
                }
                wait = Math.min(wait, boundary.toEpochMilli() + every - Instant.now().toEpochMilli());
            }
            synchronized (upkeepLock) {
                if (upkeepStopping) {
                    return;
                }
                try {
                    upkeepLock.wait(Math.max(1, wait));
                } catch (InterruptedException e) {
                    return;
                }
                if (upkeepStopping) {
                    return;
                }
            }
        }
    }

    private void runUpkeep(Destination.Upkeep u, String name, Instant boundary) {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long cpu = mx.getCurrentThreadCpuTime();
        long wall = System.nanoTime();
        String line;
        try {
            line = u.run(boundary, () -> {
                synchronized (upkeepLock) {
                    return upkeepStopping;
                }
            });
            if (line != null) {
                line = "stackfold agent: " + name + ": " + line;
            }
        } catch (IOException | RuntimeException e) {
            line = "stackfold: agent: " + name + ": " + Delivery.oneLine(e) + "; tried again at the next boundary";
        }
        upkeepRuns++;
        if (line != null) {
            err.printf(Locale.ROOT, "%s; %.2f s CPU, %.1f s%n", line, (mx.getCurrentThreadCpuTime() - cpu) / 1e9,
                    (System.nanoTime() - wall) / 1e9);
            err.flush();
        }
    }

    /** setpriority(PRIO_PROCESS, this thread, 19); a kernel that refuses leaves it as it is. */
    private static void lowerPriority() {
        try {
            long tid = org.stackfold.record.bpf.Syscalls.call("gettid", 186, 0, 0, 0, 0, 0);
            org.stackfold.record.bpf.Syscalls.call("setpriority", 141, 0, tid, 19, 0, 0);
        } catch (org.stackfold.record.bpf.ErrnoException | RuntimeException e) {
            // the work runs at the agent's priority
        }
    }

    private void health(PendingQueue queue, List<Delivery> deliveries) {
        long sent = 0, dropped = droppedBehind + queue.dropped();
        for (Delivery d : deliveries) {
            sent += d.sent();
            dropped += d.dropped();
        }
        double seconds = Duration.between(started, Instant.now()).toMillis() / 1000.0;
        long cpu = cpuTicks() - cpuAtStart;
        err.printf(Locale.ROOT, "stackfold agent: %,d intervals, %,d samples, %,d lost, %,d sent, %,d dropped,"
                        + " queue %,d (%,d KiB); CPU %.2f s in %.0f s (%.2f%%), RSS %,d MiB%n", intervals, samples, lost,
                sent, dropped, queue.size(), queue.bytes() / 1024, cpu / 100.0, seconds,
                seconds > 0 ? cpu / seconds : 0.0, rssMiB());
        err.flush();
    }

    /** This process's user + system CPU time so far, in clock ticks (1/100 s on Linux). */
    static long cpuTicks() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    static long rssMiB() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // no /proc: 0
        }
        return 0;
    }
}
