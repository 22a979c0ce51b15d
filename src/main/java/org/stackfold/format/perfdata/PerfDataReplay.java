package org.stackfold.format.perfdata;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.stackfold.perf.PerfOptions;
import org.stackfold.perf.ScriptFrameNames;
import org.stackfold.io.InputException;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;
import org.stackfold.symbolize.AddressSymbolizer;
import org.stackfold.symbolize.SymbolFrame;
import org.stackfold.symbolize.Symbolizer;
import org.stackfold.unwind.UnwindTables;

/**
 * Replays the records of a perf.data file as {@code perf script} does, in time order (perf's
 * FINISHED_ROUND rule), keeping per-process address spaces (MMAP/MMAP2/COMM/FORK) and thread names,
 * and folds each sample's callchain into a call tree. Frames are named as {@code perf script}
 * prints them ({@code SYMBOL+0xOFF (MODULE)}) and then by {@code collapse perf}'s rules
 * ({@link ScriptFrameNames}); each distinct address is symbolized once per address space.
 */
final class PerfDataReplay {
    static final int RECORD_MMAP = 1;
    static final int RECORD_LOST = 2;
    static final int RECORD_COMM = 3;
    static final int RECORD_FORK = 7;
    static final int RECORD_SAMPLE = 9;
    static final int RECORD_MMAP2 = 10;
    /** A kernel symbol appearing or going while recording: a BPF program or trampoline (Linux 5.1). */
    static final int RECORD_KSYMBOL = 17;
    static final int RECORD_HEADER_ATTR = PerfDataFile.RECORD_HEADER_ATTR;
    static final int RECORD_HEADER_BUILD_ID = PerfDataFile.RECORD_HEADER_BUILD_ID;
    static final int RECORD_FINISHED_ROUND = 68;
    static final int RECORD_EVENT_UPDATE = PerfDataFile.RECORD_EVENT_UPDATE;
    static final int RECORD_HEADER_FEATURE = PerfDataFile.RECORD_HEADER_FEATURE;
    private static final int MISC_CPUMODE_MASK = 7;
    private static final int MISC_KERNEL = 1;
    private static final int MISC_GUEST_KERNEL = 4;
    private static final long CONTEXT_MAX = -4095L;
    private static final long CONTEXT_HV = -32L;
    private static final long CONTEXT_KERNEL = -128L;
    private static final long CONTEXT_USER = -512L;
    private static final long CONTEXT_GUEST = -2048L;
    private static final long CONTEXT_GUEST_KERNEL = -2176L;
    private static final long CONTEXT_GUEST_USER = -2560L;
    /** perf script's default --max-stack (PERF_MAX_STACK_DEPTH): frames past it are not printed. */
    static final int MAX_STACK = 127;

    private final PerfDataFile file;
    private final PerfOptions opt;
    private final Symbolizer symbolizer;
    private final Consumer<String> warnings;
    private final ScriptFrameNames namer;
    final FrameTable frames = new FrameTable();
    final CallTree tree = new CallTree();

    private final Map<Integer, AddressSpace> spaces = new HashMap<>();
    private final Map<Integer, String> comms = new HashMap<>();
    /** Root frames by pid << 32 | tid (a LongIntMap: Long's hash is 0 for every thread whose tid is its pid). */
    private final LongIntMap rootFrames = new LongIntMap();
    private LongIntMap kernelFrames = new LongIntMap();
    private LongIntMap kernelJavaFrames = new LongIntMap();
    /**
     * Kernel symbols the file registered (PERF_RECORD_KSYMBOL: BPF programs, trampolines) and not yet
     * unregistered, by start: {end, name}. They name kernel addresses before kallsyms does, as perf
     * does: a BPF program unloaded since the recording (or another loaded at its address) is not in
     * the reading machine's kallsyms.
     */
    private final java.util.TreeMap<Long, Object[]> ksymbols = new java.util.TreeMap<>();
    private long lastThread = Long.MIN_VALUE;
    private int lastGeneration = -1;
    private int lastRoot;
    private boolean lastJava;
    private AddressSpace lastSpace;
    /** Changes with every record that may change a thread's name or address space. */
    private int generation;
    private final Map<String, MappedFile> mappedFiles = new HashMap<>();
    private final ChainTable chains = new ChainTable();
    /** Event attributes by sample id (index into the file's attributes). */
    private final LongIntMap attrById = new LongIntMap();
    /** Per event: 0 not yet decided, 1 counted, 2 filtered out. */
    private byte[] eventMatches;
    /** Numbers each address space's state: a new mapping gives its space a new epoch. */
    private int epochs;
    private final Map<Integer, JitMap> jitMaps = new HashMap<>();
    private AddressSymbolizer kernel;
    /** Unwinds the user stacks of --call-graph dwarf samples; made at the first. */
    private DwarfUserStacks dwarf;
    /** The offset into the function of the address last symbolized. */
    private long offset;
    private String kernelProblem;

