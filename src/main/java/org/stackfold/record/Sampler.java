package org.stackfold.record;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.stackfold.record.bpf.Bpf;
import org.stackfold.record.bpf.BpfMap;
import org.stackfold.record.bpf.BpfProgram;
import org.stackfold.record.bpf.ErrnoException;
import org.stackfold.record.bpf.PerfEvent;

/**
 * The kernel side of a recording: the maps, the loaded {@link SamplingProgram} and its perf events.
 * A drain switches the program to the other stack map, waits for samples in flight, moves every
 * count out of the count map (read and delete, atomically) with the stacks its key names, then
 * empties the stack map it switched away from. No stack id is ever reused while a count names it,
 * and neither map fills however long the recording.
 */
public final class Sampler implements AutoCloseable {
    /** Hash-map entries for (pid, tid, stacks, comm) keys between two drains. */
    static final int COUNT_ENTRIES = 40960;
    static final int PID_FILTER_ENTRIES = 4096;
    private static final int MAX_DEPTH_LIMIT = 127;

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final List<PerfEvent> events = new ArrayList<>();
    private final Arena arena = Arena.ofShared();
    private final BpfMap counts;
    private final BpfMap[] stacks = new BpfMap[2];
    /** The walker's per-generation user stacks (hash to frames); null with the frame-pointer program. */
    private final BpfMap[] ustacks = new BpfMap[2];
    private final boolean walker;
    static final int EXEC_ENTRIES = 65536;
    /** pid → execs seen while recording ({@link ExecProgram}). */
    private BpfMap execs;
    private final MemorySegment execKey = arena.allocate(8, 8);
    private final MemorySegment execValue = arena.allocate(8, 8);
    private UnwindMaps unwind;
    /** CPython detection, the Python program and the naming of its frames (null with the frame-pointer program). */
    private PythonFrames python;
    private BpfProgram continuation;
    private long entryVerified, continuationVerified;
    private double loadSeconds;
    private final Object unwindLock = new Object();
    private UnwindDoorbell doorbell;
    private Thread unwindWorker;
    /** Rounds of the unwind worker (a ring of the doorbell, or its idle sweep). */
    private long workerWakeups;
    /** Times the command was held until its maps were read (each at an exec or at new code). */
    private long holds;
    private MemorySegment walkKey;
    private MemorySegment walkNext;
    private MemorySegment hashKey;
    private MemorySegment ustackValue;
    private int generation;
    private final BpfMap stats;
    private final BpfProgram program;
    private final int maxDepth;
    private final MemorySegment key = arena.allocate(SampleKey.SIZE, 8);
    private final MemorySegment nextKey = arena.allocate(SampleKey.SIZE, 8);
    private final MemorySegment nextStackKey = arena.allocate(4, 8);
    private final MemorySegment value = arena.allocate(8, 8);
    private final MemorySegment stackKey = arena.allocate(4, 8);
    private final MemorySegment stackValue;
    private int statsFd = -1;
    /** The link of {@link ExecProgram#mmap}, or -1. */
    private int mmapLink = -1;

    /** Sets up maps and program for {@code options}; {@link #attach} then starts sampling. */
    public Sampler(RecordOptions options, int stackEntries) throws IOException {
        this(options, stackEntries, UnwindRowSource.NONE);
    }

    /**
     * Sets up maps and programs: the walker with rows from {@code rows} when {@code options} ask for
     * DWARF unwinding of user stacks (and the kernel has what it needs), else the frame-pointer program.
     */
    public Sampler(RecordOptions options, int stackEntries, UnwindRowSource rows) throws IOException {
        this(options, stackEntries, rows, true);
    }

