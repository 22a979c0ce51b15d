package org.stackfold.symbolize;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
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
    private final Map<Path, Key> keyOfPath = new ConcurrentHashMap<>();
    private final Map<VdsoKey, ElfImage> vdsos = new ConcurrentHashMap<>();
    private final DebugFiles debugFiles;

    ImageCache(DebugFiles debugFiles) {
        this.debugFiles = debugFiles;
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
        ElfImage fresh = new ElfImage(ElfFile.open(open, module), diskPath, debugFiles);
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
        for (ElfImage i : files.values()) {
            i.unload();
        }
    }

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
