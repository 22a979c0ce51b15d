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
    private java.util.concurrent.ScheduledExecutorService unwindWorker;
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
                unwind = own(new UnwindMaps(rows));
                execs = own(BpfMap.create("sf_execs", Bpf.MAP_TYPE_LRU_HASH, 4, 8, EXEC_ENTRIES));
                BpfProgram exec = own(BpfProgram.load("sf_exec", Bpf.PROG_TYPE_RAW_TRACEPOINT,
                        ExecProgram.assemble(execs.fd(), unwind.tracked.fd(), unwind.unknown.fd())));
                int link = exec.attachRawTracepoint("sched_process_exec");
                own(() -> org.stackfold.record.bpf.Syscalls.close(link));
                python = own(new PythonFrames(pythonLines));
                WalkerProgram.Spec spec = new WalkerProgram.Spec(counts.fd(), stacks[0].fd(), stacks[1].fd(),
                        ustacks[0].fd(), ustacks[1].fd(), stats.fd(), pidFilter == null ? -1 : pidFilter.fd(),
                        scratch.fd(), progs.fd(), unwind.lpm.fd(), unwind.tables.fd(), unwind.unknown.fd(), execs.fd(),
                        options.includeIdle(), options.perThread(), options.kernelStacks(), python.procsFd(),
                        python.threadsFd(), pythonLines);
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

    /**
     * Every millisecond (one empty get_next_key when nothing is new): reads the maps of the processes the walker found an unknown address in (new
     * processes, dlopen, exec), so that their tables and mappings are in place within milliseconds.
     */
    private void startUnwindWorker() {
        unwindWorker = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "stackfold-unwind");
            t.setDaemon(true);
            return t;
        });
        long[] lastSweep = {System.nanoTime()};
        unwindWorker.scheduleWithFixedDelay(() -> {
            synchronized (unwindLock) {
                if (unwind == null) {
                    return;
                }
                try {
                    for (int pid : unwind.takeUnknown()) {
                        unwind.refresh(pid);
                        python.refresh(pid);
                    }
                    if (System.nanoTime() - lastSweep[0] > 1_000_000_000L) {
                        lastSweep[0] = System.nanoTime();
                        unwind.forgetExited();
                    }
                } catch (IOException | RuntimeException e) {
                    // The next round tries again; samples meanwhile end with "no mapping".
                    if (System.getenv("STACKFOLD_DEBUG_UNWIND") != null) {
                        e.printStackTrace();
                    }
                }
            }
        }, 0, 1, java.util.concurrent.TimeUnit.MILLISECONDS);
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
                python.refresh(pid);
            }
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
                // Samples end with "no mapping"; the walker asks again.
            }
        }
    }

    /** What the walker's programs cost to load and what its tables hold (null with the frame-pointer program). */
    public record WalkerStats(long entryVerified, long continuationVerified, double loadSeconds, int tables,
                              long rows, long bytes, double buildSeconds, long lostStacks) {
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
            return new WalkerStats(entryVerified, continuationVerified, loadSeconds, unwind.tables(), unwind.rows(),
                    unwind.bytes(), unwind.buildSeconds(), lost);
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
        stackKey.set(ValueLayout.JAVA_INT, 0, SamplingProgram.STAT_GENERATION);
        value.set(ValueLayout.JAVA_LONG, 0, generation);
        stats.update(stackKey, value, Bpf.ANY);
        // A sample that read the old generation finishes within microseconds (the program runs with
        // preemption off); after this pause no sample writes to the old stack map.
        try {
            Thread.sleep(2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // Keys are listed first and deleted after: get_next_key from NULL scans the table from its
        // first bucket, so "delete the first key" in a loop would cost buckets x keys.
        for (byte[] k : keys(counts, key, nextKey)) {
            MemorySegment.copy(k, 0, key, ValueLayout.JAVA_BYTE, 0, k.length);
            if (counts.lookupAndDelete(key, value)) {
                SampleKey sk = SampleKey.read(key);
                BpfMap map = stacks[sk.generation() & 1];
                sink.accept(sk, value.get(ValueLayout.JAVA_LONG, 0), stack(map, sk.kernelStack()),
                        stack(map, sk.userStack()));
            }
        }
        BpfMap done = stacks[old];
        for (byte[] id : keys(done, stackKey, nextStackKey)) {
            MemorySegment.copy(id, 0, stackKey, ValueLayout.JAVA_BYTE, 0, id.length);
            done.delete(stackKey);
        }
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

    /**
     * The walker's drain: as {@link #drain}'s, with user stacks read by hash from the generation's
     * stack map (a stack whose frames do not hash to its key, a 64-bit collision, is dropped as missing)
     * and the end status kept in the key.
     */
    private void drainWalked(CountSink sink) throws IOException {
        int old = generation;
        generation ^= 1;
        switchGeneration();
        List<java.util.Map<Long, long[]>> users = List.of(new java.util.HashMap<>(), new java.util.HashMap<>());
        python.beginDrain();
        for (byte[] k : keys(counts, walkKey, walkNext)) {
            MemorySegment.copy(k, 0, walkKey, ValueLayout.JAVA_BYTE, 0, k.length);
            if (!counts.lookupAndDelete(walkKey, value)) {
                continue;
            }
            WalkKey wk = WalkKey.read(walkKey);
            int g = wk.generation() & 1;
            long[] user = null;
            int userId = -ErrnoException.EFAULT;
            if (wk.userHash() != 0 || wk.status() != WalkerProgram.KTHREAD) {
                user = users.get(g).computeIfAbsent(wk.userHash(), h -> userStack(ustacks[g], h));
                userId = user == null || user.length == 0 ? -ErrnoException.ENOENT : 0;
                if (wk.status() == WalkerProgram.KTHREAD) {
                    userId = -ErrnoException.EFAULT;
                }
            }
            SampleKey sk = new SampleKey(wk.pid(), wk.tid(), wk.kernelStack(), userId, wk.comm(), wk.generation(),
                    wk.status(), wk.exec());
            sink.accept(sk, value.get(ValueLayout.JAVA_LONG, 0), stack(stacks[g], wk.kernelStack()),
                    userId == 0 ? python.resolve(wk.pid(), user) : null);
        }
        BpfMap done = stacks[old];
        for (byte[] id : keys(done, stackKey, nextStackKey)) {
            MemorySegment.copy(id, 0, stackKey, ValueLayout.JAVA_BYTE, 0, id.length);
            done.delete(stackKey);
        }
        BpfMap doneUser = ustacks[old];
        for (byte[] h : keys(doneUser, walkKey, walkNext)) {
            MemorySegment.copy(h, 0, hashKey, ValueLayout.JAVA_BYTE, 0, 8);
            doneUser.delete(hashKey);
        }
    }

    private long[] userStack(BpfMap map, long hash) {
        try {
            hashKey.set(ValueLayout.JAVA_LONG, 0, hash);
            if (!map.lookup(hashKey, ustackValue)) {
                return null;
            }
            int n = Math.min(ustackValue.get(ValueLayout.JAVA_INT, 0), WalkerProgram.FRAME_SLOTS);
            long[] frames = new long[Math.max(0, n)];
            MemorySegment.copy(ustackValue, ValueLayout.JAVA_LONG, 8, frames, 0, frames.length);
            return WalkerProgram.hash(frames, frames.length) == hash ? frames : null;
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
            unwindWorker.shutdownNow();
            try {
                unwindWorker.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS);
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