    /** Frame pieces per named address: count|flags, then frame ids innermost first. */
    private int[] pool = new int[4096];
    private int poolUsed;
    private int[] scratch = new int[16];
    private int[] stack = new int[256];
    /** The body of the sample being read (its words after the header). */
    private long[] rec = new long[256];
    /** Pool entries by symbol, module and java flag: the name does not depend on the offset. */
    private final Map<String, Integer> named = new HashMap<>();

    // Time order: records waiting for their round to end (perf's ordered events).
    private long[] pendingTime = new long[1024];
    private long[] pendingOffset = new long[1024];
    private int pending;
    private long maxTime = Long.MIN_VALUE;
    private long flushLimit = 0;
    private boolean timed;
    private int timeFromEnd;

    private String filter;
    long samples;
    /** Whether some sample weighed its period rather than 1. */
    private boolean weighted;
    long lost;
    private final Map<String, Long> otherEvents = new LinkedHashMap<>();
    private boolean lbrWarned;
    /** Samples in time order (thread = tid, times in ns) where the caller asked for them (the viewer's time order). */
    org.stackfold.model.Timeline timeline;

    PerfDataReplay(PerfDataFile file, PerfOptions opt, Symbolizer symbolizer, Consumer<String> warnings) {
        this.file = file;
        this.opt = opt;
        this.symbolizer = symbolizer;
        this.warnings = warnings;
        this.namer = new ScriptFrameNames(opt);
        this.filter = opt.eventFilter();
        layout();
        for (PerfEventAttr a : file.attrs) {
            checkSupported(a);
        }
    }

    /** Where records keep their time, from the first event (pipe mode: known once its attribute record is read). */
    private void layout() {
        PerfEventAttr first = file.attrs.isEmpty() ? null : file.attrs.getFirst();
        timed = first != null && first.has(PerfEventAttr.SAMPLE_TIME);
        timeFromEnd = first == null ? 0 : 8 * (1 + Long.bitCount(first.sampleType()
                & (PerfEventAttr.SAMPLE_ID | PerfEventAttr.SAMPLE_STREAM_ID | PerfEventAttr.SAMPLE_CPU
                | PerfEventAttr.SAMPLE_IDENTIFIER)));
        attrById.clear();
        for (int i = 0; i < file.attrs.size(); i++) {
            for (long id : file.attrs.get(i).ids()) {
                if (attrById.get(id) < 0) {
                    attrById.put(id, i);
                }
            }
        }
        eventMatches = new byte[file.attrs.size()];
    }

    private void checkSupported(PerfEventAttr a) {
        if (a.has(PerfEventAttr.SAMPLE_STACK_USER) && !DwarfUserStacks.applies(a)) {
            throw new InputException(file.name + ": recorded with user stack copies but not the user registers rbp, rsp and rip,"
                    + " which Stackfold needs to unwind them; record with --call-graph fp (or lbr), or use 'perf script | stackfold collapse perf'");
        }
    }

    Profile profile() {
        // As collapse perf says of perf script's text: weighted by period, the counts are events of the filter's type.
        String unit = weighted && filter != null ? filter : "samples";
        Profile p = new Profile(frames, tree, List.of(new Profile.ValueType(unit, weighted ? "events" : "count")));
        if (timeline != null && timeline.size() > 0) {
            p.setTimeline(timeline);
        }
        return p;
    }

    void run() {
        long end = file.dataOffset + file.dataSize;
        long at = file.dataOffset;
        while (at < end) {
            if (end - at < 8) {
                throw InputException.atOffset(file.name, at, "record header cut short by the end of the data section");
            }
            int type = file.u32(at);
            int size = file.u16(at + 6);
            if (size < 8 || size > end - at) {
                throw InputException.atOffset(file.name, at, "record of type " + type + " claims " + size
                        + " bytes (" + (end - at) + " left in the data section)");
            }
            if (type == RECORD_FINISHED_ROUND) {
                flush(flushLimit);
                flushLimit = maxTime;
            } else if (type == RECORD_HEADER_ATTR) {
                headerAttr(at, size);
            } else if (type == RECORD_HEADER_BUILD_ID || type == RECORD_HEADER_FEATURE || type == RECORD_EVENT_UPDATE) {
                file.pipeHeader(type, at, size);
            } else {
                long time = timed ? timeOf(at, type, size) : Long.MIN_VALUE;
                if (time == Long.MIN_VALUE) {
                    process(at);
                } else {
                    queue(time, at);
                }
            }
            at += size;
        }
        flush(Long.MAX_VALUE);
        report();
    }

