package org.stackfold.symbolize;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import org.stackfold.io.InputException;
import org.stackfold.model.FrameKind;

/**
 * The executable mappings of one process, captured while it lives: each file-backed mapping holds
 * its (mapped, shared) ELF image, so symbolizing keeps working after the process exits or its files
 * are deleted; anonymous executable memory is resolved through the process's perf map (JIT code),
 * read at snapshot time; the vDSO is read from the process's memory.
 */
final class ProcessSnapshot implements AddressSymbolizer {
    private final int pid;
    private final long[] start;
    private final long[] end;
    private final long[] offset;
    private final ElfImage[] image;
    private final String[] module;
    private final boolean[] anonymous;
    private final PerfMap perfMap;
    private final SymbolizerOptions options;

    private ProcessSnapshot(int pid, List<ProcessMaps.Mapping> maps, ElfImage[] image, PerfMap perfMap,
                            SymbolizerOptions options) {
        this.pid = pid;
        int n = maps.size();
        start = new long[n];
        end = new long[n];
        offset = new long[n];
        module = new String[n];
        anonymous = new boolean[n];
        for (int i = 0; i < n; i++) {
            ProcessMaps.Mapping m = maps.get(i);
            start[i] = m.start();
            end[i] = m.end();
            offset[i] = m.offset();
            module[i] = m.anonymous() ? (perfMap != null ? perfMap.source : null) : m.path();
            anonymous[i] = m.anonymous();
        }
        this.image = image;
        this.perfMap = perfMap;
        this.options = options;
    }

    /**
     * Snapshots process {@code pid} under {@code proc} (normally /proc), with its perf map looked
     * up as {@code perfMapDir/perf-PID.map}.
     */
    static ProcessSnapshot take(int pid, Path proc, Path perfMapDir, ImageCache cache, SymbolizerOptions options,
                                boolean askJvm) throws IOException {
        Path dir = proc.resolve(Integer.toString(pid));
        byte[][] buffer = MAPS_BUFFER.get();
        int length;
        try {
            length = readInto(dir.resolve("maps"), buffer);
        } catch (NoSuchFileException e) {
            throw new InputException("process " + pid + ": no such process (" + dir.resolve("maps") + ")");
        }
        List<ProcessMaps.Mapping> maps = ProcessMaps.parseExecutable(buffer[0], length, dir.resolve("maps").toString());
        if (buffer[0].length > MAPS_BUFFER_KEPT) {
            buffer[0] = new byte[MAPS_BUFFER_KEPT];
        }
        maps.sort((a, b) -> Long.compareUnsigned(a.start(), b.start()));
        ElfImage[] images = new ElfImage[maps.size()];
        boolean anyAnonymous = false;
        for (int i = 0; i < images.length; i++) {
            ProcessMaps.Mapping m = maps.get(i);
            if (m.anonymous()) {
                anyAnonymous = true;
            } else if (m.path().equals("[vdso]")) {
                images[i] = vdso(dir, m, cache);
            } else if (!m.special()) {
                images[i] = file(dir, m, cache);
            }
        }
        PerfMap perfMap = null;
        if (anyAnonymous) {
            Path map = perfMapDir.resolve("perf-" + pid + ".map");
            boolean existed = Files.exists(map);
            boolean asked = askJvm && maps.stream().anyMatch(m -> m.path().endsWith("/libjvm.so"))
                    && JvmPerfMap.request(pid, dir);
            try {
                if (Files.isReadable(map)) {
                    perfMap = PerfMap.load(map);
                }
            } finally {
                if (asked && !existed) {
                    Files.deleteIfExists(map); // written because we asked: its names are loaded, leave no file behind
                }
            }
        }
        return new ProcessSnapshot(pid, maps, images, perfMap, options);
    }

    /**
     * A snapshot from a saved copy of /proc/PID/maps: files are opened by their paths (they must
     * still be the files the process mapped), anonymous memory is named by {@code perfMap} if given.
     */
    static ProcessSnapshot fromMaps(Path maps, Path perfMap, ImageCache cache, SymbolizerOptions options)
            throws IOException {
        List<ProcessMaps.Mapping> mappings = ProcessMaps.parseExecutable(Files.readAllBytes(maps), maps.toString());
        mappings.sort((a, b) -> Long.compareUnsigned(a.start(), b.start()));
        ElfImage[] images = new ElfImage[mappings.size()];
        for (int i = 0; i < images.length; i++) {
            ProcessMaps.Mapping m = mappings.get(i);
            if (!m.anonymous() && !m.special() && !m.deleted()) {
                try {
                    images[i] = cache.image(Path.of(m.path()), m.path(), Path.of(m.path()));
                } catch (IOException | InputException e) {
                    images[i] = null;
                }
            }
        }
        return new ProcessSnapshot(-1, mappings, images, perfMap == null ? null : PerfMap.load(perfMap), options);
    }

