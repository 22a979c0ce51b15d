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
 * (pid, address) → {start, end, bias, table, rows, kind} for every executable mapping of every
 * process seen, each mapping split into aligned power-of-two prefixes. A process is (re)read when
 * the walker reports an address it has no mapping for (the {@code unknown} map: a new process, a
 * {@code dlopen}, an {@code exec}); its old prefixes are removed first, so a process that execs is
 * never walked with the maps of the program it was. Tables stay loaded for the whole recording.
 * Not thread-safe: one thread (the {@link Sampler}'s unwind worker) calls it, under its lock.
 */
final class UnwindMaps implements AutoCloseable {
    static final int TABLES = 4096;
    static final int LPM_ENTRIES = 1 << 18;
    static final int UNKNOWN_ENTRIES = 4096;
    static final int TRACKED_ENTRIES = 65536;

    private final UnwindRowSource source;
    private final BpfMap template;
    final BpfMap tables;
    final BpfMap lpm;
    final BpfMap unknown;
    /** pid → 1 for every process with prefixes in the trie (the exec program flags only these). */
    final BpfMap tracked;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment key4 = arena.allocate(8, 8);
    private final MemorySegment next4 = arena.allocate(8, 8);
    private final MemorySegment val4 = arena.allocate(8, 8);
    private final MemorySegment lpmKey = arena.allocate(WalkerProgram.LPM_KEY_SIZE, 8);
    private final MemorySegment lpmValue = arena.allocate(WalkerProgram.MAPPING_SIZE, 8);

    /** A file's table in the kernel: id in {@code tables} and row count; NONE: the file has no rows. */
    private record Table(int id, int rows) {
    }

    private static final Table NONE = new Table(-1, 0);
    private final Map<String, Table> files = new HashMap<>();
    private final Map<Integer, List<byte[]>> prefixes = new HashMap<>();
    private final Map<Integer, String> lastMaps = new HashMap<>();
    /** Program headers by device:inode of the files seen (a refresh reads only the maps text). */
    private final Map<String, ElfHeaders> headers = new HashMap<>();
    private Table vdso;
    private int nextId;
    private long rows;
    private long bytes;
    private long buildNanos;

    UnwindMaps(UnwindRowSource source) throws ErrnoException {
        this.source = source;
        BpfMap t = null, o = null, l = null;
        try {
            t = BpfMap.create("sf_row_tmpl", Bpf.MAP_TYPE_ARRAY, 4, 8, 1, Bpf.F_INNER_MAP | Bpf.F_MMAPABLE, -1);
            o = BpfMap.create("sf_tables", Bpf.MAP_TYPE_ARRAY_OF_MAPS, 4, 4, TABLES, 0, t.fd());
            l = BpfMap.create("sf_mappings", Bpf.MAP_TYPE_LPM_TRIE, WalkerProgram.LPM_KEY_SIZE,
                    WalkerProgram.MAPPING_SIZE, LPM_ENTRIES, Bpf.F_NO_PREALLOC, -1);
            unknown = BpfMap.create("sf_unknown", Bpf.MAP_TYPE_HASH, 4, 4, UNKNOWN_ENTRIES);
            tracked = BpfMap.create("sf_tracked", Bpf.MAP_TYPE_HASH, 4, 4, TRACKED_ENTRIES);
        } catch (ErrnoException e) {
            for (BpfMap m : new BpfMap[] {l, o, t}) {
                if (m != null) {
                    m.close();
                }
            }
            throw e;
        }
        template = t;
        tables = o;
        lpm = l;
    }

    /** Rows loaded into the kernel, their bytes (8 a row, pages rounded up) and the time spent building them. */
    long rows() {
        return rows;
    }

    long bytes() {
        return bytes;
    }

    int tables() {
        return nextId;
    }

    double buildSeconds() {
        return buildNanos / 1e9;
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
                table(String.format("%02x:%02x:%d", major, minor, ino), p, p.toString());
            } catch (IOException | RuntimeException e) {
                // Its table is built when it is mapped, or never.
            }
        }
    }

    private Table table(String id, Path open, String name) {
        Table t = files.get(id);
        if (t != null) {
            return t;
        }
        long t0 = System.nanoTime();
        t = NONE;
        try {
            t = load(source.rows(open, name));
        } catch (IOException | RuntimeException e) {
            // No table: its frames end with "no table" and the accounting counts them.
        }
        buildNanos += System.nanoTime() - t0;
        files.put(id, t);
        return t;
    }

    private Table load(MemorySegment r) throws ErrnoException {
        if (r == null || r.byteSize() < 8 || nextId >= TABLES) {
            return NONE;
        }
        int n = (int) Math.min(r.byteSize() / 8, WalkerProgram.MAX_ROWS);
        try (BpfMap inner = BpfMap.create("sf_rows", Bpf.MAP_TYPE_ARRAY, 4, 8, n, Bpf.F_INNER_MAP | Bpf.F_MMAPABLE, -1)) {
            inner.writeMapped(r.asSlice(0, (long) n * 8));
            int id = nextId++;
            key4.set(ValueLayout.JAVA_INT, 0, id);
            val4.set(ValueLayout.JAVA_INT, 0, inner.fd());
            tables.update(key4, val4, Bpf.ANY);
            rows += n;
            bytes += ((long) n * 8 + 4095) / 4096 * 4096;
            return new Table(id, n);
        }
    }

    /** Pids the walker found an address without mapping for since the last call (each read once). */
    List<Integer> takeUnknown() throws ErrnoException {
        List<Integer> pids = new ArrayList<>();
        MemorySegment cur = key4, next = next4;
        boolean more = unknown.nextKey(null, cur);
        while (more) {
            pids.add(cur.get(ValueLayout.JAVA_INT, 0));
            more = unknown.nextKey(cur, next);
            MemorySegment t = cur;
            cur = next;
            next = t;
        }
        for (int pid : pids) {
            key4.set(ValueLayout.JAVA_INT, 0, pid);
            unknown.delete(key4);
        }
        return pids;
    }

    /**
     * Reads the process's executable mappings and replaces its prefixes in the trie when they
     * changed; a process that is gone loses its prefixes. Returns false when it is gone.
     */
    boolean refresh(int pid) throws ErrnoException {
        String text;
        try {
            text = Files.readString(Path.of("/proc/" + pid + "/maps"));
        } catch (IOException | RuntimeException e) {
            forget(pid);
            return false;
        }
        // Only the executable lines matter: the heap and stacks change all the time.
        StringBuilder exec = new StringBuilder();
        List<long[]> values = new ArrayList<>();
        for (String line : text.split("\n")) {
            int sp = line.indexOf(' ');
            if (sp > 0 && sp + 3 < line.length() && line.charAt(sp + 3) == 'x') {
                exec.append(line).append('\n');
            }
        }
        String execText = exec.toString();
        if (execText.equals(lastMaps.get(pid))) {
            return true;
        }
        for (String line : execText.split("\n")) {
            long[] v = line.isEmpty() ? null : mapping(pid, line);
            if (v != null) {
                values.add(v);
            }
        }
        // New prefixes go in before stale ones go out, so no walk finds the process half-mapped.
        List<byte[]> keys = new ArrayList<>();
        java.util.Set<String> fresh = new java.util.HashSet<>();
        for (long[] v : values) {
            lpmValue.set(ValueLayout.JAVA_LONG, 0, v[0]);
            lpmValue.set(ValueLayout.JAVA_LONG, 8, v[1]);
            lpmValue.set(ValueLayout.JAVA_LONG, 16, v[2]);
            lpmValue.set(ValueLayout.JAVA_INT, 24, (int) v[3]);
            lpmValue.set(ValueLayout.JAVA_INT, 28, (int) v[4]);
            lpmValue.set(ValueLayout.JAVA_INT, 32, (int) v[5]);
            lpmValue.set(ValueLayout.JAVA_INT, 36, 0);
            for (long[] p : prefixes(v[0], v[1])) {
                byte[] k = lpmKey(pid, p[0], (int) p[1]);
                MemorySegment.copy(k, 0, lpmKey, ValueLayout.JAVA_BYTE, 0, k.length);
                try {
                    lpm.update(lpmKey, lpmValue, Bpf.ANY);
                    keys.add(k);
                    fresh.add(new String(k, java.nio.charset.StandardCharsets.ISO_8859_1));
                } catch (ErrnoException e) {
                    if (e.errno() != ErrnoException.ENOSPC && e.errno() != ErrnoException.E2BIG) {
                        throw e;
                    }
                }
            }
        }
        List<byte[]> old = prefixes.remove(pid);
        if (old != null) {
            for (byte[] k : old) {
                if (!fresh.contains(new String(k, java.nio.charset.StandardCharsets.ISO_8859_1))) {
                    MemorySegment.copy(k, 0, lpmKey, ValueLayout.JAVA_BYTE, 0, k.length);
                    lpm.delete(lpmKey);
                }
            }
        }
        prefixes.put(pid, keys);
        lastMaps.put(pid, execText);
        if (System.getenv("STACKFOLD_DEBUG_UNWIND") != null) {
            System.err.println("unwind: pid " + pid + ": " + values.size() + " mappings, " + keys.size() + " prefixes");
            for (long[] v : values) {
                System.err.println("  " + Long.toHexString(v[0]) + "-" + Long.toHexString(v[1]) + " bias "
                        + Long.toHexString(v[2]) + " table " + v[3] + " rows " + v[4] + " kind " + v[5]);
            }
        }
        key4.set(ValueLayout.JAVA_INT, 0, pid);
        val4.set(ValueLayout.JAVA_INT, 0, 1);
        tracked.update(key4, val4, Bpf.ANY);
        return true;
    }

    /** Drops the prefixes of processes that have exited. */
    void forgetExited() throws ErrnoException {
        for (Iterator<Integer> it = new ArrayList<>(prefixes.keySet()).iterator(); it.hasNext(); ) {
            int pid = it.next();
            if (!Files.exists(Path.of("/proc/" + pid))) {
                forget(pid);
            }
        }
    }

    private void forget(int pid) throws ErrnoException {
        lastMaps.remove(pid);
        key4.set(ValueLayout.JAVA_INT, 0, pid);
        tracked.delete(key4);
        List<byte[]> old = prefixes.remove(pid);
        if (old != null) {
            for (byte[] k : old) {
                MemorySegment.copy(k, 0, lpmKey, ValueLayout.JAVA_BYTE, 0, k.length);
                lpm.delete(lpmKey);
            }
        }
    }

    /** {start, end, bias, table, rows, kind} of an executable line of /proc/PID/maps, or null. */
    private long[] mapping(int pid, String line) {
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
            return new long[] {start, end, 0, 0, 0, WalkerProgram.KIND_FP};
        }
        if (path.startsWith("[")) {
            return null; // [vsyscall], [uprobes]: nothing to walk
        }
        // map_files names are unpadded hex; maps pads to 8 digits (non-PIE executables at 0x400000).
        Path open = Path.of("/proc/" + pid + "/map_files/" + Long.toHexString(start) + "-" + Long.toHexString(end));
        String inode = f[3] + ":" + f[4];
        try {
            ElfHeaders h = headers.get(inode);
            if (h == null) {
                h = ElfHeaders.read(open);
                headers.put(inode, h);
            }
            long bias = h.bias(start, offset);
            if (bias == Long.MIN_VALUE) {
                return null;
            }
            String name = path.endsWith(" (deleted)") ? path.substring(0, path.length() - 10) : path;
            return entry(start, end, bias, table(inode, open, name));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static long[] entry(long start, long end, long bias, Table t) {
        return t == NONE ? new long[] {start, end, bias, 0, 0, WalkerProgram.KIND_NO_TABLE}
                : new long[] {start, end, bias, t.id(), t.rows(), WalkerProgram.KIND_TABLE};
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