    /** Pipe mode: the attribute and its ids as a record. */
    private void headerAttr(long at, int size) {
        checkSupported(file.headerAttr(at, size));
        layout();
    }

    /** A record's time, or MIN_VALUE where it has none (delivered at once, as perf does). */
    private long timeOf(long at, int type, int size) {
        if (type == RECORD_SAMPLE) {
            PerfEventAttr a = file.attrs.get(attrIndex(at, size));
            long p = at + 8;
            p += a.has(PerfEventAttr.SAMPLE_IDENTIFIER) ? 8 : 0;
            p += a.has(PerfEventAttr.SAMPLE_IP) ? 8 : 0;
            p += a.has(PerfEventAttr.SAMPLE_TID) ? 8 : 0;
            return a.has(PerfEventAttr.SAMPLE_TIME) && p + 8 <= at + size ? file.u64(p) : Long.MIN_VALUE;
        }
        if (type >= RECORD_HEADER_ATTR || file.attrs.isEmpty() || !file.attrs.getFirst().sampleIdAll()
                || size - 8 < timeFromEnd) {
            return Long.MIN_VALUE;
        }
        return file.u64(at + size - timeFromEnd);
    }

    private void queue(long time, long at) {
        if (pending == pendingTime.length) {
            pendingTime = Arrays.copyOf(pendingTime, pending * 2);
            pendingOffset = Arrays.copyOf(pendingOffset, pending * 2);
        }
        pendingTime[pending] = time;
        pendingOffset[pending++] = at;
        if (Long.compareUnsigned(time, maxTime) > 0 || maxTime == Long.MIN_VALUE) {
            maxTime = time;
        }
    }

    /** Processes the queued records with times up to {@code limit} in time order (file order among equals). */
    private void flush(long limit) {
        if (pending == 0) {
            return;
        }
        int[] order = TimeOrder.sorted(pendingTime, pending);
        int kept = 0;
        long[] keepTime = new long[pending];
        long[] keepOffset = new long[pending];
        boolean all = limit == Long.MAX_VALUE;
        for (int i : order) {
            if (all || Long.compareUnsigned(pendingTime[i], limit) <= 0) {
                process(pendingOffset[i]);
            } else {
                keepTime[kept] = pendingTime[i];
                keepOffset[kept++] = pendingOffset[i];
            }
        }
        System.arraycopy(keepTime, 0, pendingTime, 0, kept);
        System.arraycopy(keepOffset, 0, pendingOffset, 0, kept);
        pending = kept;
    }

    private void process(long at) {
        int type = file.u32(at);
        int misc = file.u16(at + 4);
        int size = file.u16(at + 6);
        switch (type) {
            case RECORD_SAMPLE -> sample(at, misc, size);
            case RECORD_MMAP -> mmap(at, size, 40, misc);
            case RECORD_MMAP2 -> mmap(at, size, 72, misc);
            case RECORD_COMM -> comm(at, size);
            case RECORD_FORK -> fork(at, size);
            case RECORD_LOST -> lost += size >= 24 ? file.u64(at + 16) : 0;
            case RECORD_KSYMBOL -> ksymbol(at, size);
            default -> {
            }
        }
    }

    /** {u64 addr, u32 len, u16 ksym_type, u16 flags (1: unregister), char name[]} after the header. */
    private void ksymbol(long at, int size) {
        need(at, size, at, 24);
        long addr = file.u64(at + 8);
        long len = file.u32(at + 16) & 0xffffffffL;
        boolean unregister = (file.u16(at + 22) & 1) != 0;
        if (unregister) {
            ksymbols.remove(addr);
        } else {
            ksymbols.put(addr, new Object[] {addr + Math.max(1, len), file.cString(at + 24, at + size)});
        }
        // Frames already made for these addresses may name what was there before.
        kernelFrames = new LongIntMap();
        kernelJavaFrames = new LongIntMap();
    }

    private void need(long at, int size, long from, long bytes) {
        if (from < at || bytes < 0 || from + bytes > at + size) {
            throw InputException.atOffset(file.name, at, "record of " + size + " bytes is too short for its fields");
        }
    }

