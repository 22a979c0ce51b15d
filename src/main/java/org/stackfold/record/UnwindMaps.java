package org.stackfold.record;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.stackfold.record.bpf.Bpf;
import org.stackfold.record.bpf.BpfMap;
import org.stackfold.record.bpf.ErrnoException;

/**
 * The walker's view of processes, kept in the kernel: one inner {@code ARRAY} of rows per ELF file in
 * the {@code ARRAY_OF_MAPS} {@code tables} (filled through {@code mmap}), and an {@code LPM_TRIE} of
 * (pid, address) → {start, end, bias, table, rows, kind, exec} for every executable mapping of every
 * process seen, each mapping split into aligned power-of-two prefixes. A process is (re)read when
 * the walker reports an address it has no mapping for or the process execs (the {@code unknown} map:
 * a new process, a {@code dlopen}, an {@code exec}); each mapping carries the exec count it was read
 * under, so a process that execs is never walked with the maps of the program it was. A process that
 * ends (the {@code exited} map) loses its prefixes, and a file's table is freed when no process maps
 * it any more; its slot is reused once the 4,096 are all used. Errors are counted ({@link #errors}),
 * never thrown at the walker. Not thread-safe: one thread (the {@link Sampler}'s unwind worker) calls
 * it, under its lock.
 */
final class UnwindMaps implements AutoCloseable {
    static final int TABLES = 4096;
    static final int LPM_ENTRIES = 1 << 18;
    static final int UNKNOWN_ENTRIES = 4096;
    static final int TRACKED_ENTRIES = 65536;
    static final int EXITED_ENTRIES = 4096;

    private final UnwindRowSource source;
    private final BpfMap template;
    final BpfMap tables;
    final BpfMap lpm;
    final BpfMap unknown;
    /** pid → 1 for every process with prefixes in the trie (the exec program flags only these). */
    final BpfMap tracked;
    /** pid → pid for every tracked process whose main thread ended ({@link ExecProgram#exit}). */
    final BpfMap exited;
    /**
     * pid → holds left (u64) for the command the recorder started: the walker stops it (SIGSTOP) when it
     * meets code whose maps the worker has not read, the exec program at each exec, the mmap program at
     * each executable file mapping (a library); the worker sends SIGCONT once it has read them.
     * {@code stopped}: pid → pid of each process so stopped. The budget bounds what a command that maps
     * code without end (a plugin loader in a loop) pays: each hold costs it a few milliseconds.
     */
    final BpfMap held;
    final BpfMap stopped;
    static final int HOLD_BUDGET = 256;
    /** Told of each process that mapped new code (a dlopen) after its maps were first read: pid, exec. */
    private java.util.function.BiConsumer<Integer, Integer> remapped = (pid, exec) -> { };

    void onRemap(java.util.function.BiConsumer<Integer, Integer> listener) {
        remapped = listener;
    }
    /** pid → execs so far ({@link ExecProgram}); null: none counted. */
    private final BpfMap execs;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment key4 = arena.allocate(8, 8);
    private final MemorySegment next4 = arena.allocate(8, 8);
    private final MemorySegment val4 = arena.allocate(8, 8);
    private final MemorySegment lpmKey = arena.allocate(WalkerProgram.LPM_KEY_SIZE, 8);
    private final MemorySegment lpmValue = arena.allocate(WalkerProgram.MAPPING_SIZE, 8);

    /**
     * A file's table in the kernel: id (slot) in {@code tables}, row count, and its serial: the load's
     * number, from 1 and never reused as slots are, the walker's row-cache tag (so a cached row of a freed
     * table never matches the table next loaded into its slot); NONE: the file has no rows.
     */
    private record Table(int id, int rows, int serial) {
    }

    private static final Table NONE = new Table(-1, 0, 0);
    private int serials;
    private final Map<String, Table> files = new HashMap<>();
    /** One executable line of a process's maps as it is in the trie: its prefixes and its file (or null). */
    private record Line(List<byte[]> keys, String file) {
    }

    /** A process as last read: the exec count its mappings are stamped with, its lines by maps text. */
    private record Proc(int exec, Map<String, Line> lines) {
    }

    private final Map<Integer, Proc> procs = new HashMap<>();
    /** file (device:inode) → how many processes map it. */
    private final Map<String, Integer> users = new HashMap<>();
    /** Table ids freed, reused oldest first once every id has been handed out. */
    private final java.util.ArrayDeque<Integer> freeIds = new java.util.ArrayDeque<>();
    private int liveTables;
    private long freedTables;
    private long reads, trieFull, tablesFull, noRows;
    /** Errors by what failed (reading maps, ELF headers, BPF map updates...), with the last message. */
    private final Map<String, Long> errors = new java.util.TreeMap<>();
    private String lastError;
    /** Program headers by device:inode of the files seen (a refresh reads only the maps text). */
    private final Map<String, ElfHeaders> headers = new HashMap<>();
    /** The identity of each file in {@link #headers} when its headers were read (null: not known, never kept idle). */
    private final Map<String, IdleFiles.Identity> identities = new HashMap<>();

