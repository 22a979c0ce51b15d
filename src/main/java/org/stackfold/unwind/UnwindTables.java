package org.stackfold.unwind;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.CRC32;
import org.stackfold.io.InputException;
import org.stackfold.symbolize.ElfSections;

/**
 * Unwind tables of ELF files, built once and cached: in memory by build id (and by the file's
 * device, inode, size and modification time), and on disk under
 * {@code $XDG_CACHE_HOME/stackfold/unwind/} (else {@code ~/.cache/stackfold/unwind/}) as
 * {@code BUILDID.uwt}, or {@code dev-inode-size-mtime.uwt} for files without a build id. A cache file
 * that is cut short, fails its checksum or has another format version is ignored and rebuilt.
 * Thread-safe.
 */
public final class UnwindTables {
    private static final long MAGIC = 0x3154575546535f00L; // "\0_SFUWT1" read little-endian
    private static final int HEADER = 32;
    private final Path cacheDir;
    private final Map<String, UnwindTable> byBuildId = new ConcurrentHashMap<>();
    private final Map<String, UnwindTable> byFileKey = new ConcurrentHashMap<>();
    /**
     * Bytes of rows the two maps may hold ({@link #memoryBudget}); unbounded unless set. Guarded by
     * {@code recent}, which orders the tables held by last use (access order) with their byte counts.
     */
    private volatile long memoryBudget = Long.MAX_VALUE;
    private final java.util.LinkedHashMap<UnwindTable, Long> recent = new java.util.LinkedHashMap<>(64, 0.75f, true);
    private long memoryBytes;
    private volatile UnwindTable vdso;
    private volatile boolean vdsoTried;

    /** Tables cached on disk in the default directory. */
    public UnwindTables() {
        this(defaultCacheDir());
    }

    /** Tables cached on disk in {@code cacheDir}; null keeps them in memory only. */
    public UnwindTables(Path cacheDir) {
        this.cacheDir = cacheDir;
    }

    /**
     * Bounds the rows kept in memory to about {@code bytes}: past it the least recently used tables
     * are forgotten (read again from the disk cache, or built, when next asked for). The recorder
     * needs a table in memory only until the kernel has its rows; an always-on recording meets every
     * binary the machine runs, and kept all of them (~70 MB of rows after 8 minutes of this machine's
     * builds).
     */
    public UnwindTables memoryBudget(long bytes) {
        memoryBudget = bytes;
        return this;
    }

    /** Bytes of rows held in memory now. */
    public long memoryBytes() {
        synchronized (recent) {
            return memoryBytes;
        }
    }

    /** {@code t} was used; forgets the least recently used others past the budget. */
    private void used(UnwindTable t) {
        if (memoryBudget == Long.MAX_VALUE) {
            return;
        }
        java.util.List<UnwindTable> gone = new java.util.ArrayList<>();
        synchronized (recent) {
            if (recent.put(t, 8L * t.rowCount() + 64) == null) {
                memoryBytes += 8L * t.rowCount() + 64;
            }
            for (var it = recent.entrySet().iterator(); it.hasNext() && memoryBytes > memoryBudget; ) {
                var e = it.next();
                if (e.getKey() != t) {
                    memoryBytes -= e.getValue();
                    gone.add(e.getKey());
                    it.remove();
                }
            }
        }
        for (UnwindTable g : gone) {
            byBuildId.values().removeIf(x -> x == g);
            byFileKey.values().removeIf(x -> x == g);
        }
    }