    private void mmap(long at, int size, int nameAt, int misc) {
        need(at, size, at, nameAt);
        int cpumode = misc & MISC_CPUMODE_MASK;
        int pid = file.u32(at + 8);
        if (pid == -1 || cpumode == MISC_KERNEL || cpumode == MISC_GUEST_KERNEL) {
            return; // kernel and module maps: kernel addresses go through kallsyms
        }
        long start = file.u64(at + 16);
        long len = file.u64(at + 24);
        long pgoff = file.u64(at + 32);
        String name = file.cString(at + nameAt, at + size);
        generation++;
        AddressSpace space = space(pid);
        space.map(new AddressSpace.Mapping(start, start + len, pgoff, name));
        space.epoch = ++epochs;
    }

    private AddressSpace space(int pid) {
        AddressSpace space = spaces.get(pid);
        if (space == null) {
            space = new AddressSpace(pid);
            space.epoch = ++epochs;
            spaces.put(pid, space);
        }
        return space;
    }

    private void comm(long at, int size) {
        generation++;
        need(at, size, at, 16);
        int tid = file.u32(at + 12);
        // An exec keeps the old mappings until new ones overlap them, as perf does (a sample inside
        // execve after the COMM record still names the old libc).
        comms.put(tid, file.cString(at + 16, at + size));
        rootFrames.clear();
    }

    private void fork(long at, int size) {
        generation++;
        need(at, size, at, 24);
        int pid = file.u32(at + 8);
        int ppid = file.u32(at + 12);
        int tid = file.u32(at + 16);
        int ptid = file.u32(at + 20);
        String parentComm = comms.get(ptid);
        if (parentComm != null) {
            comms.put(tid, parentComm);
        }
        if (pid != ppid) {
            AddressSpace parent = spaces.get(ppid);
            AddressSpace child = parent == null ? new AddressSpace(pid) : parent.forkedAs(pid);
            child.epoch = ++epochs;
            spaces.put(pid, child);
        }
        rootFrames.put((long) pid << 32 | (tid & 0xffffffffL), -1);
    }

    /** The index of the sample's event among the file's attributes. */
    private int attrIndex(long at, int size) {
        List<PerfEventAttr> attrs = file.attrs;
        if (attrs.isEmpty()) {
            throw InputException.atOffset(file.name, at, "a sample before any event attribute");
        }
        if (attrs.size() == 1) {
            return 0;
        }
        PerfEventAttr first = attrs.getFirst();
        long idAt;
        if (first.has(PerfEventAttr.SAMPLE_IDENTIFIER)) {
            idAt = at + 8;
        } else if (first.has(PerfEventAttr.SAMPLE_ID)) {
            idAt = at + 8 + 8L * Long.bitCount(first.sampleType()
                    & (PerfEventAttr.SAMPLE_IP | PerfEventAttr.SAMPLE_TID | PerfEventAttr.SAMPLE_TIME | PerfEventAttr.SAMPLE_ADDR));
        } else {
            return 0;
        }
        need(at, size, idAt, 8);
        return Math.max(0, attrById.get(file.u64(idAt)));
    }

