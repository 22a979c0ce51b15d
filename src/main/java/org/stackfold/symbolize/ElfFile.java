package org.stackfold.symbolize;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import org.stackfold.io.InputException;

/**
 * A 64-bit little-endian ELF file over a read-only mapping (or an in-memory image such as the
 * vDSO): section and program headers, notes, and section contents, decompressing SHF_COMPRESSED
 * sections (zlib through the JDK, zstd through zstd-jni). Every offset and size read from the file
 * is checked against the mapping, so a lying header gives an {@link InputException}, never a crash.
 */
final class ElfFile {
    static final int SHT_SYMTAB = 2;
    static final int SHT_DYNSYM = 11;
    static final int SHT_NOBITS = 8;
    static final int SHT_NOTE = 7;
    static final long SHF_ALLOC = 0x2;
    static final long SHF_EXECINSTR = 0x4;
    static final long SHF_COMPRESSED = 0x800;
    static final int PT_LOAD = 1;
    static final int PT_NOTE = 4;
    static final int PF_X = 1;

    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    final String name;
    final MemorySegment data;
    final int type;
    // section headers, one entry per section
    final String[] sectionNames;
    final int[] sectionType;
    final long[] sectionFlags;
    final long[] sectionAddr;
    final long[] sectionOffset;
    final long[] sectionSize;
    final int[] sectionLink;
    // PT_LOAD program headers
    final long[] loadOffset;
    final long[] loadVaddr;
    final long[] loadFileSize;
    final long[] loadMemSize;
    final int[] loadFlags;

    private ElfFile(String name, MemorySegment data) {
        this.name = name;
        this.data = data;
        if (data.byteSize() < 64 || data.get(U32, 0) != 0x464c457f) {
            throw new InputException(name + ": not an ELF file");
        }
        if (data.get(ValueLayout.JAVA_BYTE, 4) != 2 || data.get(ValueLayout.JAVA_BYTE, 5) != 1) {
            throw new InputException(name + ": only 64-bit little-endian ELF files are supported");
        }
        type = u16(16);
        long phoff = u64(32);
        long shoff = u64(40);
        int phentsize = u16(54);
        int phnum = u16(56);
        int shentsize = u16(58);
        int shnum = u16(60);
        int shstrndx = u16(62);
        if (shoff != 0 && shnum == 0 && shentsize >= 64) {
            shnum = (int) Math.min(Integer.MAX_VALUE, u64(check(shoff, 64) + 32));
        }
        if (shstrndx == 0xffff && shoff != 0) {
            shstrndx = u32(check(shoff, 64) + 40);
        }
        int loads = 0;
        if (phoff != 0 && phnum > 0) {
            check(phoff, (long) phnum * phentsize);
            if (phentsize < 56) {
                throw new InputException(name + ": program header entry too small");
            }
            for (int i = 0; i < phnum; i++) {
                if (u32(phoff + (long) i * phentsize) == PT_LOAD) {
                    loads++;
                }
            }
        }
        loadOffset = new long[loads];
        loadVaddr = new long[loads];
        loadFileSize = new long[loads];
        loadMemSize = new long[loads];
        loadFlags = new int[loads];
        for (int i = 0, k = 0; k < loads; i++) {
            long h = phoff + (long) i * phentsize;
            if (u32(h) == PT_LOAD) {
                loadFlags[k] = u32(h + 4);
                loadOffset[k] = u64(h + 8);
                loadVaddr[k] = u64(h + 16);
                loadFileSize[k] = u64(h + 32);
                loadMemSize[k] = u64(h + 40);
                k++;
            }
        }
        // Offsets are unsigned 64-bit: compared by subtraction so that one past 2^63 cannot wrap into range.
        boolean hasSections = shoff > 0 && shnum > 0 && shentsize >= 64
                && (long) shnum * shentsize <= data.byteSize() && shoff <= data.byteSize() - (long) shnum * shentsize;
        if (!hasSections) {
            shnum = 0;
        }
        sectionNames = new String[shnum];
        sectionType = new int[shnum];
        sectionFlags = new long[shnum];
        sectionAddr = new long[shnum];
        sectionOffset = new long[shnum];
        sectionSize = new long[shnum];
        sectionLink = new int[shnum];
        int[] nameOffsets = new int[shnum];
        for (int i = 0; i < shnum; i++) {
            long h = shoff + (long) i * shentsize;
            nameOffsets[i] = u32(h);
            sectionType[i] = u32(h + 4);
            sectionFlags[i] = u64(h + 8);
            sectionAddr[i] = u64(h + 16);
            sectionOffset[i] = u64(h + 24);
            sectionSize[i] = u64(h + 32);
            sectionLink[i] = u32(h + 40);
        }
        if (shstrndx > 0 && shstrndx < shnum && inFile(shstrndx)) {
            for (int i = 0; i < shnum; i++) {
                sectionNames[i] = string(sectionOffset[shstrndx], sectionSize[shstrndx], nameOffsets[i]);
            }
        } else {
            java.util.Arrays.fill(sectionNames, "");
        }
    }

