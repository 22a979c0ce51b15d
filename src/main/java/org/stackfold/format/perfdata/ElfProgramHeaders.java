package org.stackfold.format.perfdata;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The program headers of an ELF image's first bytes, 32- or 64-bit, either byte order: what
 * {@link ElfLoadSegments} (PT_LOAD) and {@link BuildIds} (PT_NOTE) read of a file, with the header
 * table checked to lie within the bytes read.
 */
final class ElfProgramHeaders {
    private final ByteBuffer bytes;
    private final boolean is64;
    private final long phoff;
    private final int phentsize;
    private final int phnum;

    private ElfProgramHeaders(ByteBuffer bytes, boolean is64, long phoff, int phentsize, int phnum) {
        this.bytes = bytes;
        this.is64 = is64;
        this.phoff = phoff;
        this.phentsize = phentsize;
        this.phnum = phnum;
    }

    /** A file's first 64 KiB (or all of a smaller file): the ELF and program headers, in practice the notes too. */
    static ByteBuffer firstBytes(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate((int) Math.min(ch.size(), 1 << 16));
            while (b.hasRemaining() && ch.read(b) > 0) {
                // fill
            }
            return b.flip();
        }
    }

    /** The headers of {@code b} (its byte order set to the file's), or null where it is not ELF or they lie outside it. */
    static ElfProgramHeaders of(ByteBuffer b) {
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
        return new ElfProgramHeaders(b, is64, phoff, phentsize, phnum);
    }

    ByteBuffer bytes() {
        return bytes;
    }

    int count() {
        return phnum;
    }

    private int at(int i) {
        return (int) (phoff + (long) i * phentsize);
    }

    int type(int i) {
        return bytes.getInt(at(i));
    }

    long fileOffset(int i) {
        return is64 ? bytes.getLong(at(i) + 8) : bytes.getInt(at(i) + 4) & 0xffffffffL;
    }

    long virtualAddress(int i) {
        return is64 ? bytes.getLong(at(i) + 16) : bytes.getInt(at(i) + 8) & 0xffffffffL;
    }

    long fileSize(int i) {
        return is64 ? bytes.getLong(at(i) + 32) : bytes.getInt(at(i) + 16) & 0xffffffffL;
    }
}