    private void sample(long at, int misc, int size) {
        int event = attrIndex(at, size);
        PerfEventAttr a = file.attrs.get(event);
        // The record's words after its header, copied at once: reading them one by one from the
        // mapped file costs a bounds and alignment check each.
        int words = (size - 8) / 8;
        if (words > rec.length) {
            rec = new long[Math.max(words, rec.length * 2)];
        }
        file.u64s(at + 8, rec, words);
        int w = a.has(PerfEventAttr.SAMPLE_IDENTIFIER) ? 1 : 0;
        long ip = 0;
        if (a.has(PerfEventAttr.SAMPLE_IP)) {
            needWord(at, size, w, words);
            ip = rec[w++];
        }
        int pid = -1;
        int tid = -1;
        if (a.has(PerfEventAttr.SAMPLE_TID)) {
            needWord(at, size, w, words);
            long x = rec[w++]; // two u32 fields, pid first: the low half of a little-endian word
            pid = (int) (file.little ? x : x >>> 32);
            tid = (int) (file.little ? x >>> 32 : x);
        }
        long time = 0;
        if (timeline != null && a.has(PerfEventAttr.SAMPLE_TIME)) {
            needWord(at, size, w, words);
            time = rec[w];
        }
        w += Long.bitCount(a.sampleType() & (PerfEventAttr.SAMPLE_TIME | PerfEventAttr.SAMPLE_ADDR
                | PerfEventAttr.SAMPLE_ID | PerfEventAttr.SAMPLE_STREAM_ID | PerfEventAttr.SAMPLE_CPU));
        long period = a.fixedPeriod(); // none recorded: the attribute's sample_period, as perf (0: weight 1)
        if (a.has(PerfEventAttr.SAMPLE_PERIOD)) {
            needWord(at, size, w, words);
            period = rec[w++];
        }
        if (a.has(PerfEventAttr.SAMPLE_READ)) {
            long members = 0;
            if ((a.readFormat() & PerfEventAttr.FORMAT_GROUP) != 0) {
                needWord(at, size, w, words);
                members = rec[w];
                if (members < 0 || members > size) {
                    throw InputException.atOffset(file.name, at, "sample read group of " + members + " values");
                }
            }
            w += (int) (a.readBytes(members) / 8);
        }
        if (!counted(event)) {
            otherEvents.merge(a.name(), 1L, Long::sum);
            return;
        }
        if (a.has(PerfEventAttr.SAMPLE_BRANCH_STACK) && !lbrWarned) {
            lbrWarned = true;
            warnings.accept(file.name + ": LBR branch stacks are not stitched into call stacks; the callchain"
                    + " the kernel recorded is used as it is");
        }
        long thread = (long) pid << 32 | (tid & 0xffffffffL);
        if (thread != lastThread || generation != lastGeneration) {
            // Samples come in runs of one thread: its root frame, name and address space are looked up once a run.
            lastThread = thread;
            lastGeneration = generation;
            lastRoot = rootFrame(pid, tid);
            String comm = comms.get(tid);
            lastJava = comm != null && comm.startsWith("java");
            lastSpace = space(pid);
            if (timeline != null && comm != null && timeline.threadName(tid & 0xffffffffL) == null) {
                timeline.nameThread(tid & 0xffffffffL, comm);
            }
        }
        int cpumode = misc & MISC_CPUMODE_MASK;
        boolean kernelMode = cpumode == MISC_KERNEL || cpumode == MISC_GUEST_KERNEL;
        long[] chain = rec;
        int from;
        int n;
        if (a.has(PerfEventAttr.SAMPLE_CALLCHAIN)) {
            needWord(at, size, w, words);
            long nr = rec[w++];
            if (nr < 0 || nr > words - w) {
                throw InputException.atOffset(file.name, at, "callchain of " + nr + " entries runs past its record");
            }
            from = w;
            n = (int) nr;
        } else if (a.has(PerfEventAttr.SAMPLE_IP)) {
            chain = new long[] {ip};
            from = 0;
            n = 1;
        } else {
            from = 0;
            n = 0;
        }
        if (DwarfUserStacks.applies(a)) {
            // --call-graph dwarf: the user frames come from unwinding the copied stack (docs/unwind.md)
            if (dwarf == null) {
                dwarf = new DwarfUserStacks(file, new UnwindTables());
            }
            boolean hasChain = a.has(PerfEventAttr.SAMPLE_CALLCHAIN);
            n = dwarf.unwind(a, rec, words, hasChain ? from + n : w, chain, from, hasChain || kernelMode ? n : 0, lastSpace, at);
            chain = dwarf.chain();
            from = 0;
        }
        // What else decides the chain's names: the address space as it is now, the thread's root frame
        // (its comm), whether collapse perf treats it as Java, and the mode of the first entries.
        long context = lastSpace.epoch;
        long flags = (lastRoot & 0xffffffffL) | (lastJava ? 1L << 32 : 0) | (kernelMode ? 1L << 33 : 0);
        int node = chains.find(context, flags, chain, from, n);
        if (node < 0) {
            node = fold(chain, from, n, kernelMode, pid);
            chains.add(context, flags, chain, from, n, node);
        }
        if (node != CallTree.ROOT) {
            boolean byPeriod = period > 0 && !opt.countSamples();
            weighted |= byPeriod;
            tree.addSelf(node, byPeriod ? period : 1);
            samples++;
            if (timeline != null) {
                timeline.add(tid & 0xffffffffL, pid, time, 0, node, byPeriod ? period : 1);
            }
        }
    }

    /** Fails unless word {@code w} of the record's body lies inside the record. */
    private void needWord(long at, int size, int w, int words) {
        if (w < 0 || w >= words) {
            throw InputException.atOffset(file.name, at, "record of " + size + " bytes is too short for its fields");
        }
    }