    /**
     * A buffer per thread for /proc/PID/maps, which has no size to read by: Files.readAllBytes grows
     * its array by doubling, about 0.5 MB of garbage for a JVM's maps, and an always-on recording
     * reads them again at every new library a process maps (15 MB/s of this machine's builds).
     */
    private static final ThreadLocal<byte[][]> MAPS_BUFFER = ThreadLocal.withInitial(() -> new byte[][] {new byte[64 << 10]});
    private static final int MAPS_BUFFER_KEPT = 1 << 20;

    /** Reads a file of unknown size into {@code buffer[0]} (grown as needed); its length. */
    static int readInto(Path file, byte[][] buffer) throws IOException {
        try (java.io.InputStream in = Files.newInputStream(file)) {
            byte[] b = buffer[0];
            int n = 0;
            while (true) {
                if (n == b.length) {
                    b = java.util.Arrays.copyOf(b, b.length * 2);
                    buffer[0] = b;
                }
                int r = in.read(b, n, b.length - n);
                if (r < 0) {
                    return n;
                }
                n += r;
            }
        }
    }

    /** Opens a mapped file through map_files (works for deleted files and other mount namespaces), then fallbacks. */
    private static ElfImage file(Path dir, ProcessMaps.Mapping m, ImageCache cache) {
        Path disk = Path.of(m.path());
        Path[] candidates = {dir.resolve("map_files").resolve(m.mapFilesName()),
                dir.resolve("root").resolve(m.path().substring(1)), disk};
        for (Path c : candidates) {
            if (m.deleted() && c == disk) {
                continue;
            }
            try {
                return cache.image(c, m.path(), disk);
            } catch (IOException | InputException | SecurityException e) {
                // try the next way to reach the file
            }
        }
        return null;
    }

    private static ElfImage vdso(Path dir, ProcessMaps.Mapping m, ImageCache cache) {
        byte[] image = vdsoImage(dir, m);
        try {
            return image == null ? null : cache.vdso(image);
        } catch (InputException e) {
            return null;
        }
    }

    /** The bytes of a process's vDSO mapping (the kernel's image: it has no file), or null. */
    static byte[] vdsoImage(Path dir, ProcessMaps.Mapping m) {
        long size = m.end() - m.start();
        if (size <= 0 || size > 1 << 24) {
            return null;
        }
        try (RandomAccessFile mem = new RandomAccessFile(dir.resolve("mem").toFile(), "r")) {
            byte[] image = new byte[(int) size];
            mem.seek(m.start());
            mem.readFully(image);
            return image;
        } catch (IOException e) {
            return null;
        }
    }

    /** This process's own vDSO image, or null where /proc/self cannot show it. */
    static byte[] ownVdsoImage() {
        Path self = Path.of("/proc/self");
        try {
            for (ProcessMaps.Mapping m : ProcessMaps.parseExecutable(Files.readAllBytes(self.resolve("maps")), "/proc/self/maps")) {
                if (m.path().equals("[vdso]")) {
                    return vdsoImage(self, m);
                }
            }
        } catch (IOException | InputException e) {
            // no /proc here: the caller goes without
        }
        return null;
    }

    int pid() {
        return pid;
    }

    @Override
    public List<SymbolFrame> symbolize(long address) {
        int i = mapping(address);
        if (i < 0) {
            return List.of(new SymbolFrame(Symbolizer.UNKNOWN, 0, null, 0, FrameKind.NATIVE, null, false));
        }
        if (anonymous[i]) {
            int e = perfMap == null ? -1 : perfMap.lookup(address);
            if (e < 0) {
                return List.of(new SymbolFrame(Symbolizer.UNKNOWN, address - start[i], null, 0, FrameKind.JIT,
                        module[i], false));
            }
            return List.of(new SymbolFrame(perfMap.name(e), address - perfMap.start(e), null, 0, FrameKind.JIT,
                    module[i], false));
        }
        ElfImage img = image[i];
        long fileOffset = address - start[i] + offset[i];
        long vaddr = img == null ? -1 : img.elf.fileOffsetToVaddr(fileOffset);
        if (vaddr == -1) {
            return List.of(new SymbolFrame(Symbolizer.UNKNOWN, fileOffset, null, 0, FrameKind.NATIVE, module[i],
                    false));
        }
        return img.frames(vaddr, module[i], FrameKind.NATIVE, options, Names.INSTANCE);
    }

    private int mapping(long address) {
        int lo = 0;
        int hi = start.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(start[mid], address) <= 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        int i = lo - 1;
        return i >= 0 && Long.compareUnsigned(address, end[i]) < 0 ? i : -1;
    }
}
