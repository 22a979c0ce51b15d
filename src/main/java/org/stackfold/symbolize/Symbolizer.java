package org.stackfold.symbolize;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.stackfold.io.InputException;
import org.stackfold.model.FrameKind;

/**
 * The one entry point: addresses of the kernel, of a live process or of an ELF file to frames.
 * Per-file symbol indexes are cached by (device, inode, modification time), so a second profile of
 * the same binaries costs almost nothing; per-process snapshots are kept until {@link #forget}.
 * Thread-safe.
 *
 * <p>API contract shared by the symbolizer and its callers (recorder, perf.data reader, collapse
 * perf). An address nothing covers gives one frame named {@value #UNKNOWN} whose offset is the
 * address relative to its module (the file offset's virtual address, or the offset into the
 * mapping) where a module is known.
 */
public final class Symbolizer implements AutoCloseable {
    /** The function name of a frame nothing covers. */
    public static final String UNKNOWN = "[unknown]";

    private final SymbolizerOptions options;
    private final Path proc;
    private final Path perfMapDir;
    private final Path kallsyms;
    private final ImageCache images;
    private final Map<Integer, ProcessSnapshot> processes = new ConcurrentHashMap<>();
    private volatile KernelSymbols kernel;
    private volatile boolean askJvms = true;

    public Symbolizer(SymbolizerOptions options) {
        this(options, Path.of("/proc"), Path.of("/tmp"), List.of(Path.of("/usr/lib/debug")));
    }

    /**
     * A symbolizer reading processes under {@code proc}, perf maps from {@code perfMapDir}, separate
     * debug files under {@code debugRoots} (build-id and debuglink lookups).
     */
    public Symbolizer(SymbolizerOptions options, Path proc, Path perfMapDir, List<Path> debugRoots) {
        this.options = options;
        this.proc = proc;
        this.perfMapDir = perfMapDir;
        this.kallsyms = proc.resolve("kallsyms");
        this.images = new ImageCache(new DebugFiles(debugRoots));
    }

    public SymbolizerOptions options() {
        return options;
    }

    /** Kernel addresses through /proc/kallsyms (loaded once), module and BPF program names included. */
    public AddressSymbolizer kernel() throws IOException {
        KernelSymbols k = kernel;
        if (k == null) {
            synchronized (this) {
                k = kernel;
                if (k == null) {
                    kernel = k = KernelSymbols.load(kallsyms);
                }
            }
        }
        return k;
    }

    /**
     * Kernel addresses through a kallsyms file the user gave (perf's {@code --kallsyms}); a missing
     * or unreadable file is an {@link InputException} naming it.
     */
    public static AddressSymbolizer kallsyms(Path file) {
        try {
            return KernelSymbols.load(file);
        } catch (NoSuchFileException e) {
            throw new InputException(file + ": kallsyms file not found");
        } catch (IOException e) {
            throw new InputException(file + ": cannot read kallsyms file: " + e.getMessage());
        }
    }

    /**
     * A process's user-space (and JIT) addresses. The first call for a pid snapshots
     * /proc/PID/maps and opens what it needs, so call it while the process lives; the snapshot
     * keeps working after the process exits. Later calls return the cached snapshot.
     */
    public AddressSymbolizer process(int pid) throws IOException {
        ProcessSnapshot known = processes.get(pid);
        if (known != null) {
            return known;
        }
        // taken outside the map's locks (it may wait for a JVM's jcmd); a racing caller's copy is dropped
        ProcessSnapshot fresh = ProcessSnapshot.take(pid, proc, perfMapDir, images, options, askJvms);
        ProcessSnapshot raced = processes.putIfAbsent(pid, fresh);
        return raced != null ? raced : fresh;
    }

    /**
     * A process's addresses through a saved copy of its /proc/PID/maps (taken while it lived), its
     * files opened by path; {@code perfMap} (may be null) names anonymous executable memory.
     */
    public AddressSymbolizer maps(Path mapsFile, Path perfMap) throws IOException {
        return ProcessSnapshot.fromMaps(mapsFile, perfMap, images, options);
    }

    /**
     * Whether a snapshot of a JVM asks it to write its perf map first ({@code jcmd PID
     * Compiler.perfmap}, default on): JIT code moves, so the map must be as new as the profile.
     */
    /**
     * One line for each file whose DWARF turned out unreadable so far (its frames are then named by
     * its symbol table, without inlined frames or lines, as addr2line does): for a caller to warn once.
     */
    public java.util.List<String> dwarfProblems() {
        java.util.List<String> out = images.dwarfProblems();
        java.util.Collections.sort(out);
        return out;
    }