    /** The call-tree node of a callchain not seen before in its context (ROOT: the sample is dropped). */
    private int fold(long[] chain, int from, int n, boolean kernelMode, int pid) {
        boolean java = lastJava;
        AddressSpace space = lastSpace;
        int depth = 0;
        boolean skipRemaining = false;
        int entries = 0;
        for (int i = 0; i < n && entries < MAX_STACK && !skipRemaining; i++) {
            long x = chain[from + i];
            if (Long.compareUnsigned(x, CONTEXT_MAX) >= 0) {
                if (!isContext(x)) {
                    // perf takes such a chain for corrupt and drops all of it: the sample keeps its comm alone
                    depth = 0;
                    skipRemaining = false;
                    break;
                }
                kernelMode = x == CONTEXT_KERNEL || x == CONTEXT_GUEST_KERNEL;
                continue;
            }
            entries++;
            int entry = frameOf(x, kernelMode, pid, space, java);
            depth = push(entry, depth);
            skipRemaining = (pool[entry] & ScriptFrameNames.SKIP_AFTER) != 0;
        }
        int node = skipRemaining ? CallTree.ROOT : tree.child(CallTree.ROOT, lastRoot);
        for (int i = depth - 1; i >= 0; i--) {
            node = tree.child(node, stack[i]);
        }
        return node;
    }

    private static boolean isContext(long x) {
        return x == CONTEXT_HV || x == CONTEXT_KERNEL || x == CONTEXT_USER || x == CONTEXT_GUEST
                || x == CONTEXT_GUEST_KERNEL || x == CONTEXT_GUEST_USER;
    }

    /** Whether samples of the event are counted, decided once per event. */
    private boolean counted(int event) {
        if (eventMatches[event] == 0) {
            eventMatches[event] = (byte) (matchesFilter(file.attrs.get(event).name()) ? 1 : 2);
        }
        return eventMatches[event] == 1;
    }

    private boolean matchesFilter(String event) {
        if (filter == null) {
            filter = event; // the first event sampled, as collapse perf takes the first in its input
        }
        return event.equals(filter) || base(event).equals(filter) || base(event).equals(base(filter));
    }

    /** The event without perf's modifiers ("cycles:ppp" is "cycles"); a made-up "type:config" is whole. */
    private static String base(String event) {
        int colon = event.indexOf(':');
        return colon < 0 || EventNames.madeUp(event) ? event : event.substring(0, colon);
    }

    private int push(int entry, int depth) {
        int head = pool[entry];
        if ((head & ScriptFrameNames.SKIP) != 0) {
            return depth;
        }
        int count = head & ScriptFrameNames.COUNT_MASK;
        if (depth + count > stack.length) {
            stack = Arrays.copyOf(stack, Math.max(stack.length * 2, depth + count));
        }
        System.arraycopy(pool, entry + 1, stack, depth, count);
        return depth + count;
    }

    /** The root frame: comm (spaces as underscores), with -PID or -PID/TID as the options ask. */
    private int rootFrame(int pid, int tid) {
        long key = (long) pid << 32 | (tid & 0xffffffffL);
        int f = rootFrames.get(key);
        if (f < 0) {
            // perf names the idle task (pid 0) swapper, whatever COMM records say of others
            String comm = comms.getOrDefault(tid, tid == 0 ? "swapper" : ":" + tid).replace(' ', '_');
            if (opt.pid() || opt.tid()) {
                comm += "-" + pid;
                if (opt.tid()) {
                    comm += "/" + tid;
                }
            }
            f = frames.plain(comm);
            rootFrames.put(key, f);
        }
        return f;
    }

    /** The pool entry naming one callchain address, symbolized on first sight in its address space. */
    private int frameOf(long addr, boolean kernelMode, int pid, AddressSpace space, boolean java) {
        LongIntMap cache = kernelMode ? (java ? kernelJavaFrames : kernelFrames)
                : java ? space.javaFrames : space.frames;
        int entry = cache.get(addr);
        if (entry < 0) {
            entry = kernelMode ? kernelFrame(addr, java) : userFrame(addr, pid, space, java);
            cache.put(addr, entry);
        }
        return entry;
    }

