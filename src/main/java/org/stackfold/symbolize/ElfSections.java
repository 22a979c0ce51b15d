package org.stackfold.symbolize;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;

/**
 * A public, read-only view of {@link ElfFile} for packages outside {@code symbolize} (the unwind
 * tables): section contents with their link addresses, the build id, bytes at a virtual address,
 * and the separate debug file. Every offset is checked as {@link ElfFile} checks it.
 */
public final class ElfSections {
    private static final List<Path> DEBUG_ROOTS = List.of(Path.of("/usr/lib/debug"));
    private final ElfFile elf;
    private final Path path;

    private ElfSections(ElfFile elf, Path path) {
        this.elf = elf;
        this.path = path;
    }

    /** Maps {@code file} read-only; an {@code InputException} where it is not a 64-bit little-endian ELF file. */
    public static ElfSections open(Path file) throws IOException {
        return new ElfSections(ElfFile.open(file, file.toString()), file);
    }

    /** An ELF image held in memory (the vDSO). */
    public static ElfSections of(byte[] image, String name) {
        return new ElfSections(ElfFile.of(image, name), null);
    }

    /** This process's own vDSO image (read from its {@code [vdso]} mapping), or null. */
    public static byte[] ownVdsoImage() {
        return ProcessSnapshot.ownVdsoImage();
    }

    public String name() {
        return elf.name;
    }

    /** The GNU build id in lowercase hex, or null. */
    public String buildId() {
        return elf.buildId();
    }

    /** The ELF type (2 executable, 3 shared object). */
    public int type() {
        return elf.type;
    }

    /** A section's contents (decompressed), or null where there is no such section with bytes. */
    public byte[] section(String name) {
        return elf.sectionBytes(name);
    }

    /** A section's link address (sh_addr), or -1 where there is no such section. */
    public long sectionAddress(String name) {
        int s = elf.section(name);
        return s < 0 ? -1 : elf.sectionAddr[s];
    }

    /** The name of the allocated section holding {@code vaddr}, or null. */
    public String sectionNameAt(long vaddr) {
        int s = elf.sectionAt(vaddr);
        return s < 0 ? null : elf.sectionNames[s];
    }

    /**
     * The file bytes at virtual address {@code vaddr} through the PT_LOAD header that maps them, or
     * null where no segment holds all {@code length} bytes in the file.
     */
    public byte[] bytesAt(long vaddr, int length) {
        for (int i = 0; i < elf.loadVaddr.length; i++) {
            long rel = vaddr - elf.loadVaddr[i];
            if (rel >= 0 && rel + length <= elf.loadFileSize[i]) {
                long off = elf.loadOffset[i] + rel;
                if (off < 0 || off + length > elf.data.byteSize()) {
                    return null;
                }
                return elf.data.asSlice(off, length).toArray(ValueLayout.JAVA_BYTE);
            }
        }
        return null;
    }

    /** The separate debug file (build id, then .gnu_debuglink under /usr/lib/debug), or null. */
    public ElfSections debugFile() {
        if (path == null) {
            return null;
        }
        ElfFile debug = new DebugFiles(DEBUG_ROOTS).find(elf, path);
        return debug == null ? null : new ElfSections(debug, null);
    }
}