    /** A file no process maps any more, kept for the next that does: its table and program headers. */
    private record Kept(String file, Table table, ElfHeaders headers) {
    }

    /** Defaults of {@link #keepIdle}: a few hundred files, 32 MiB of rows in the kernel, ten minutes. */
    static final int IDLE_FILES = 256;
    static final long IDLE_BYTES = 32L << 20, IDLE_NANOS = 600_000_000_000L;
    private IdleFiles<Kept> idle = new IdleFiles<>(IDLE_FILES, IDLE_BYTES, IDLE_NANOS);
    private long headerReads, reused;
    private Table vdso;
    private int nextId;
    private long rows;
    private long bytes;
    private long buildNanos;

    UnwindMaps(UnwindRowSource source) throws ErrnoException {
        this(source, null);
    }

    UnwindMaps(UnwindRowSource source, BpfMap execs) throws ErrnoException {
        this.source = source;
        this.execs = execs;
        BpfMap t = null, o = null, l = null, u = null, k = null;
        try {
            t = BpfMap.create("sf_row_tmpl", Bpf.MAP_TYPE_ARRAY, 4, 8, 1, Bpf.F_INNER_MAP | Bpf.F_MMAPABLE, -1);
            o = BpfMap.create("sf_tables", Bpf.MAP_TYPE_ARRAY_OF_MAPS, 4, 4, TABLES, 0, t.fd());
            l = BpfMap.create("sf_mappings", Bpf.MAP_TYPE_LPM_TRIE, WalkerProgram.LPM_KEY_SIZE,
                    WalkerProgram.MAPPING_SIZE, LPM_ENTRIES, Bpf.F_NO_PREALLOC, -1);
            u = BpfMap.create("sf_unknown", Bpf.MAP_TYPE_HASH, 4, 4, UNKNOWN_ENTRIES);
            k = BpfMap.create("sf_tracked", Bpf.MAP_TYPE_HASH, 4, 4, TRACKED_ENTRIES);
            exited = BpfMap.create("sf_exited", Bpf.MAP_TYPE_HASH, 4, 4, EXITED_ENTRIES);
            held = BpfMap.create("sf_held", Bpf.MAP_TYPE_HASH, 4, 8, 16);
            stopped = BpfMap.create("sf_stopped", Bpf.MAP_TYPE_HASH, 4, 4, 16);
        } catch (ErrnoException e) {
            for (BpfMap m : new BpfMap[] {k, u, l, o, t}) {
                if (m != null) {
                    m.close();
                }
            }
            throw e;
        }
        template = t;
        tables = o;
        lpm = l;
        unknown = u;
        tracked = k;
    }

    /** Rows loaded into the kernel, their bytes (8 a row, pages rounded up) and the time spent building them. */
    long rows() {
        return rows;
    }

    long bytes() {
        return bytes;
    }

    /** Tables loaded now, and freed since the start (their files no longer mapped). */
    int tables() {
        return liveTables;
    }

    long freedTables() {
        return freedTables;
    }

    /** Processes whose maps were read (each read of /proc/PID/maps that changed something counts once). */
    long reads() {
        return reads;
    }

    /** Prefixes the trie had no room for; files that got no table because all 4,096 slots were in use. */
    long trieFull() {
        return trieFull;
    }

    long tablesFull() {
        return tablesFull;
    }

    /** Files mapped executable for which no rows could be built (no .eh_frame, unreadable). */
    long noRows() {
        return noRows;
    }

    /** Worker errors by what failed, in name order. */
    Map<String, Long> errors() {
        return new java.util.TreeMap<>(errors);
    }

    String lastError() {
        return lastError;
    }

    /** Counts an error the worker met (it goes on; the samples it concerns end with a status saying so). */
    void error(String what, Exception e) {
        errors.merge(what, 1L, Long::sum);
        lastError = what + ": " + e.getMessage();
        if (DEBUG) {
            System.err.println("stackfold unwind worker: " + lastError);
            e.printStackTrace();
        }
    }

    /** STACKFOLD_DEBUG_UNWIND=1: each read of a process's maps and each worker error on stderr (docs/record.md). */
    static final boolean DEBUG = System.getenv("STACKFOLD_DEBUG_UNWIND") != null;

    double buildSeconds() {
        return buildNanos / 1e9;
    }