    /**
     * Bounds the heap of the files' symbol tables to about {@code bytes}: the least recently used are
     * dropped past it and built again from their mapped file when needed (an always-on recording;
     * one-off symbolizing keeps every table).
     */
    public Symbolizer symbolTableBudget(long bytes) {
        images.tableBudget(bytes);
        return this;
    }

    /** The heap the symbol tables take now (as counted for the budget), and how many were dropped for it. */
    public long[] symbolTableStats() {
        return images.tableStats();
    }

    public Symbolizer askJvmsForPerfMaps(boolean ask) {
        askJvms = ask;
        return this;
    }

    /** Addresses of one ELF file, as virtual addresses of that file (what addr2line -e takes). */
    public AddressSymbolizer elf(Path file) throws IOException {
        ElfImage image = image(file);
        String module = file.toString();
        return address -> image.frames(address, module, FrameKind.NATIVE, options, Names.INSTANCE);
    }

    /**
     * Addresses of a vDSO image (the kernel's, read from a process's memory), as virtual addresses
     * of that image; null where it is not an ELF image.
     */
    public AddressSymbolizer vdso(byte[] image) {
        try {
            ElfImage elf = images.vdso(image);
            return address -> elf.frames(address, "[vdso]", FrameKind.NATIVE, options, Names.INSTANCE);
        } catch (InputException e) {
            return null;
        }
    }

    /**
     * The bytes of this process's vDSO (an ELF image), or null where /proc/self cannot show it.
     * perf script names a {@code [vdso]} it has no saved copy of from its own: the same kernel maps
     * the same image into every process.
     */
    public byte[] ownVdsoImage() {
        return ProcessSnapshot.ownVdsoImage();
    }

    /**
     * The frames of {@code function+offset} in an ELF file, as {@code perf script} prints a frame
     * (linkage or demangled name, with or without parameters); empty when the file cannot be read
     * or has no such function. Lets {@code collapse perf --inline} expand inlined frames without
     * knowing where the file was loaded.
     */
    public List<SymbolFrame> symbolizeFunction(Path file, String function, long offset) {
        try {
            ElfImage image = image(file);
            int s = image.symbolNamed(function);
            SymbolTable t = image.symbols();
            if (s < 0 || t == null) {
                return List.of();
            }
            return image.frames(t.start[s] + offset, file.toString(), FrameKind.NATIVE, options,
                    Names.INSTANCE);
        } catch (IOException | InputException e) {
            return List.of();
        }
    }

    /**
     * The frames of a runtime address in a position-dependent executable (ELF type EXEC, which is
     * loaded at its link addresses), for frames a profiler left {@code [unknown]}; empty for other
     * files (their load address is not known) or when nothing covers the address.
     */
    public List<SymbolFrame> symbolizeExecutableAddress(Path file, long address) {
        try {
            ElfImage image = image(file);
            if (image.elf.type != 2) {
                return List.of();
            }
            List<SymbolFrame> frames = image.frames(address, file.toString(), FrameKind.NATIVE, options,
                    Names.INSTANCE);
            return frames.getLast().function().equals(UNKNOWN) ? List.of() : frames;
        } catch (IOException | InputException e) {
            return List.of();
        }
    }

    /** The cached image of an ELF file on disk. */
    ElfImage image(Path file) throws IOException {
        if (!Files.exists(file)) {
            throw new NoSuchFileException(file.toString());
        }
        Path real = file.toRealPath();
        if (!Files.isRegularFile(real)) {
            throw new InputException(file + ": not a regular file");
        }
        return images.image(real, file.toString(), real);
    }

    /** Drops a process's snapshot (its pid may be reused). */
    public void forget(int pid) {
        processes.remove(pid);
    }

    /**
     * Gives back the pages of the mapped files read so far (they are read again from the page cache
     * when needed): a long-lived recording's resident memory then holds the files' indexes, not every
     * page of every binary whose symbols it looked up once.
     */
    public void unloadFiles() {
        images.unload();
    }

    /** Drops every snapshot and cached file index. */
    @Override
    public void close() {
        processes.clear();
        images.clear();
        kernel = null;
    }
}
