package org.stackfold.format.perfdata;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

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
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate((int) Math.min(ch.size(), 1 << 16));
            while (b.hasRemaining() && ch.read(b) > 0) {
                // fill
            }
            b.flip();
            return of(b);
        } catch (IOException e) {
            return null;
        }
    }

    /** The segments of an ELF image's first bytes (its ELF and program headers), or null where it is not ELF. */
    static ElfLoadSegments of(ByteBuffer b) {
        try {
            if (b.limit() < 52 || b.order(ByteOrder.LITTLE_ENDIAN).getInt(0) != 0x464c457f) {
                return null;
            }
            boolean is64 = b.get(4) == 2;
            b.order(b.get(5) == 2 ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
            long phoff = is64 ? b.getLong(0x20) : b.getInt(0x1c) & 0xffffffffL;
            int phentsize = b.getShort(is64 ? 0x36 : 0x2a) & 0xffff;
            int phnum = b.getShort(is64 ? 0x38 : 0x2c) & 0xffff;
            if (phentsize < (is64 ? 56 : 32) || phoff < 0 || phoff + (long) phnum * phentsize > b.limit()) {
                return null;
            }
            long[] off = new long[phnum];
            long[] va = new long[phnum];
            long[] sz = new long[phnum];
            int n = 0;
            for (int i = 0; i < phnum; i++) {
                int p = (int) (phoff + (long) i * phentsize);
                if (b.getInt(p) != PT_LOAD) {
                    continue;
                }
                off[n] = is64 ? b.getLong(p + 8) : b.getInt(p + 4) & 0xffffffffL;
                va[n] = is64 ? b.getLong(p + 16) : b.getInt(p + 8) & 0xffffffffL;
                sz[n] = is64 ? b.getLong(p + 32) : b.getInt(p + 16) & 0xffffffffL;
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