    /** {@code $XDG_CACHE_HOME/stackfold/unwind}, else {@code ~/.cache/stackfold/unwind}. */
    public static Path defaultCacheDir() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path root = xdg != null && !xdg.isEmpty() && xdg.startsWith("/") ? Path.of(xdg)
                : Path.of(System.getProperty("user.home"), ".cache");
        return root.resolve("stackfold").resolve("unwind");
    }

    /** Builds the table of an ELF file with no cache (a separate debug file's .debug_frame where .eh_frame is thin). */
    public static UnwindTable build(Path file) throws IOException {
        return CfiParser.build(ElfSections.open(file), file.toString(), true);
    }

    /** Builds the table of an ELF image in memory (the vDSO) with no cache. */
    public static UnwindTable build(byte[] image, String name) {
        return CfiParser.build(ElfSections.of(image, name), name, false);
    }

    /**
     * The table of {@code file}, from memory, disk or built now. An {@link InputException} where
     * the file is not a 64-bit little-endian ELF file; IOException where it cannot be read.
     */
    public UnwindTable forFile(Path file) throws IOException {
        String fileKey = fileKey(file);
        UnwindTable t = fileKey == null ? null : byFileKey.get(fileKey);
        if (t != null) {
            used(t);
            return t;
        }
        ElfSections elf = ElfSections.open(file);
        String id = elf.buildId();
        if (id != null) {
            t = byBuildId.get(id);
        }
        if (t == null) {
            String cacheName = id != null ? id : fileKey;
            t = cacheName == null ? null : load(cacheName, file.toString(), id);
            if (t == null) {
                t = CfiParser.build(elf, file.toString(), true);
                if (cacheName != null) {
                    store(cacheName, t);
                }
            }
            if (id != null) {
                byBuildId.putIfAbsent(id, t);
            }
        }
        if (fileKey != null) {
            byFileKey.put(fileKey, t);
        }
        used(t);
        return t;
    }

    /** The table of this machine's vDSO (read once from this process's own {@code [vdso]} mapping), or null. */
    public UnwindTable vdso() {
        if (!vdsoTried) {
            synchronized (this) {
                if (!vdsoTried) {
                    byte[] image = ElfSections.ownVdsoImage();
                    try {
                        vdso = image == null ? null : build(image, "[vdso]");
                    } catch (RuntimeException e) {
                        vdso = null; // not an image we can read: its frames go without
                    }
                    vdsoTried = true;
                }
            }
        }
        return vdso;
    }

    /** dev-inode-size-mtime of a file, or null where its attributes cannot be read. */
    static String fileKey(Path file) {
        try {
            Map<String, Object> a = Files.readAttributes(file, "unix:dev,ino,size,lastModifiedTime");
            FileTime mtime = (FileTime) a.get("lastModifiedTime");
            return a.get("dev") + "-" + a.get("ino") + "-" + a.get("size") + "-"
                    + mtime.to(java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return null;
        }
    }

    private Path cacheFile(String key) {
        return cacheDir == null ? null : cacheDir.resolve(key + ".uwt");
    }

    /** A table from the disk cache, or null where there is none or it is damaged. */
    UnwindTable load(String key, String name, String buildId) {
        Path f = cacheFile(key);
        if (f == null) {
            return null;
        }
        try {
            if (!Files.isRegularFile(f)) {
                return null;
            }
            byte[] bytes = Files.readAllBytes(f);
            if (bytes.length < HEADER) {
                return null;
            }
            ByteBuffer h = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            long rows = h.getInt(8) & 0xffffffffL;
            int fdes = h.getInt(12);
            long crc = h.getLong(16);
            if (h.getLong(0) != MAGIC || bytes.length != HEADER + 8 * rows || fdes < 0) {
                return null;
            }
            CRC32 c = new CRC32();
            c.update(bytes, HEADER, bytes.length - HEADER);
            if (c.getValue() != crc) {
                return null;
            }
            long[] r = new long[(int) rows];
            MemorySegment s = MemorySegment.ofArray(bytes);
            for (int i = 0; i < r.length; i++) {
                r[i] = s.get(UnwindTable.LE64, HEADER + 8L * i);
                if (i > 0 && UnwindRow.pc(r[i]) <= UnwindRow.pc(r[i - 1])) {
                    return null; // not sorted: not a table we wrote
                }
            }
            return new UnwindTable(name, buildId, r, fdes);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Writes a table to the disk cache (temp file and rename); a cache that cannot be written is skipped. */
    void store(String key, UnwindTable t) {
        Path f = cacheFile(key);
        if (f == null) {
            return;
        }
        byte[] bytes = new byte[HEADER + 8 * t.rowCount()];
        MemorySegment s = MemorySegment.ofArray(bytes);
        t.copyTo(s, HEADER);
        CRC32 c = new CRC32();
        c.update(bytes, HEADER, bytes.length - HEADER);
        ByteBuffer h = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        h.putLong(0, MAGIC);
        h.putInt(8, t.rowCount());
        h.putInt(12, t.fdeCount());
        h.putLong(16, c.getValue());
        Path tmp = null;
        try {
            Files.createDirectories(f.getParent());
            tmp = Files.createTempFile(f.getParent(), ".uwt", ".tmp");
            Files.write(tmp, bytes);
            try {
                Files.move(tmp, f, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING);
            }
            tmp = null;
        } catch (IOException | RuntimeException e) {
            // a read-only or full cache directory: the table lives in memory only
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException e) {
                    // nothing more to do
                }
            }
        }
    }
}
