package org.stackfold.format.perfdata;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * An ELF file's PT_LOAD segments, to turn a file offset (from an MMAP2 record's pgoff) into the
 * file's virtual address, which is what the symbolizer's {@code elf(path)} looks up. Only the ELF
 * and program headers are read.
 */
final class ElfLoadSegments {
    private static final int PT_LOAD = 1;
    private final long[] offset;
    private final long[] vaddr;
    private final long[] size;

    private ElfLoadSegments(long[] offset, long[] vaddr, long[] size) {
        this.offset = offset;
        this.vaddr = vaddr;
        this.size = size;
    }

    /** The segments of {@code file}, or null where it is not a readable ELF file. */
    static ElfLoadSegments read(Path file) {
        try {
            return of(ElfProgramHeaders.firstBytes(file));
        } catch (IOException e) {
            return null;
        }
    }

    /** The segments of an ELF image's first bytes (its ELF and program headers), or null where it is not ELF. */
    static ElfLoadSegments of(ByteBuffer b) {
        try {
            ElfProgramHeaders h = ElfProgramHeaders.of(b);
            if (h == null) {
                return null;
            }
            long[] off = new long[h.count()];
            long[] va = new long[h.count()];
            long[] sz = new long[h.count()];
            int n = 0;
            for (int i = 0; i < h.count(); i++) {
                if (h.type(i) != PT_LOAD) {
                    continue;
                }
                off[n] = h.fileOffset(i);
                va[n] = h.virtualAddress(i);
                sz[n] = h.fileSize(i);
                n++;
            }
            return new ElfLoadSegments(java.util.Arrays.copyOf(off, n), java.util.Arrays.copyOf(va, n),
                    java.util.Arrays.copyOf(sz, n));
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** The virtual address of a file offset; the offset itself where no segment holds it. */
    long virtualAddress(long fileOffset) {
        for (int i = 0; i < offset.length; i++) {
            if (fileOffset >= offset[i] && fileOffset - offset[i] < size[i]) {
                return vaddr[i] + fileOffset - offset[i];
            }
        }
        return fileOffset;
    }
}