    /**
     * The pool entry of a function in a module, made once per name: frames of one function share
     * it whatever their offset (which does not reach the folded name), except for unknown addresses
     * under --addrs, whose names are their addresses.
     */
    private int entry(String function, String module, long addr, boolean java) {
        boolean byName = !(opt.addrs() && function.equals(Symbolizer.UNKNOWN));
        String key = byName ? function + '\0' + module + (java ? "\1" : "\0") : null;
        Integer known = byName ? named.get(key) : null;
        if (known != null) {
            return known;
        }
        String text = function.equals(Symbolizer.UNKNOWN) ? function : function + "+0x" + Long.toHexString(offset);
        scratch = namer.name(text, module, addr, java, frames, scratch);
        int count = scratch[0] & ScriptFrameNames.COUNT_MASK;
        if (poolUsed + count + 1 > pool.length) {
            pool = Arrays.copyOf(pool, Math.max(pool.length * 2, poolUsed + count + 1));
        }
        int entry = poolUsed;
        System.arraycopy(scratch, 0, pool, entry, count + 1);
        poolUsed += count + 1;
        if (byName) {
            named.put(key, entry);
        }
        return entry;
    }

    /**
     * Kernel frames named from a kallsyms file the user gave (null: this machine's, after
     * {@link KernelCheck}): the user vouches for it, so no build-id check applies, as in perf.
     */
    void useKallsyms(AddressSymbolizer given) {
        kernel = given;
    }

    private int kernelFrame(long addr, boolean java) {
        var k = ksymbols.floorEntry(addr);
        if (k != null && Long.compareUnsigned(addr, (Long) k.getValue()[0]) < 0) {
            String name = (String) k.getValue()[1];
            offset = addr - k.getKey();
            // perf's dso of a BPF program is its name, unbracketed: perf script prints "(bpf_prog_TAG_NAME)",
            // which the text path does not take for kernel code (no _[k]); both paths agree.
            return entry(name, name, addr, java);
        }
        if (kernel == null && kernelProblem == null) {
            kernelProblem = KernelCheck.problem(file);
            if (kernelProblem != null) {
                warnings.accept(file.name + ": kernel frames stay [unknown]: " + kernelProblem);
            }
        }
        if (kernel == null && kernelProblem == null) {
            try {
                kernel = symbolizer.kernel();
            } catch (IOException | InputException e) {
                kernelProblem = e.getMessage();
                warnings.accept(file.name + ": kernel frames stay [unknown]: " + kernelProblem);
            }
        }
        if (kernel == null) {
            return entry(Symbolizer.UNKNOWN, "[kernel.kallsyms]", addr, java);
        }
        SymbolFrame f = kernel.symbolize(addr).getLast();
        String module = f.module() == null || f.module().equals("vmlinux") ? "[kernel.kallsyms]"
                : f.module().startsWith("[") ? f.module() : "[" + f.module() + "]";
        offset = f.offset();
        return entry(f.function(), module, addr, java);
    }

    private int userFrame(long addr, int pid, AddressSpace space, boolean java) {
        AddressSpace.Mapping m = space.find(addr);
        if (m == null) {
            return entry(Symbolizer.UNKNOWN, Symbolizer.UNKNOWN, addr, java);
        }
        String f = m.file();
        if (isAnonymous(f)) {
            // perf names executable anonymous memory after the perf map, whether or not it exists
            String map = "/tmp/perf-" + pid + ".map";
            JitMap jit = jitMaps.computeIfAbsent(pid, k -> JitMap.load(Path.of(map)));
            int i = jit.find(addr);
            if (i < 0) {
                return entry(Symbolizer.UNKNOWN, map, addr, java);
            }
            offset = addr - jit.start(i);
            return entry(jit.name(i), map, addr, java);
        }
        MappedFile file = mappedFiles.computeIfAbsent(f, this::openMapped);
        if (file.symbols == null) {
            return entry(Symbolizer.UNKNOWN, f, addr, java);
        }
        long vaddr = file.segments.virtualAddress(addr - m.start() + m.pgoff());
        if (opt.addrs()) {
            SymbolFrame s = file.symbols.symbolize(vaddr).getLast(); // unknown frames are named by their address
            offset = s.offset();
            return entry(s.function(), file.name, addr, java);
        }
        // Every process mapping the file shares its frames: libc is symbolized once, not once a process.
        LongIntMap byAddress = java ? file.javaFrames : file.frames;
        int entry = byAddress.get(vaddr);
        if (entry < 0) {
            SymbolFrame s = file.symbols.symbolize(vaddr).getLast();
            // and the addresses of one function share its entry (an unknown address's offset is the address)
            long function = vaddr - s.offset();
            LongIntMap byFunction = java ? file.javaFunctions : file.functions;
            entry = byFunction.get(function);
            if (entry < 0) {
                offset = s.offset();
                entry = entry(s.function(), file.name, addr, java);
                byFunction.put(function, entry);
            }
            byAddress.put(vaddr, entry);
        }
        return entry;
    }