    /** Maps {@code file} read-only for as long as the returned object is reachable. */
    static ElfFile open(Path file, String name) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            return new ElfFile(name, ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), Arena.ofAuto()));
        }
    }

    /**
     * Gives the pages of a mapped file back ({@code madvise(MADV_DONTNEED)}): they leave this process's
     * resident memory and come back from the page cache when read again. For a long-lived process
     * (the agent) that read symbols of many files once.
     */
    void unload() {
        if (data.isMapped()) {
            try {
                data.unload();
            } catch (RuntimeException e) {
                // a file truncated under us: its pages were not ours to keep anyway
            }
        }
    }

    static ElfFile of(byte[] image, String name) {
        return new ElfFile(name, MemorySegment.ofArray(image));
    }

    /** Index of the first section with this name, or -1. */
    int section(String sectionName) {
        for (int i = 0; i < sectionNames.length; i++) {
            if (sectionNames[i].equals(sectionName)) {
                return i;
            }
        }
        return -1;
    }

    /** Index of the first section of this type, or -1. */
    int sectionOfType(int sectionTypeWanted) {
        for (int i = 0; i < sectionType.length; i++) {
            if (sectionType[i] == sectionTypeWanted) {
                return i;
            }
        }
        return -1;
    }

    /** True when the section has bytes inside the file (not NOBITS, in bounds). */
    boolean inFile(int section) {
        return sectionType[section] != SHT_NOBITS && sectionOffset[section] >= 0 && sectionSize[section] >= 0
                && sectionOffset[section] <= data.byteSize() && sectionSize[section] <= data.byteSize() - sectionOffset[section];
    }

    /** The raw bytes of a section as a slice of the mapping (compressed sections stay compressed). */
    MemorySegment rawSection(int section) {
        if (!inFile(section)) {
            throw new InputException(name + ": section " + sectionNames[section] + " lies outside the file");
        }
        return data.asSlice(sectionOffset[section], sectionSize[section]);
    }

    /** The contents of a named section, decompressed; null when the file has no such section. */
    byte[] sectionBytes(String sectionName) {
        int s = section(sectionName);
        if (s < 0 || sectionType[s] == SHT_NOBITS) {
            return null;
        }
        MemorySegment raw = rawSection(s);
        if ((sectionFlags[s] & SHF_COMPRESSED) == 0) {
            if (raw.byteSize() > Integer.MAX_VALUE - 16) {
                throw new InputException(name + ": section " + sectionName + " is larger than 2 GiB");
            }
            return raw.toArray(ValueLayout.JAVA_BYTE);
        }
        return decompress(raw, sectionName);
    }

    private byte[] decompress(MemorySegment raw, String sectionName) {
        if (raw.byteSize() < 24) {
            throw new InputException(name + ": compressed section " + sectionName + " has no header");
        }
        int chType = raw.get(U32, 0);
        long size = raw.get(U64, 8);
        if (size < 0 || size > Integer.MAX_VALUE - 16 || size > raw.byteSize() * 1100 + 4096) {
            throw new InputException(name + ": compressed section " + sectionName + " claims " + size + " bytes");
        }
        byte[] in = raw.asSlice(24).toArray(ValueLayout.JAVA_BYTE);
        byte[] out = new byte[(int) size];
        if (chType == 1) {
            Inflater inflater = new Inflater();
            try {
                inflater.setInput(in);
                int n = 0;
                while (n < out.length) {
                    int k = inflater.inflate(out, n, out.length - n);
                    if (k == 0 && (inflater.finished() || inflater.needsInput() || inflater.needsDictionary())) {
                        break;
                    }
                    n += k;
                }
                if (n != out.length) {
                    throw new InputException(name + ": compressed section " + sectionName + " is truncated");
                }
            } catch (DataFormatException e) {
                throw new InputException(name + ": compressed section " + sectionName + ": " + e.getMessage());
            } finally {
                inflater.end();
            }
            return out;
        }
        if (chType == 2) {
            long n = com.github.luben.zstd.Zstd.decompress(out, in);
            if (com.github.luben.zstd.Zstd.isError(n) || n != out.length) {
                throw new InputException(name + ": compressed section " + sectionName + " is not valid zstd");
            }
            return out;
        }
        throw new InputException(name + ": section " + sectionName + " uses unknown compression " + chType);
    }

    /** The GNU build id (lowercase hex), or null. */
    String buildId() {
        for (int i = 0; i < sectionType.length; i++) {
            if (sectionType[i] == SHT_NOTE && inFile(i)) {
                String id = buildIdIn(sectionOffset[i], sectionSize[i]);
                if (id != null) {
                    return id;
                }
            }
        }
        return null;
    }

    private String buildIdIn(long off, long size) {
        long p = off;
        long end = off + size;
        while (p + 12 <= end) {
            long namesz = u32(p) & 0xffffffffL;
            long descsz = u32(p + 4) & 0xffffffffL;
            int noteType = u32(p + 8);
            long nameAt = p + 12;
            long descAt = nameAt + ((namesz + 3) & ~3L);
            long next = descAt + ((descsz + 3) & ~3L);
            if (next > end || next <= p) {
                return null;
            }
            if (noteType == 3 && namesz == 4 && u32(nameAt) == 0x00554e47 && descsz > 0 && descsz <= 64) {
                return HexFormat.of().formatHex(data.asSlice(descAt, descsz).toArray(ValueLayout.JAVA_BYTE));
            }
            p = next;
        }
        return null;
    }

    /** The file name in .gnu_debuglink, or null. */
    String debugLink() {
        int s = section(".gnu_debuglink");
        if (s < 0 || !inFile(s)) {
            return null;
        }
        String link = string(sectionOffset[s], sectionSize[s], 0);
        return link.isEmpty() ? null : link;
    }

    /** The CRC-32 stored after the .gnu_debuglink name. */
    int debugLinkCrc() {
        int s = section(".gnu_debuglink");
        long at = (sectionOffset[s] + debugLink().getBytes(StandardCharsets.UTF_8).length + 1 + 3) & ~3L;
        return at + 4 <= sectionOffset[s] + sectionSize[s] ? u32(at) : 0;
    }

    /** True when some section carries DWARF .debug_info contents. */
    boolean hasDebugInfo() {
        int s = section(".debug_info");
        return s >= 0 && sectionType[s] != SHT_NOBITS && sectionSize[s] > 0;
    }

    /** Index of the allocated section containing virtual address {@code vaddr}, or -1. */
    int sectionAt(long vaddr) {
        for (int i = 0; i < sectionAddr.length; i++) {
            if ((sectionFlags[i] & SHF_ALLOC) != 0 && sectionSize[i] > 0
                    && Long.compareUnsigned(vaddr - sectionAddr[i], sectionSize[i]) < 0) {
                return i;
            }
        }
        return -1;
    }

    /** File offset to virtual address through the PT_LOAD header that maps it, or -1. */
    long fileOffsetToVaddr(long fileOffset) {
        for (int i = 0; i < loadOffset.length; i++) {
            if (Long.compareUnsigned(fileOffset - loadOffset[i], Math.max(loadFileSize[i], 1)) < 0) {
                return fileOffset - loadOffset[i] + loadVaddr[i];
            }
        }
        return -1;
    }

    String string(long tableOffset, long tableSize, long index) {
        if (index < 0 || index >= tableSize) {
            return "";
        }
        long start = tableOffset + index;
        long end = tableOffset + tableSize;
        long p = start;
        while (p < end && data.get(ValueLayout.JAVA_BYTE, p) != 0) {
            p++;
        }
        return new String(data.asSlice(start, p - start).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }

    private long check(long offset, long length) {
        if (offset < 0 || length < 0 || offset > data.byteSize() || length > data.byteSize() - offset) {
            throw InputException.atOffset(name, offset, "ELF header points outside the file");
        }
        return offset;
    }

    int u16(long at) {
        return Short.toUnsignedInt(data.get(U16, at));
    }

    int u32(long at) {
        return data.get(U32, at);
    }

    long u64(long at) {
        return data.get(U64, at);
    }

    byte u8(long at) {
        return data.get(ValueLayout.JAVA_BYTE, at);
    }
}
