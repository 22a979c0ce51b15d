package org.stackfold.symbolize;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Parsed ELF files shared across processes and profiles, keyed by what identifies a file's contents
 * on disk: device, inode, size and modification time (a rebuilt binary gets a new entry; the old one
 * is dropped). The vDSO, which every process of one kernel shares, is keyed by its bytes.
 */
final class ImageCache {
    private record Key(long device, long inode, long size, FileTime modified) {
    }

    private record VdsoKey(byte[] image) {
        @Override
        public boolean equals(Object o) {
            return o instanceof VdsoKey k && Arrays.equals(image, k.image);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(image);
        }
    }

    private final Map<Key, ElfImage> files = new ConcurrentHashMap<>();
    /**
     * Every image made and not yet collected, for {@link #unload}: one dropped from {@link #files}
     * ({@link #clear}, a rebuilt file) may still serve a live process's snapshot, and its mapping lives
     * until the collector finds it unreachable, which the serial collector's old generation puts off
     * for minutes; its pages must leave resident memory all the same.
     */
    private final java.util.Set<ElfImage> made = java.util.Collections.newSetFromMap(new java.util.WeakHashMap<>());
    private final Map<Path, Key> keyOfPath = new ConcurrentHashMap<>();
    private final Map<VdsoKey, ElfImage> vdsos = new ConcurrentHashMap<>();
    private final DebugFiles debugFiles;
    /** Heap the symbol tables may take together ({@link #tableBudget}); unbounded unless set. */
    private volatile long tableBudget = Long.MAX_VALUE;
    /** Images whose symbol table is built, and the bytes each was counted at; guarded by this. */
    private final Map<ElfImage, Long> tables = new java.util.IdentityHashMap<>();
    private long tableBytes;
    private long tablesDropped;
    /** A use counter, not a clock: a racy increment only blurs which of two files was used last. */
    private long uses;

    ImageCache(DebugFiles debugFiles) {
        this.debugFiles = debugFiles;
    }

    /**
     * Bounds the heap the files' symbol tables take: past {@code bytes}, the tables of the files least
     * recently used to name a frame are dropped (built again from the still mapped file when a frame
     * of theirs is next named). An always-on recording sees hundreds of binaries over hours; without
     * a bound its heap follows every binary any process ran.
     */
    void tableBudget(long bytes) {
        tableBudget = bytes;
        enforce(null);
    }

    long tick() {
        return ++uses;
    }

    /** {@code image} built its table ({@code bytes}); drops others' while the total is past the budget. */
    void built(ElfImage image, long bytes) {
        if (tableBudget == Long.MAX_VALUE) {
            return; // unbounded: nothing to count, and no reference that would keep an unused image alive
        }
        synchronized (this) {
            Long before = tables.put(image, bytes);
            tableBytes += bytes - (before == null ? 0 : before);
        }
        enforce(image);
    }

    private void enforce(ElfImage keep) {
        java.util.List<ElfImage> victims = new java.util.ArrayList<>();
        synchronized (this) {
            if (tableBytes <= tableBudget) {
                return;
            }
            java.util.List<ElfImage> byUse = new java.util.ArrayList<>(tables.keySet());
            byUse.sort(java.util.Comparator.comparingLong(i -> i.lastUse));
            long left = tableBytes;
            for (ElfImage i : byUse) {
                if (left <= tableBudget) {
                    break;
                }
                if (i != keep) {
                    victims.add(i);
                    left -= tables.get(i);
                }
            }
            for (ElfImage i : victims) {
                tableBytes -= tables.remove(i);
                tablesDropped++;
            }
        }
        for (ElfImage i : victims) {
            i.dropSymbols(); // outside the cache's lock: an image's own lock is never taken inside it
        }
    }

    /** The symbol tables' heap now (as counted), and how many were dropped for the budget so far. */
    synchronized long[] tableStats() {
        return new long[] {tableBytes, tablesDropped};
    }

    /**
     * The image of the file opened through {@code open} (which may be a /proc link), shown as
     * {@code module}, whose directory on disk is that of {@code diskPath} (for .gnu_debuglink).
     */
    ElfImage image(Path open, String module, Path diskPath) throws IOException {
        Map<String, Object> a = Files.readAttributes(open, "unix:dev,ino,size,lastModifiedTime");
        Key key = new Key((Long) a.get("dev"), (Long) a.get("ino"), (Long) a.get("size"),
                (FileTime) a.get("lastModifiedTime"));
        ElfImage image = files.get(key);
        if (image != null) {
            return image;
        }
        ElfImage fresh = new ElfImage(ElfFile.open(open, module), diskPath, debugFiles, this);
        synchronized (made) {
            made.add(fresh);
        }
        image = files.putIfAbsent(key, fresh);
        Key old = keyOfPath.put(Path.of(module), key);
        if (old != null && !old.equals(key)) {
            files.remove(old);
        }
        return image != null ? image : fresh;
    }

    ElfImage vdso(byte[] bytes) {
        return vdsos.computeIfAbsent(new VdsoKey(bytes), k -> new ElfImage(ElfFile.of(k.image, "[vdso]"), null, null));
    }

    /** Every cached file's pages out of resident memory ({@link ElfImage#unload}). */
    void unload() {
        List<ElfImage> all;
        synchronized (made) {
            all = new java.util.ArrayList<>(made);
        }
        for (ElfImage i : all) {
            i.unload();
        }
    }

    /**
     * Forgets the cached files (an image a live process's snapshot holds stays with it). Built symbol
     * tables stay counted: under a budget they go least recently used first, and a live process's
     * files keep theirs instead of building them again after every clear.
     */
    void clear() {
        files.clear();
        keyOfPath.clear();
        vdsos.clear();
    }

    /** One line per file whose DWARF was given up (names then come from its symbol table), in no order. */
    java.util.List<String> dwarfProblems() {
        java.util.List<String> out = new java.util.ArrayList<>();
        for (ElfImage i : files.values()) {
            String p = i.dwarfProblem();
            if (p != null) {
                out.add(p);
            }
        }
        return out;
    }
}