    /** A file named by MMAP records, with its symbols (null where it cannot be read) and its named frames. */
    private static final class MappedFile {
        final String name;
        final ElfLoadSegments segments;
        final AddressSymbolizer symbols;
        final LongIntMap frames = new LongIntMap();
        final LongIntMap javaFrames = new LongIntMap();
        /** Entries by function start, for addresses not seen before in known functions. */
        final LongIntMap functions = new LongIntMap();
        final LongIntMap javaFunctions = new LongIntMap();

        MappedFile(String name, ElfLoadSegments segments, AddressSymbolizer symbols) {
            this.name = name;
            this.segments = segments;
            this.symbols = segments == null ? null : symbols;
        }
    }

    private MappedFile openMapped(String f) {
        Path elf;
        if (f.equals("[vdso]")) {
            String id = file.buildIds.get("[vdso]");
            elf = id == null ? null : Path.of(System.getProperty("user.home"), ".debug", "[vdso]", id, "vdso");
            if (elf == null || !Files.isRegularFile(elf)) {
                return ownVdso(f);
            }
        } else if (f.startsWith("/")) {
            elf = Path.of(f);
        } else {
            elf = null;
        }
        if (elf == null || !Files.isRegularFile(elf)) {
            return new MappedFile(f, null, null);
        }
        String recorded = file.buildIds.get(f);
        if (recorded != null && !f.equals("[vdso]")) {
            // perf names nothing with a file whose build id differs from the one it recorded (a rebuild)
            String actual = BuildIds.of(elf);
            if (!BuildIds.same(recorded, actual)) {
                warnings.accept(file.name + ": " + f + " has build id " + (actual == null ? "(none)" : actual)
                        + ", the recording " + recorded + ": its frames stay [unknown] (rebuilt since?)");
                return new MappedFile(f, null, null);
            }
        }
        AddressSymbolizer sym;
        try {
            sym = symbolizer.elf(elf);
        } catch (IOException | InputException e) {
            sym = null;
        }
        return new MappedFile(f, ElfLoadSegments.read(elf), sym);
    }

    /**
     * A vDSO perf saved no copy of (a pipe has no build-ids; perf record without its build-id
     * cache): as perf script does, this process's own, which is the same image where the file was
     * recorded on the running kernel. A file from another kernel release keeps its frames unknown.
     */
    private MappedFile ownVdso(String f) {
        String release = file.features.get("os release");
        if (release != null && !release.equals(System.getProperty("os.version"))) {
            return new MappedFile(f, null, null);
        }
        byte[] image = symbolizer.ownVdsoImage();
        AddressSymbolizer sym = image == null ? null : symbolizer.vdso(image);
        if (sym == null) {
            return new MappedFile(f, null, null);
        }
        return new MappedFile(f, ElfLoadSegments.of(ByteBuffer.wrap(image)), sym);
    }

    /** perf's anonymous and no-file memory (JIT code): named through /tmp/perf-PID.map. */
    static boolean isAnonymous(String f) {
        return f.equals("//anon") || f.startsWith("/dev/zero") || f.startsWith("/anon_hugepage")
                || f.startsWith("[stack") || f.startsWith("/SYSV") || f.equals("[heap]");
    }

    private void report() {
        if (samples == 0 && otherEvents.isEmpty()) {
            throw new InputException(file.name + ": perf.data without samples" + (lost > 0 ? " (perf lost " + lost + " events)" : ""));
        }
        if (lost > 0) {
            warnings.accept(file.name + ": perf lost " + lost + " events while recording (PERF_RECORD_LOST)");
        }
        String unwound = dwarf == null ? null : dwarf.summary();
        if (unwound != null) {
            warnings.accept(file.name + ": " + unwound);
        }
        if (!otherEvents.isEmpty()) {
            StringBuilder sb = new StringBuilder();
            otherEvents.forEach((ev, n) -> sb.append(sb.isEmpty() ? "" : ", ").append(n).append(" of '").append(ev).append("'"));
            if (samples == 0) {
                throw new InputException(file.name + ": no samples of event '" + filter + "'; the file has " + sb
                        + " (choose with --event-filter)");
            }
            warnings.accept(file.name + ": counted only events of type '" + filter + "'"
                    + (opt.eventFilter() == null ? " (the first in the input)" : "")
                    + "; skipped samples: " + sb + " (choose with --event-filter)");
        }
    }
}