    /**
     * How many files no process maps any more keep their table (and program headers) for the next
     * process that maps them, up to how many bytes of rows, for how long; 0 files: freed at once.
     */
    void keepIdle(int files, long bytes, long nanos) throws ErrnoException {
        for (Kept k : idle.expire(Long.MAX_VALUE)) {
            free(k.table());
        }
        idle = new IdleFiles<>(files, bytes, nanos);
    }

    /** Files kept idle now (no process maps them; their tables stay loaded), and how many were mapped again from there. */
    int idleFiles() {
        return idle.size();
    }

    long reused() {
        return reused;
    }

    /** Program headers read from files (each file once while mapped or kept idle, again when it changed). */
    long headerReads() {
        return headerReads;
    }

    /** Builds and loads the tables of these files now (a command's files, before it execs). */
    void prepare(Collection<Path> paths) {
        for (Path p : paths) {
            try {
                long ino = ((Number) Files.getAttribute(p, "unix:ino")).longValue();
                long dev = ((Number) Files.getAttribute(p, "unix:dev")).longValue();
                // The key /proc/PID/maps gives the same file: "major:minor inode" in hex as the kernel prints it.
                long major = (dev >>> 8) & 0xfff | (dev >>> 32) & ~0xfffL;
                long minor = dev & 0xff | (dev >>> 12) & ~0xffL;
                String id = String.format("%02x:%02x:%d", major, minor, ino);
                ElfHeaders h = headers.get(id);
                if (h == null) {
                    Kept k = revive(id, p);
                    if (k != null) {
                        h = k.headers();
                        files.put(id, k.table());
                    } else {
                        identities.put(id, IdleFiles.Identity.of(p));
                        h = ElfHeaders.read(p);
                        headerReads++;
                    }
                    headers.put(id, h); // the first read of its maps after exec needs only the text
                }
                table(id, p, p.toString(), h.entry);
            } catch (IOException | RuntimeException e) {
                error("reading a command's file", e); // its table is built when it is mapped
            }
        }
    }

    private Table table(String id, Path open, String name, long entry) {
        Table t = files.get(id);
        if (t != null) {
            return t;
        }
        long t0 = System.nanoTime();
        t = NONE;
        try {
            MemorySegment r = withEntryStop(source.rows(open, name), entry);
            if (r == null || r.byteSize() < 8) {
                noRows++;
            }
            t = load(r);
        } catch (IOException | RuntimeException e) {
            // No table: its frames end with "no table" and the accounting counts them.
            error("building unwind tables", e);
        }
        buildNanos += System.nanoTime() - t0;
        files.put(id, t);
        return t;
    }

    /** A row's cfa field that says "stop: the return address is undefined" (command 1), and "no info" (command 0). */
    static final int CFA_STOP = 3 << 14 | 1, CFA_NO_INFO = 3 << 14;