    /** As above; {@code pythonLines}: Python frames keep their instruction (line-level), else function-level. */
    public Sampler(RecordOptions options, int stackEntries, UnwindRowSource rows, boolean pythonLines) throws IOException {
        walker = Unwinding.walks(options);
        try {
            if (walker) {
                maxDepth = WalkerProgram.MAX_FRAMES;
                counts = own(BpfMap.create("sf_counts", Bpf.MAP_TYPE_HASH, WalkKey.SIZE, 8, COUNT_ENTRIES));
                for (int g = 0; g < 2; g++) {
                    stacks[g] = own(BpfMap.create("sf_kstacks" + g, Bpf.MAP_TYPE_STACK_TRACE, 4,
                            maxStackDepth() * 8, stackEntries));
                    ustacks[g] = own(BpfMap.create("sf_ustacks" + g, Bpf.MAP_TYPE_HASH, 8, WalkerProgram.STACK_SIZE,
                            stackEntries));
                }
                stats = own(BpfMap.create("sf_stats", Bpf.MAP_TYPE_ARRAY, 4, 8, WalkerProgram.STATS));
                BpfMap pidFilter = pidFilter(options);
                BpfMap scratch = own(BpfMap.create("sf_scratch", Bpf.MAP_TYPE_PERCPU_ARRAY, 4, WalkerProgram.STATE_SIZE, 1));
                BpfMap progs = own(BpfMap.create("sf_progs", Bpf.MAP_TYPE_PROG_ARRAY, 4, 4, WalkerProgram.PROGS));
                execs = own(BpfMap.create("sf_execs", Bpf.MAP_TYPE_LRU_HASH, 4, 8, EXEC_ENTRIES));
                unwind = own(new UnwindMaps(rows, execs));
                doorbell = own(new UnwindDoorbell());
                BpfProgram exec = own(BpfProgram.load("sf_exec", Bpf.PROG_TYPE_RAW_TRACEPOINT,
                        ExecProgram.assemble(execs.fd(), unwind.tracked.fd(), unwind.unknown.fd(), doorbell.ring.fd(),
                                unwind.held.fd(), unwind.stopped.fd())));
                int link = exec.attachRawTracepoint("sched_process_exec");
                own(() -> org.stackfold.record.bpf.Syscalls.close(link));
                BpfProgram exit = own(BpfProgram.load("sf_exit", Bpf.PROG_TYPE_RAW_TRACEPOINT,
                        ExecProgram.exit(unwind.tracked.fd(), unwind.exited.fd(), doorbell.ring.fd())));
                int exitLink = exit.attachRawTracepoint("sched_process_exit");
                own(() -> org.stackfold.record.bpf.Syscalls.close(exitLink));
                python = own(new PythonFrames(pythonLines));
                WalkerProgram.Spec spec = new WalkerProgram.Spec(counts.fd(), stacks[0].fd(), stacks[1].fd(),
                        ustacks[0].fd(), ustacks[1].fd(), stats.fd(), pidFilter == null ? -1 : pidFilter.fd(),
                        scratch.fd(), progs.fd(), unwind.lpm.fd(), unwind.tables.fd(), unwind.unknown.fd(), execs.fd(),
                        doorbell.ring.fd(), unwind.held.fd(), unwind.stopped.fd(), options.includeIdle(), options.perThread(), options.kernelStacks(),
                        python.procsFd(), python.threadsFd(), pythonLines);
                long t0 = System.nanoTime();
                continuation = own(BpfProgram.load("sf_walk_more", Bpf.PROG_TYPE_PERF_EVENT,
                        WalkerProgram.continuation(spec)));
                stackKey.set(ValueLayout.JAVA_INT, 0, WalkerProgram.PROG_CONTINUE);
                MemorySegment fd = arena.allocate(4, 4);
                fd.set(ValueLayout.JAVA_INT, 0, continuation.fd());
                progs.update(stackKey, fd, Bpf.ANY);
                python.load(spec, progs);
                program = own(BpfProgram.load("sf_walk", Bpf.PROG_TYPE_PERF_EVENT, WalkerProgram.entry(spec)));
                loadSeconds = (System.nanoTime() - t0) / 1e9;
                entryVerified = program.verifiedInstructions();
                continuationVerified = continuation.verifiedInstructions();
                stackValue = arena.allocate(maxStackDepth() * 8L, 8);
                walkKey = arena.allocate(WalkKey.SIZE, 8);
                walkNext = arena.allocate(WalkKey.SIZE, 8);
                hashKey = arena.allocate(8, 8);
                ustackValue = arena.allocate(WalkerProgram.STACK_SIZE, 8);
                startUnwindWorker();
                return;
            }
            maxDepth = maxStackDepth();
            counts = own(BpfMap.create("sf_counts", Bpf.MAP_TYPE_HASH, SampleKey.SIZE, 8, COUNT_ENTRIES));
            for (int g = 0; g < 2; g++) {
                stacks[g] = own(BpfMap.create("sf_stacks" + g, Bpf.MAP_TYPE_STACK_TRACE, 4, maxDepth * 8, stackEntries));
            }
            stats = own(BpfMap.create("sf_stats", Bpf.MAP_TYPE_ARRAY, 4, 8, SamplingProgram.STATS));
            BpfMap pidFilter = pidFilter(options);
            stackValue = arena.allocate(maxDepth * 8L, 8);
            long[] insns = SamplingProgram.assemble(new SamplingProgram.Spec(counts.fd(), stacks[0].fd(), stacks[1].fd(),
                    stats.fd(),
                    pidFilter == null ? -1 : pidFilter.fd(), options.includeIdle(), options.perThread(),
                    options.kernelStacks(), options.userStacks()));
            program = own(BpfProgram.load("sf_profile", Bpf.PROG_TYPE_PERF_EVENT, insns));
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    private BpfMap pidFilter(RecordOptions options) throws ErrnoException {
        if (options.pids().isEmpty()) {
            return null;
        }
        BpfMap pidFilter = own(BpfMap.create("sf_pids", Bpf.MAP_TYPE_HASH, 4, 4, PID_FILTER_ENTRIES));
        MemorySegment one = arena.allocate(4, 8);
        one.set(ValueLayout.JAVA_INT, 0, 1);
        for (int pid : options.pids()) {
            stackKey.set(ValueLayout.JAVA_INT, 0, pid);
            pidFilter.update(stackKey, one, Bpf.ANY);
        }
        return pidFilter;
    }

    /** The worker's sweep for processes gone without a word (an {@code exited} map that was full), when idle. */
    static final int SWEEP_MILLIS = 10_000;

    /**
     * The unwind worker: sleeps in {@code poll} on the programs' ring buffer ({@link UnwindDoorbell})
     * and, when a program rings, reads the maps of the processes the walker found an unknown address
     * in (new processes, {@code dlopen}, {@code exec}) and forgets those that ended, so that their
     * tables and mappings are in place within a scheduling delay. An idle worker costs nothing (a
     * sweep for vanished processes every {@link #SWEEP_MILLIS}). Its errors are counted for the
     * accounting ({@link UnwindMaps#errors}), never thrown at the recording.
     */
    private void startUnwindWorker() {
        unwindWorker = new Thread(() -> {
            raisePriority();
            while (!doorbell.closed()) {
                boolean rang;
                try {
                    rang = doorbell.await(SWEEP_MILLIS);
                } catch (ErrnoException e) {
                    synchronized (unwindLock) {
                        if (unwind != null) {
                            unwind.error("waiting for the walker", e);
                        }
                    }
                    rang = false;
                    try {
                        Thread.sleep(10);
                    } catch (InterruptedException ie) {
                        return;
                    }
                }
                synchronized (unwindLock) {
                    if (unwind == null || doorbell.closed()) {
                        return;
                    }
                    workerWakeups++;
                    work(rang);
                }
            }
        }, "stackfold-unwind");
        unwindWorker.setDaemon(true);
        unwindWorker.start();
    }

    /**
     * The worker runs at nice -20 where allowed: on a loaded machine a thread at nice 0 waited 30 to
     * 300 ms for a CPU after each wake-up (load 13 on 2 cores here), and every sample of a process whose
     * new code it has not read yet ends "no mapping". It works a few milliseconds per exec or dlopen and
     * sleeps otherwise, so the priority costs the machine nothing.
     */
    private static void raisePriority() {
        try {
            long tid = org.stackfold.record.bpf.Syscalls.call("gettid", 186, 0, 0, 0, 0, 0);
            org.stackfold.record.bpf.Syscalls.call("setpriority", 141, 0, tid, -20, 0, 0);
        } catch (ErrnoException e) {
            // Without CAP_SYS_NICE the worker keeps its priority.
        }
    }

    /** One round of the worker, under the lock. */
    private void work(boolean rang) {
        List<Integer> stopped = List.of();
        try {
            // Stopped before their pids went into unknown: read below, continued after.
            stopped = unwind.takeStopped();
            for (int pid : unwind.takeExited()) {
                unwind.exited(pid);
            }
            // A held process is read once it has stopped: a hold at an mmap comes before the mapping exists.
            java.util.Set<Integer> read = new java.util.LinkedHashSet<>();
            for (int pid : stopped) {
                ProcFiles.awaitStopped(pid, STOP_WAIT_NANOS);
                read.add(pid);
            }
            read.addAll(unwind.takeUnknown());
            for (int pid : read) {
                try {
                    unwind.refresh(pid);
                } catch (ErrnoException | RuntimeException e) {
                    unwind.error("updating the mappings trie", e);
                }
                try {
                    python.refresh(pid, unwind.lastMaps(pid));
                } catch (RuntimeException e) {
                    unwind.error("looking for CPython", e);
                }
            }
            if (!rang) {
                unwind.forgetExited();
            }
        } catch (ErrnoException | RuntimeException e) {
            unwind.error("reading the walker's maps", e);
        }
        for (int pid : stopped) {
            resume(pid);
        }
    }

    private void resume(int pid) {
        try {
            org.stackfold.record.bpf.Syscalls.kill(pid, 18); // SIGCONT: only ever the command the recorder started
            holds++;
        } catch (ErrnoException e) {
            if (e.errno() != 3) { // ESRCH: it is gone
                unwind.error("continuing the command", e);
            }
        }
    }

    /** How long the worker waits for a held process to stop before it reads its maps anyway. */
    static final long STOP_WAIT_NANOS = 200_000_000L;

    /** Holds no process any more and continues those stopped (the recording ends). */
    private void releaseHeld() {
        synchronized (unwindLock) {
            if (unwind == null) {
                return;
            }
            stopHoldingAtLibraries();
            try {
                unwind.holdNone();
                for (int pid : unwind.takeStopped()) {
                    resume(pid);
                }
            } catch (ErrnoException | RuntimeException e) {
                unwind.error("continuing the command", e);
            }
        }
    }

    /** How many times {@code pid} has exec'd since the recording began (0 with the frame-pointer program). */
    public int execCount(int pid) {
        if (execs == null) {
            return 0;
        }
        synchronized (execs) {
            try {
                execKey.set(ValueLayout.JAVA_INT, 0, pid);
                return execs.lookup(execKey, execValue) ? (int) execValue.get(ValueLayout.JAVA_LONG, 0) : 0;
            } catch (ErrnoException e) {
                return 0;
            }
        }
    }

    /**
     * Tells {@code listener} (pid, exec count) on the unwind worker's thread when a process maps new
     * code after its maps were first read (a dlopen): the symbolizer's snapshot of it is then short.
     */
    public void onRemap(java.util.function.BiConsumer<Integer, Integer> listener) {
        if (walker) {
            synchronized (unwindLock) {
                unwind.onRemap(listener);
            }
        }
    }

    /** Whether user stacks are walked through unwind tables (else frame pointers). */
    public boolean walks() {
        return walker;
    }

    /** Builds the tables of a command's executable and libraries and reads a process's maps now. */
    public void prepare(java.util.Collection<java.nio.file.Path> files, int pid) throws ErrnoException {
        if (!walker) {
            return;
        }
        synchronized (unwindLock) {
            unwind.prepare(files);
            if (pid > 0) {
                unwind.refresh(pid);
                unwind.hold(pid);
                python.refresh(pid);
                holdAtLibraries();
            }
        }
    }

    /**
     * Stops the held command at each executable file mapping ({@link ExecProgram#mmap}) until the
     * worker has read it: without it, the first samples in a new library (libc's first code, a
     * dlopened module) end "no mapping", and a long system call there (a 30 MB read) ends several.
     * Attached only for a command the recorder started, and only while it runs: a raw tracepoint on
     * every system call puts the whole machine's system calls on their traced path. A kernel that
     * refuses it keeps the walker's own hold at the first sample in new code.
     */
    private void holdAtLibraries() {
        if (mmapLink >= 0) {
            return;
        }
        try {
            BpfProgram p = own(BpfProgram.load("sf_mmap", Bpf.PROG_TYPE_RAW_TRACEPOINT,
                    ExecProgram.mmap(unwind.held.fd(), unwind.stopped.fd(), doorbell.ring.fd())));
            mmapLink = p.attachRawTracepoint("sys_enter");
        } catch (ErrnoException | RuntimeException e) {
            unwind.error("holding the command at new libraries", e);
        }
    }

    /** Ends {@link #holdAtLibraries} (the recording ends). */
    private void stopHoldingAtLibraries() {
        if (mmapLink >= 0) {
            org.stackfold.record.bpf.Syscalls.close(mmapLink);
            mmapLink = -1;
        }
    }

    /**
     * Looks for CPython in processes given before the recording starts ({@code -p}), so that their
     * first samples already have Python frames (others are detected at their first sample).
     */
    public void detectPython(java.util.Collection<Integer> pids) {
        if (!walker) {
            return;
        }
        synchronized (unwindLock) {
            for (int pid : pids) {
                python.refresh(pid);
            }
        }
    }

    /** Reads a process's maps into the walker's trie (a process first seen at a drain). */
    public void refresh(int pid) {
        if (!walker) {
            return;
        }
        synchronized (unwindLock) {
            try {
                unwind.refresh(pid);
                python.refresh(pid);
            } catch (IOException | RuntimeException e) {
                unwind.error("updating the mappings trie", e); // samples end with "no mapping"; the walker asks again
            }
        }
    }

    /**
     * Reads the maps of running processes (these pids, or every process when empty) into the walker's
     * trie and builds their files' tables before sampling starts, so that the first samples of a
     * recording of processes that already run are whole (else each would end "no mapping" until the
     * worker had read it: 70% of a 3-s demo's samples here).
     */
    public void refreshRunning(java.util.Collection<Integer> pids) {
        if (!walker) {
            return;
        }
        java.util.Collection<Integer> which = pids;
        if (which.isEmpty()) {
            which = new ArrayList<>();
            try (var dirs = Files.list(Path.of("/proc"))) {
                for (Path d : (Iterable<Path>) dirs::iterator) {
                    String n = d.getFileName().toString();
                    if (!n.isEmpty() && n.chars().allMatch(Character::isDigit) && n.length() < 10) {
                        which.add(Integer.parseInt(n));
                    }
                }
            } catch (IOException e) {
                return;
            }
        }
        int self = (int) ProcessHandle.current().pid();
        for (int pid : which) {
            if (pid != self) {
                refresh(pid);
            }
        }
    }

    /** What the walker's programs cost to load and what its tables hold (null with the frame-pointer program). */
    public record WalkerStats(long entryVerified, long continuationVerified, double loadSeconds, int tables,
                              long rows, long bytes, double buildSeconds, long lostStacks, Worker worker) {
    }

    /**
     * The unwind worker's counts: wake-ups, maps read, tables freed (no process mapped their file any
     * more), files without rows, prefixes and files refused for want of room, errors by what failed.
     */
    public record Worker(long wakeups, long holds, long reads, long freedTables, long noRows, long trieFull, long tablesFull,
                         java.util.Map<String, Long> errors, String lastError) {
        public long errorCount() {
            return errors.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /** The Python frames' detection and names (null with the frame-pointer program). */
    public PythonFrames python() {
        return python;
    }

    public WalkerStats walkerStats() throws ErrnoException {
        if (!walker) {
            return null;
        }
        synchronized (unwindLock) {
            stackKey.set(ValueLayout.JAVA_INT, 0, WalkerProgram.STAT_LOST_USTACK);
            long lost = stats.lookup(stackKey, value) ? value.get(ValueLayout.JAVA_LONG, 0) : 0;
            if (unwind == null) {
                return null;
            }
            Worker worker = new Worker(workerWakeups, holds, unwind.reads(), unwind.freedTables(), unwind.noRows(),
                    unwind.trieFull(), unwind.tablesFull(), unwind.errors(), unwind.lastError());
            return new WalkerStats(entryVerified, continuationVerified, loadSeconds, unwind.tables(), unwind.rows(),
                    unwind.bytes(), unwind.buildSeconds(), lost, worker);
        }
    }

    private <T extends AutoCloseable> T own(T resource) {
        resources.add(resource);
        return resource;
    }

    /** Samples every task on every online CPU. */
    public void attachAllCpus(int frequency) throws IOException {
        for (int cpu : OnlineCpus.read()) {
            attach(PerfEvent.cpuClock(-1, cpu, frequency, false));
        }
    }

    /** Samples one task and every task it creates from now on, on whatever CPU they run. */
    public void attachTaskTree(int pid, int frequency) throws IOException {
        attach(PerfEvent.cpuClock(pid, -1, frequency, true));
    }

    private void attach(PerfEvent e) throws ErrnoException {
        events.add(e);
        e.attach(program);
        e.enable();
    }

    /** Times the program in the kernel from now on (BPF_ENABLE_STATS); {@link #programStats} reads it. */
    public void enableRunTimeStats() throws ErrnoException {
        statsFd = BpfProgram.enableRunTimeStats();
    }

    public BpfProgram.RunStats programStats() throws ErrnoException {
        return program.runStats();
    }

    /** Stops sampling; the maps stay readable. */
    public void stop() {
        if (walker) {
            releaseHeld();
        }
        for (PerfEvent e : events) {
            try {
                e.disable();
            } catch (ErrnoException ignored) {
                // Closing below stops the event too.
            }
            e.close();
        }
        events.clear();
    }

    public int maxDepth() {
        return maxDepth;
    }

    public int stackEntries() {
        return stacks[0].maxEntries();
    }

    /** Receives drained counts with their stacks' instruction pointers (leaf first; null: no stack). */
    public interface CountSink {
        void accept(SampleKey key, long count, long[] kernelStack, long[] userStack) throws IOException;
    }

    /** Moves every count out of the kernel's maps into {@code sink}. */
    public void drain(CountSink sink) throws IOException {
        if (walker) {
            drainWalked(sink);
            return;
        }
        int old = generation;
        generation ^= 1;
        switchGeneration();
        // A sample that read the old generation finishes within microseconds (the program runs with
        // preemption off); after the pause in switchGeneration no sample writes to the old stack map.
        StackCache cache = new StackCache(old);
        forEachCount(counts, key, (k, count) -> {
            SampleKey sk = SampleKey.read(k);
            int g = sk.generation() & 1;
            sink.accept(sk, count, cache.get(g, sk.kernelStack()), cache.get(g, sk.userStack()));
        });
        cache.clearOld();
        drains++;
    }

    private void switchGeneration() throws ErrnoException {
        stackKey.set(ValueLayout.JAVA_INT, 0, SamplingProgram.STAT_GENERATION);
        value.set(ValueLayout.JAVA_LONG, 0, generation);
        stats.update(stackKey, value, Bpf.ANY);
        try {
            Thread.sleep(2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Drains so far. */
    private long drains;
    /** Whether the kernel takes batch commands on the count and user-stack maps (Linux 5.6+); false after a refusal. */
    private boolean batches = !Boolean.getBoolean("stackfold.record.noBatch");
    /** Entries a batch call moves at most: 1,024 keys of 48 bytes and their counts (56 KiB of buffers). */
    static final int BATCH = 1024;
    private MemorySegment batchKeys, batchValues, batchUserValues;
    /** Syscalls of the drains so far, by kind ({@link #drainCalls}). */
    private long batchCalls, entryCalls;

    /** A drained count: its key (valid only during the call) and its count. */
    private interface CountEntry {
        void accept(MemorySegment key, long count) throws IOException;
    }

    /**
     * Moves every entry out of the count map: one BPF_MAP_LOOKUP_AND_DELETE_BATCH call per 1,024 entries
     * where the kernel has it (5.6+), else keys listed first and each read and deleted atomically (get_next_key
     * from NULL scans the table from its first bucket, so "delete the first key" in a loop would cost
     * buckets x keys).
     */
    private void forEachCount(BpfMap map, MemorySegment scratch, CountEntry each) throws IOException {
        if (batches) {
            batchBuffers();
            try {
                map.batch(true, batchKeys, batchValues, n -> {
                    batchCalls++;
                    for (int i = 0; i < n; i++) {
                        each.accept(batchKeys.asSlice((long) i * map.keySize(), map.keySize()),
                                batchValues.getAtIndex(ValueLayout.JAVA_LONG, i));
                    }
                });
                batchCalls++; // the call that found the end
                return;
            } catch (ErrnoException e) {
                if (!BpfMap.batchRefused(e)) {
                    throw e;
                }
                batches = false; // a kernel before 5.6: one call per entry from now on
            }
        }
        if (fallbackNext == null) {
            fallbackNext = arena.allocate(WalkKey.SIZE, 8);
        }
        for (byte[] k : keys(map, scratch, fallbackNext.asSlice(0, map.keySize()))) {
            MemorySegment.copy(k, 0, scratch, ValueLayout.JAVA_BYTE, 0, k.length);
            entryCalls += 2;
            if (map.lookupAndDelete(scratch, value)) {
                each.accept(scratch, value.get(ValueLayout.JAVA_LONG, 0));
            }
        }
    }

    private MemorySegment fallbackNext;

    /** The batch buffers, once: keys as large as the count map's (48 bytes, the larger of the two key layouts). */
    private void batchBuffers() {
        if (batchKeys == null) {
            batchKeys = arena.allocate((long) BATCH * Math.max(WalkKey.SIZE, SampleKey.SIZE), 8);
            batchValues = arena.allocate((long) BATCH * 8, 8);
        }
    }

    /** How many bpf(2) calls the drains made: batch calls, per-entry calls (after a refusal), stack reads and deletes. */
    public long[] drainCalls() {
        return new long[] {batchCalls, entryCalls, stackCalls};
    }

    private long stackCalls;

    /**
     * The stacks one drain reads from the kernel's stack-trace maps (which have no batch commands): each
     * distinct id read once, and the old generation's ids deleted once read. Ids left in the old map (a
     * stack stored for a sample whose count could not be) are swept by a walk that costs one call when the
     * map is empty, so neither map fills.
     */
    private final class StackCache {
        private final int old;
        private final java.util.Map<Long, long[]> read = new java.util.HashMap<>();
        private final List<Integer> oldIds = new ArrayList<>();

        StackCache(int old) {
            this.old = old;
        }

        long[] get(int g, int id) throws ErrnoException {
            if (id < 0) {
                return null;
            }
            long k = (long) g << 32 | id;
            long[] ips = read.get(k);
            if (ips == null && !read.containsKey(k)) {
                stackCalls++;
                ips = stack(stacks[g], id);
                read.put(k, ips);
                if (g == old && ips != null) {
                    oldIds.add(id);
                }
            }
            return ips;
        }

        void clearOld() throws ErrnoException {
            BpfMap done = stacks[old];
            for (int id : oldIds) {
                stackKey.set(ValueLayout.JAVA_INT, 0, id);
                stackCalls++;
                done.delete(stackKey);
            }
            List<byte[]> left = keys(done, stackKey, nextStackKey);
            stackCalls += left.size() + 1;
            for (byte[] id : left) {
                MemorySegment.copy(id, 0, stackKey, ValueLayout.JAVA_BYTE, 0, id.length);
                stackCalls++;
                done.delete(stackKey);
            }
        }
    }

    /**
     * The walker's drain: as {@link #drain}'s, with user stacks read by hash from the generation's
     * stack map (a stack whose frames do not hash to its key, a 64-bit collision, is dropped as missing)
     * and the end status kept in the key. The old generation's user stacks are read and removed in one
     * batch call where the kernel has it.
     */
    private void drainWalked(CountSink sink) throws IOException {
        int old = generation;
        generation ^= 1;
        switchGeneration();
        List<java.util.Map<Long, long[]>> users = List.of(new java.util.HashMap<>(), new java.util.HashMap<>());
        python.beginDrain();
        boolean oldUsersRead = batches && readUserStacks(ustacks[old], users.get(old));
        StackCache kernel = new StackCache(old);
        forEachCount(counts, walkKey, (k, count) -> {
            WalkKey wk = WalkKey.read(k);
            int g = wk.generation() & 1;
            long[] user = null;
            int userId = -ErrnoException.EFAULT;
            if (wk.userHash() != 0 || wk.status() != WalkerProgram.KTHREAD) {
                java.util.Map<Long, long[]> known = users.get(g);
                user = known.get(wk.userHash());
                if (user == null && !(g == old && oldUsersRead) && !known.containsKey(wk.userHash())) {
                    user = userStack(ustacks[g], wk.userHash());
                    known.put(wk.userHash(), user);
                }
                userId = user == null || user.length == 0 ? -ErrnoException.ENOENT : 0;
                if (wk.status() == WalkerProgram.KTHREAD) {
                    userId = -ErrnoException.EFAULT;
                }
            }
            SampleKey sk = new SampleKey(wk.pid(), wk.tid(), wk.kernelStack(), userId, wk.comm(), wk.generation(),
                    wk.status(), wk.exec());
            sink.accept(sk, count, kernel.get(g, wk.kernelStack()), userId == 0 ? python.resolve(wk.pid(), user) : null);
        });
        kernel.clearOld();
        if (!oldUsersRead) {
            BpfMap doneUser = ustacks[old];
            for (byte[] h : keys(doneUser, walkKey, walkNext)) {
                MemorySegment.copy(h, 0, hashKey, ValueLayout.JAVA_BYTE, 0, 8);
                stackCalls++;
                doneUser.delete(hashKey);
            }
        }
        drains++;
    }

    /**
     * Reads and removes every user stack of a generation in batch calls (64 stacks of 1,032 bytes a
     * call) into {@code into}, by hash; a stack whose frames do not hash to its key maps to null. False,
     * with nothing read, where the kernel has no batch commands.
     */
    private boolean readUserStacks(BpfMap map, java.util.Map<Long, long[]> into) throws IOException {
        int perCall = 64;
        if (batchUserValues == null) {
            batchUserValues = arena.allocate((long) perCall * WalkerProgram.STACK_SIZE, 8);
        }
        batchBuffers();
        MemorySegment keys = batchKeys.asSlice(0, perCall * 8L); // the count batch's buffer, free until then
        try {
            map.batch(true, keys, batchUserValues, n -> {
                batchCalls++;
                for (int i = 0; i < n; i++) {
                    long hash = keys.getAtIndex(ValueLayout.JAVA_LONG, i);
                    MemorySegment v = batchUserValues.asSlice((long) i * WalkerProgram.STACK_SIZE, WalkerProgram.STACK_SIZE);
                    into.put(hash, frames(v, hash));
                }
            });
            batchCalls++;
            return true;
        } catch (ErrnoException e) {
            if (!BpfMap.batchRefused(e)) {
                throw e;
            }
            batches = false;
            return false;
        }
    }

    /** The frames of a user-stack value, or null where they do not hash to {@code hash}. */
    private static long[] frames(MemorySegment v, long hash) {
        int n = Math.min(v.get(ValueLayout.JAVA_INT, 0), WalkerProgram.FRAME_SLOTS);
        long[] frames = new long[Math.max(0, n)];
        MemorySegment.copy(v, ValueLayout.JAVA_LONG, 8, frames, 0, frames.length);
        return WalkerProgram.hash(frames, frames.length) == hash ? frames : null;
    }

    private long[] userStack(BpfMap map, long hash) {
        try {
            hashKey.set(ValueLayout.JAVA_LONG, 0, hash);
            stackCalls++;
            if (!map.lookup(hashKey, ustackValue)) {
                return null;
            }
            return frames(ustackValue, hash);
        } catch (ErrnoException e) {
            return null;
        }
    }

    /** Every key of a map, in one walk ({@code a} and {@code b} are scratch key buffers). */
    private static List<byte[]> keys(BpfMap map, MemorySegment a, MemorySegment b) throws ErrnoException {
        List<byte[]> keys = new ArrayList<>();
        MemorySegment cur = a, next = b;
        boolean more = map.nextKey(null, cur);
        while (more) {
            keys.add(cur.toArray(ValueLayout.JAVA_BYTE));
            more = map.nextKey(cur, next);
            MemorySegment t = cur;
            cur = next;
            next = t;
        }
        return keys;
    }

    /** The instruction pointers of a stack id, leaf first, or null for an error id or one not in the map. */
    private long[] stack(BpfMap map, int id) throws ErrnoException {
        if (id < 0) {
            return null;
        }
        stackKey.set(ValueLayout.JAVA_INT, 0, id);
        stackValue.fill((byte) 0);
        if (!map.lookup(stackKey, stackValue)) {
            return null;
        }
        int n = 0;
        while (n < stackValue.byteSize() / 8 && stackValue.getAtIndex(ValueLayout.JAVA_LONG, n) != 0) {
            n++;
        }
        long[] ips = new long[n];
        MemorySegment.copy(stackValue, ValueLayout.JAVA_LONG, 0, ips, 0, n);
        return ips;
    }

    /** Samples the program could not count because the count map was full. */
    public long lostToFullCountMap() throws ErrnoException {
        stackKey.set(ValueLayout.JAVA_INT, 0, SamplingProgram.STAT_LOST_FULL);
        return stats.lookup(stackKey, value) ? value.get(ValueLayout.JAVA_LONG, 0) : 0;
    }

    /** kernel.perf_event_max_stack, at most 127 (get_stackid refuses a map deeper than the sysctl). */
    static int maxStackDepth() throws IOException {
        Path p = Path.of("/proc/sys/kernel/perf_event_max_stack");
        if (!Files.isReadable(p)) {
            return MAX_DEPTH_LIMIT;
        }
        return Math.max(1, Math.min(MAX_DEPTH_LIMIT, Integer.parseInt(ProcFiles.read(p).strip())));
    }

    @Override
    public void close() {
        stop();
        if (unwindWorker != null) {
            doorbell.stop();
            try {
                unwindWorker.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (unwindLock) {
            unwind = null;
        }
        for (int i = resources.size() - 1; i >= 0; i--) {
            try {
                resources.get(i).close();
            } catch (Exception ignored) {
                // Only descriptors: closing cannot fail in a way the user could act on.
            }
        }
        resources.clear();
        if (statsFd >= 0) {
            org.stackfold.record.bpf.Syscalls.close(statsFd);
            statsFd = -1;
        }
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }
}