    /**
     * The rows with a stop row at the ELF entry point when no FDE covers it (it falls before the first
     * row or in a no-info gap): ld.so's {@code _start} has no CFI, so every stack of a program's start-up
     * (ld.so loading and relocating it) ended there as "no unwind info" although it is complete. The
     * addresses from the entry point to the next row become the root (they are reached only from the
     * entry code). Rows unchanged otherwise; a new segment, the source's is never written.
     */
    static MemorySegment withEntryStop(MemorySegment rows, long entry) {
        if (rows == null || rows.byteSize() < 8 || entry <= 0 || entry > 0xffffffffL) {
            return rows;
        }
        int n = (int) Math.min(rows.byteSize() / 8, WalkerProgram.MAX_ROWS - 1);
        int lo = -1, hi = n; // the last row whose pc <= entry
        while (hi - lo > 1) {
            int mid = (lo + hi) >>> 1;
            if (Integer.toUnsignedLong(rows.get(ValueLayout.JAVA_INT_UNALIGNED, (long) mid * 8)) <= entry) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        boolean replace = false;
        if (lo >= 0) {
            int cfa = Short.toUnsignedInt(rows.get(ValueLayout.JAVA_SHORT_UNALIGNED, (long) lo * 8 + 4));
            if (cfa != CFA_NO_INFO) {
                return rows; // covered
            }
            replace = Integer.toUnsignedLong(rows.get(ValueLayout.JAVA_INT_UNALIGNED, (long) lo * 8)) == entry;
        }
        int at = replace ? lo : lo + 1;
        MemorySegment out = Arena.ofAuto().allocate((long) (replace ? n : n + 1) * 8, 8);
        MemorySegment.copy(rows, 0, out, 0, (long) at * 8);
        out.set(ValueLayout.JAVA_INT, (long) at * 8, (int) entry);
        out.set(ValueLayout.JAVA_SHORT, (long) at * 8 + 4, (short) CFA_STOP);
        out.set(ValueLayout.JAVA_SHORT, (long) at * 8 + 6, (short) 0);
        int from = replace ? at + 1 : at;
        MemorySegment.copy(rows, (long) from * 8, out, (long) (at + 1) * 8, (long) (n - from) * 8);
        return out;
    }

    private Table load(MemorySegment r) throws ErrnoException {
        if (r == null || r.byteSize() < 8) {
            return NONE;
        }
        while (nextId >= TABLES && freeIds.isEmpty() && idle.size() > 0) {
            free(idle.takeOldest().table()); // a slot of a file no process maps
        }
        if (nextId >= TABLES && freeIds.isEmpty()) {
            tablesFull++;
            return NONE;
        }
        int n = (int) Math.min(r.byteSize() / 8, WalkerProgram.MAX_ROWS);
        try (BpfMap inner = BpfMap.create("sf_rows", Bpf.MAP_TYPE_ARRAY, 4, 8, n, Bpf.F_INNER_MAP | Bpf.F_MMAPABLE, -1)) {
            inner.writeMapped(r.asSlice(0, (long) n * 8));
            // A freed id is reused only when all are taken: a walk that read a mapping just before its
            // process's prefixes went cannot then meet another file's rows under the old id.
            int id = nextId < TABLES ? nextId++ : freeIds.removeFirst();
            key4.set(ValueLayout.JAVA_INT, 0, id);
            val4.set(ValueLayout.JAVA_INT, 0, inner.fd());
            tables.update(key4, val4, Bpf.ANY);
            rows += n;
            bytes += pageBytes(n);
            liveTables++;
            return new Table(id, n, ++serials);
        }
    }

    private static long pageBytes(int rows) {
        return ((long) rows * 8 + 4095) / 4096 * 4096;
    }

    /**
     * One fewer process maps {@code file}; at none its table is kept idle ({@link #keepIdle}) and what no
     * longer fits there is freed (the vDSO's and prepared ones stay).
     */
    private void release(String file) throws ErrnoException {
        Integer n = users.get(file);
        if (n == null) {
            return;
        }
        if (n > 1) {
            users.put(file, n - 1);
            return;
        }
        users.remove(file);
        ElfHeaders h = headers.remove(file);
        IdleFiles.Identity identity = identities.remove(file);
        Table t = files.remove(file);
        if (t == null) {
            return;
        }
        for (Kept k : idle.put(file, new Kept(file, t, h), t == NONE ? 0 : pageBytes(t.rows()), identity, System.nanoTime())) {
            free(k.table());
        }
    }

    /**
     * The kept state of {@code file} if it is idle and still the file it was read from ({@code open} is
     * the file as the process maps it), taken out of the idle ones; else null, and a changed file's table freed.
     */
    private Kept revive(String file, Path open) throws ErrnoException {
        if (!idle.contains(file)) {
            return null;
        }
        IdleFiles.Identity now = IdleFiles.Identity.of(open);
        if (now == null) {
            return null; // unmapped or gone since its maps were read: kept for the next
        }
        boolean same = now.equals(idle.identity(file));
        Kept k = idle.take(file);
        if (!same) {
            free(k.table());
            return null;
        }
        identities.put(file, now);
        reused++;
        return k;
    }

    /** Frees a table's slot (its inner map goes once no program holds it). */
    private void free(Table t) throws ErrnoException {
        if (t == null || t == NONE) {
            return;
        }
        key4.set(ValueLayout.JAVA_INT, 0, t.id());
        tables.delete(key4); // the inner map goes once no program holds it
        freeIds.addLast(t.id());
        rows -= t.rows();
        bytes -= pageBytes(t.rows());
        liveTables--;
        freedTables++;
    }

    /** Holds {@code pid} (the command the recorder started) whenever the walker meets code it has no mapping for. */
    void hold(int pid) throws ErrnoException {
        key4.set(ValueLayout.JAVA_INT, 0, pid);
        val4.set(ValueLayout.JAVA_LONG, 0, HOLD_BUDGET);
        held.update(key4, val4, Bpf.ANY);
    }

    /** Holds no process any more (the recording ends). */
    void holdNone() throws ErrnoException {
        take(held);
    }

    /** Pids the programs stopped since the last call (each once): the caller sends them SIGCONT. */
    List<Integer> takeStopped() throws ErrnoException {
        return take(stopped);
    }

    /** Pids whose main thread ended since the last call (each once). */
    List<Integer> takeExited() throws ErrnoException {
        return take(exited);
    }

    /** Pids the walker found an address without mapping for since the last call (each read once). */
    List<Integer> takeUnknown() throws ErrnoException {
        return take(unknown);
    }

    private List<Integer> take(BpfMap set) throws ErrnoException {
        List<Integer> pids = new ArrayList<>();
        MemorySegment cur = key4, next = next4;
        boolean more = set.nextKey(null, cur);
        while (more) {
            pids.add(cur.get(ValueLayout.JAVA_INT, 0));
            more = set.nextKey(cur, next);
            MemorySegment t = cur;
            cur = next;
            next = t;
        }
        for (int pid : pids) {
            key4.set(ValueLayout.JAVA_INT, 0, pid);
            set.delete(key4);
        }
        return pids;
    }

    /**
     * Reads the process's executable mappings and replaces its prefixes in the trie when they (or its
     * exec count) changed; a process that is gone loses its prefixes. Returns false when it is gone.
     */
    boolean refresh(int pid) throws ErrnoException {
        // The exec count first: maps read after it belong to this program or a later one, never an earlier.
        long t0 = System.nanoTime();
        int exec = execCount(pid);
        String text = maps(pid);
        lastPid = pid;
        lastMaps = text;
        if (text == null) {
            forget(pid);
            return false;
        }
        Proc old = procs.get(pid);
        if (old != null && old.exec() != exec) {
            forget(pid); // all its mappings were the program it was; drop them before adding the new
            old = null;
        }
        Map<String, Line> before = old == null ? Map.of() : old.lines();
        // Only the executable lines matter (the heap and stacks change all the time), and only the lines
        // that changed cost anything: a dlopen adds one or two prefixes, not the whole process again.
        Map<String, Line> now = new java.util.LinkedHashMap<>();
        List<String> added = new ArrayList<>();
        int at = 0;
        while (at < text.length()) {
            int nl = text.indexOf('\n', at);
            if (nl < 0) {
                nl = text.length();
            }
            int sp = text.indexOf(' ', at);
            if (sp > at && sp + 3 < nl && text.charAt(sp + 3) == 'x') {
                String line = text.substring(at, nl);
                Line l = before.get(line);
                if (l != null) {
                    now.put(line, l);
                } else {
                    added.add(line);
                }
            }
            at = nl + 1;
        }
        if (added.isEmpty() && now.size() == before.size()) {
            return true;
        }
        reads++;
        java.util.Set<String> fresh = new java.util.HashSet<>();
        int prefixCount = 0;
        // All the new prefixes of the process in one batch call (a new process: 50-150 prefixes, each a
        // bpf(2) call before; this machine starts ~30 processes a second).
        List<byte[]> pendingKeys = new ArrayList<>();
        List<List<byte[]>> pendingLines = new ArrayList<>();
        for (String line : added) {
            String[] file = new String[1];
            long[] v = mapping(pid, line, file);
            List<byte[]> keys = new ArrayList<>();
            if (v != null) {
                lpmValue.set(ValueLayout.JAVA_LONG, 0, v[0]);
                lpmValue.set(ValueLayout.JAVA_LONG, 8, v[1]);
                lpmValue.set(ValueLayout.JAVA_LONG, 16, v[2]);
                lpmValue.set(ValueLayout.JAVA_INT, 24, (int) v[3]);
                lpmValue.set(ValueLayout.JAVA_INT, 28, (int) v[4]);
                lpmValue.set(ValueLayout.JAVA_INT, 32, (int) v[5]);
                lpmValue.set(ValueLayout.JAVA_INT, WalkerProgram.MAPPING_EXEC, exec);
                lpmValue.set(ValueLayout.JAVA_LONG, WalkerProgram.MAPPING_SERIAL, v[6]); // serial, 0
                for (long[] p : prefixes(v[0], v[1])) {
                    byte[] k = lpmKey(pid, p[0], (int) p[1]);
                    int i = pendingKeys.size();
                    ensureBatch(i + 1);
                    MemorySegment.copy(k, 0, batchKeys, ValueLayout.JAVA_BYTE, (long) i * WalkerProgram.LPM_KEY_SIZE, k.length);
                    MemorySegment.copy(lpmValue, 0, batchValues, (long) i * WalkerProgram.MAPPING_SIZE,
                            WalkerProgram.MAPPING_SIZE);
                    pendingKeys.add(k);
                    pendingLines.add(keys);
                }
                if (DEBUG) {
                    System.err.println("  " + Long.toHexString(v[0]) + "-" + Long.toHexString(v[1]) + " bias "
                            + Long.toHexString(v[2]) + " table " + v[3] + " rows " + v[4] + " kind " + v[5]);
                }
            }
            now.put(line, new Line(keys, file[0]));
        }
        boolean[] in = insert(pendingKeys.size());
        for (int i = 0; i < in.length; i++) {
            if (in[i]) {
                byte[] k = pendingKeys.get(i);
                pendingLines.get(i).add(k);
                fresh.add(new String(k, java.nio.charset.StandardCharsets.ISO_8859_1));
                prefixCount++;
            }
        }
        // New prefixes went in before stale ones go out, so no walk finds the process half-mapped.
        for (Map.Entry<String, Line> e : before.entrySet()) {
            if (now.containsKey(e.getKey())) {
                continue;
            }
            for (byte[] k : e.getValue().keys()) {
                if (!fresh.contains(new String(k, java.nio.charset.StandardCharsets.ISO_8859_1))) {
                    MemorySegment.copy(k, 0, lpmKey, ValueLayout.JAVA_BYTE, 0, k.length);
                    lpm.delete(lpmKey);
                }
            }
        }
        procs.put(pid, new Proc(exec, now));
        if (old != null && !added.isEmpty()) {
            remapped.accept(pid, exec);
        }
        java.util.Set<String> filesBefore = files(before), filesNow = files(now);
        for (String f : filesNow) {
            if (!filesBefore.contains(f)) {
                users.merge(f, 1, Integer::sum);
            }
        }
        for (String f : filesBefore) {
            if (!filesNow.contains(f)) {
                release(f);
            }
        }
        if (DEBUG) {
            System.err.println("unwind: pid " + pid + " (exec " + exec + "): " + added.size() + " new of "
                    + now.size() + " mappings, " + prefixCount + " new prefixes, " + liveTables + " tables, "
                    + (System.nanoTime() - t0) / 1000 + " us");
        }
        key4.set(ValueLayout.JAVA_INT, 0, pid);
        val4.set(ValueLayout.JAVA_INT, 0, 1);
        tracked.update(key4, val4, Bpf.ANY);
        return true;
    }

    private int lastPid;
    private String lastMaps;
    private final ProcReader proc = new ProcReader();

    /** The threads of {@code pid} (field 20 of its stat: a zombie leader counts itself), or 0 when it cannot be read. */
    private int threads(int pid) {
        String stat = proc.read("/proc/" + pid + "/stat");
        if (stat == null) {
            return 0;
        }
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        try {
            return f.length > 17 ? Integer.parseInt(f[17]) : Integer.MAX_VALUE;
        } catch (NumberFormatException e) {
            return Integer.MAX_VALUE; // unreadable: look at the threads
        }
    }

    /**
     * The text of {@code /proc/PID/maps} the last {@link #refresh} read if it was of {@code pid}, else
     * null: the worker's Python detection reads the same text instead of reading the file again.
     */
    String lastMaps(int pid) {
        return lastPid == pid ? lastMaps : null;
    }

    private static java.util.Set<String> files(Map<String, Line> lines) {
        java.util.Set<String> files = new java.util.HashSet<>();
        for (Line l : lines.values()) {
            if (l.file() != null) {
                files.add(l.file());
            }
        }
        return files;
    }

    /**
     * The process's maps: /proc/PID/maps, or a live thread's when the main thread has ended (its own
     * then reads empty); null when the process is gone or has no memory any more (it is exiting).
     */
    private String maps(int pid) {
        try {
            String text = proc.read("/proc/" + pid + "/maps");
            if (text == null) {
                return null;
            } else if (!text.isEmpty()) {
                return text;
            } else if (threads(pid) <= 1) {
                return null; // a zombie: no thread left to read the maps of (the common case, read without a listing)
            }
            try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
                for (Path t : (Iterable<Path>) tasks::iterator) {
                    if (!t.getFileName().toString().equals(Integer.toString(pid))) {
                        String m = Files.readString(t.resolve("maps"));
                        if (!m.isEmpty()) {
                            return m;
                        }
                    }
                }
            }
            return null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private int execCount(int pid) throws ErrnoException {
        if (execs == null) {
            return 0;
        }
        key4.set(ValueLayout.JAVA_INT, 0, pid);
        return execs.lookup(key4, val4) ? val4.get(ValueLayout.JAVA_INT, 0) : 0;
    }

    /** Drops the prefixes of processes that have exited, and the idle files' tables kept too long. */
    void forgetExited() throws ErrnoException {
        for (Kept k : idle.expire(System.nanoTime())) {
            free(k.table());
        }
        for (Iterator<Integer> it = new ArrayList<>(procs.keySet()).iterator(); it.hasNext(); ) {
            int pid = it.next();
            if (!Files.exists(Path.of("/proc/" + pid))) {
                forget(pid);
            }
        }
    }

    /** A process whose main thread ended: forgotten when it has no memory left, else read again. */
    void exited(int pid) throws ErrnoException {
        if (maps(pid) == null) {
            forget(pid);
        } else {
            refresh(pid);
        }
    }

    void forget(int pid) throws ErrnoException {
        key4.set(ValueLayout.JAVA_INT, 0, pid);
        tracked.delete(key4);
        Proc old = procs.remove(pid);
        if (old == null) {
            return;
        }
        List<byte[]> keys = new ArrayList<>();
        for (Line l : old.lines().values()) {
            keys.addAll(l.keys());
        }
        remove(keys);
        for (String f : files(old.lines())) {
            release(f);
        }
    }

    /** Whether the kernel takes batch updates and deletes of the trie (Linux 5.6 and later): one call a process. */
    private boolean batchWorks = true;
    private long batchCalls;
    private MemorySegment batchKeys, batchValues;
    private int batchCapacity;

    private void ensureBatch(int n) {
        if (n > batchCapacity) {
            int cap = Math.max(256, Integer.highestOneBit(n - 1) << 1);
            MemorySegment k = arena.allocate((long) cap * WalkerProgram.LPM_KEY_SIZE, 8);
            MemorySegment v = arena.allocate((long) cap * WalkerProgram.MAPPING_SIZE, 8);
            if (batchCapacity > 0) {
                MemorySegment.copy(batchKeys, 0, k, 0, (long) batchCapacity * WalkerProgram.LPM_KEY_SIZE);
                MemorySegment.copy(batchValues, 0, v, 0, (long) batchCapacity * WalkerProgram.MAPPING_SIZE);
            }
            batchKeys = k;
            batchValues = v;
            batchCapacity = cap;
        }
    }

    /**
     * Puts the first {@code n} prefixes of the batch buffers into the trie: one batch call, or one call
     * each where the kernel has no batch; a full trie refuses some (counted). Which went in.
     */
    private boolean[] insert(int n) throws ErrnoException {
        boolean[] in = new boolean[n];
        int i = 0;
        while (i < n && batchWorks) {
            try {
                batchCalls++;
                lpm.batchWrite(batchKeys.asSlice((long) i * WalkerProgram.LPM_KEY_SIZE),
                        batchValues.asSlice((long) i * WalkerProgram.MAPPING_SIZE), n - i, Bpf.ANY);
                java.util.Arrays.fill(in, i, n, true);
                return in;
            } catch (BpfMap.BatchException e) {
                int done = Math.max(0, Math.min(e.done(), n - i));
                java.util.Arrays.fill(in, i, i + done, true);
                i += done;
                if (done == 0 && i == 0 && BpfMap.batchRefused(e) && e.errno() != ErrnoException.E2BIG) {
                    batchWorks = false; // no batch commands for this map here: one call each from now on
                } else if (e.errno() == ErrnoException.ENOSPC || e.errno() == ErrnoException.E2BIG) {
                    trieFull++;
                    i++; // that one did not fit; the rest are tried
                } else {
                    throw e;
                }
            }
        }
        for (; i < n; i++) {
            try {
                lpm.update(batchKeys.asSlice((long) i * WalkerProgram.LPM_KEY_SIZE, WalkerProgram.LPM_KEY_SIZE),
                        batchValues.asSlice((long) i * WalkerProgram.MAPPING_SIZE, WalkerProgram.MAPPING_SIZE), Bpf.ANY);
                in[i] = true;
            } catch (ErrnoException e) {
                if (e.errno() != ErrnoException.ENOSPC && e.errno() != ErrnoException.E2BIG) {
                    throw e;
                }
                trieFull++;
            }
        }
        return in;
    }

    /** Deletes prefixes from the trie: one batch call (a key already gone is skipped), or one call each. */
    private void remove(List<byte[]> keys) throws ErrnoException {
        int n = keys.size();
        ensureBatch(n);
        for (int i = 0; i < n; i++) {
            MemorySegment.copy(keys.get(i), 0, batchKeys, ValueLayout.JAVA_BYTE, (long) i * WalkerProgram.LPM_KEY_SIZE,
                    WalkerProgram.LPM_KEY_SIZE);
        }
        int i = 0;
        while (i < n && batchWorks) {
            try {
                batchCalls++;
                lpm.batchWrite(batchKeys.asSlice((long) i * WalkerProgram.LPM_KEY_SIZE), null, n - i, 0);
                return;
            } catch (BpfMap.BatchException e) {
                int done = Math.max(0, Math.min(e.done(), n - i));
                i += done;
                if (done == 0 && i == 0 && BpfMap.batchRefused(e) && e.errno() != ErrnoException.ENOENT) {
                    batchWorks = false;
                } else if (e.errno() == ErrnoException.ENOENT) {
                    i++; // gone already
                } else {
                    throw e;
                }
            }
        }
        for (; i < n; i++) {
            lpm.delete(batchKeys.asSlice((long) i * WalkerProgram.LPM_KEY_SIZE, WalkerProgram.LPM_KEY_SIZE));
        }
    }

    /** Batch calls made to the trie (inserts and deletes), for tests. */
    long batchCalls() {
        return batchWorks ? batchCalls : -1;
    }

    /** Processes with prefixes in the trie, and the prefixes. */
    int processes() {
        return procs.size();
    }

    long prefixCount() {
        return procs.values().stream().flatMap(p -> p.lines().values().stream()).mapToLong(l -> l.keys().size()).sum();
    }

    /**
     * {start, end, bias, table, rows, kind, serial} of an executable line of /proc/PID/maps, or null; the
     * file's device:inode goes into {@code file[0]}.
     */
    private long[] mapping(int pid, String line, String[] file) {
        String[] f = line.split("\\s+", 6);
        if (f.length < 5 || f[1].length() < 4 || f[1].charAt(2) != 'x') {
            return null;
        }
        int dash = f[0].indexOf('-');
        long start = Long.parseUnsignedLong(f[0], 0, dash, 16);
        long end = Long.parseUnsignedLong(f[0], dash + 1, f[0].length(), 16);
        long offset = Long.parseUnsignedLong(f[2], 16);
        String path = f.length > 5 ? f[5].strip() : "";
        if (path.equals("[vdso]")) {
            if (vdso == null) {
                long t0 = System.nanoTime();
                try {
                    vdso = load(source.vdsoRows());
                } catch (IOException | RuntimeException e) {
                    vdso = NONE;
                }
                buildNanos += System.nanoTime() - t0;
            }
            return entry(start, end, start, vdso);
        }
        if (path.isEmpty() || path.startsWith("[anon") || path.startsWith("/memfd:") || path.startsWith("//anon")) {
            return new long[] {start, end, 0, 0, 0, WalkerProgram.KIND_FP, 0};
        }
        if (path.startsWith("[")) {
            return null; // [vsyscall], [uprobes]: nothing to walk
        }
        // map_files names are unpadded hex; maps pads to 8 digits (non-PIE executables at 0x400000).
        Path open = Path.of("/proc/" + pid + "/map_files/" + Long.toHexString(start) + "-" + Long.toHexString(end));
        String inode = f[3] + ":" + f[4];
        try {
            ElfHeaders h = headers.get(inode);
            Kept k = null;
            if (h == null) {
                k = revive(inode, open);
                if (k != null) {
                    h = k.headers();
                } else {
                    identities.put(inode, IdleFiles.Identity.of(open));
                    h = ElfHeaders.read(open);
                    headerReads++;
                }
                headers.put(inode, h);
            }
            long bias = h.bias(start, offset);
            if (bias == Long.MIN_VALUE) {
                if (k != null) { // not mapped after all: idle again
                    headers.remove(inode);
                    for (Kept out : idle.put(inode, k, k.table() == NONE ? 0 : pageBytes(k.table().rows()),
                            identities.remove(inode), System.nanoTime())) {
                        free(out.table());
                    }
                }
                return null;
            }
            if (k != null) {
                files.put(inode, k.table()); // mapped again: users counts it in refresh
            }
            String name = path.endsWith(" (deleted)") ? path.substring(0, path.length() - 10) : path;
            file[0] = inode;
            return entry(start, end, bias, table(inode, open, name, h.entry));
        } catch (java.nio.file.NoSuchFileException e) {
            return null; // unmapped (or the process gone) since its maps were read: the next read sees it
        } catch (IOException | RuntimeException e) {
            error("reading a mapped file's ELF headers", e);
            return null;
        }
    }

    private static long[] entry(long start, long end, long bias, Table t) {
        return t == NONE ? new long[] {start, end, bias, 0, 0, WalkerProgram.KIND_NO_TABLE, 0}
                : new long[] {start, end, bias, t.id(), t.rows(), WalkerProgram.KIND_TABLE, t.serial()};
    }

    /** [start, end) as aligned power-of-two blocks {address, log2 size}. */
    static List<long[]> prefixes(long start, long end) {
        List<long[]> out = new ArrayList<>();
        long s = start;
        while (Long.compareUnsigned(s, end) < 0) {
            int k = s == 0 ? 63 : Long.numberOfTrailingZeros(s);
            while (k > 0 && (Long.compareUnsigned(end - s, 1L << k) < 0 || k >= 63)) {
                k--;
            }
            out.add(new long[] {s, k});
            s += 1L << k;
        }
        return out;
    }

    /** {prefixlen u32 host order, pid u32 big-endian, address u64 big-endian}. */
    static byte[] lpmKey(int pid, long address, int log2) {
        MemorySegment k = MemorySegment.ofArray(new byte[WalkerProgram.LPM_KEY_SIZE]);
        k.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.nativeOrder()), 0, 32 + 64 - log2);
        k.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 4, pid);
        k.set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 8, address);
        return k.toArray(ValueLayout.JAVA_BYTE);
    }

    @Override
    public void close() {
        stopped.close();
        held.close();
        exited.close();
        tracked.close();
        unknown.close();
        lpm.close();
        tables.close(); // the inner maps go with it: only the outer map held them
        template.close();
        arena.close();
    }

    @Override
    public String toString() {
        return "UnwindMaps" + Arrays.asList(nextId, rows);
    }
}
