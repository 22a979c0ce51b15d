package org.stackfold.record.python;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The few things detection needs from a CPython executable or {@code libpython}: its sections by
 * name ({@code .PyRuntime}), a handful of symbols by name from {@code .dynsym} and {@code .symtab}
 * ({@code _PyRuntime}, {@code Py_Version}, {@code _PyEval_EvalFrameDefault} and its {@code .cold}
 * part), and the {@code PT_LOAD} segments that turn a mapping's start into the load bias. ELF64
 * little-endian only (x86-64, aarch64); every table is bounds-checked against the file's size.
 */
final class PythonElf {
    record Section(String name, long addr, long offset, long size) {
    }

    record Symbol(String name, long value, long size) {
    }

    record Load(long vaddr, long offset, long filesz) {
    }

    private static final int SHT_SYMTAB = 2;
    private static final int SHT_DYNSYM = 11;
    private static final int PT_LOAD = 1;

    private final Path path;
    private final FileChannel ch;
    private final long fileSize;
    private final List<Section> sections = new ArrayList<>();
    private final List<Load> loads = new ArrayList<>();
    /** Symbol table sections: [offset, size, entsize, strtab offset, strtab size]. */
    private final List<long[]> symtabs = new ArrayList<>();

    private PythonElf(Path path, FileChannel ch) throws IOException {
        this.path = path;
        this.ch = ch;
        this.fileSize = ch.size();
        ByteBuffer h = bytes(0, 64);
        if (h.getInt(0) != 0x464c457f || h.get(4) != 2 || h.get(5) != 1) {
            throw new IOException(path + ": not a 64-bit little-endian ELF file");
        }
        long phoff = h.getLong(32);
        long shoff = h.getLong(40);
        int phentsize = h.getShort(54) & 0xffff;
        int phnum = h.getShort(56) & 0xffff;
        int shentsize = h.getShort(58) & 0xffff;
        int shnum = h.getShort(60) & 0xffff;
        int shstrndx = h.getShort(62) & 0xffff;
        if (phnum > 0) {
            ByteBuffer ph = bytes(phoff, (long) phentsize * phnum);
            for (int i = 0; i < phnum; i++) {
                int o = i * phentsize;
                if (ph.getInt(o) == PT_LOAD) {
                    loads.add(new Load(ph.getLong(o + 16), ph.getLong(o + 8), ph.getLong(o + 32)));
                }
            }
        }
        if (shnum == 0 || shstrndx >= shnum || shentsize < 64) {
            return;
        }
        ByteBuffer sh = bytes(shoff, (long) shentsize * shnum);
        int so = shstrndx * shentsize;
        ByteBuffer names = bytes(sh.getLong(so + 24), sh.getLong(so + 32));
        for (int i = 0; i < shnum; i++) {
            int o = i * shentsize;
            int type = sh.getInt(o + 4);
            long addr = sh.getLong(o + 16);
            long offset = sh.getLong(o + 24);
            long size = sh.getLong(o + 32);
            sections.add(new Section(cString(names, sh.getInt(o)), addr, offset, size));
            if (type == SHT_SYMTAB || type == SHT_DYNSYM) {
                int link = sh.getInt(o + 40);
                if (link > 0 && link < shnum) {
                    int lo = link * shentsize;
                    long[] t = {offset, size, sh.getLong(o + 56), sh.getLong(lo + 24), sh.getLong(lo + 32), type};
                    // .dynsym first: it is what stripped binaries keep.
                    if (type == SHT_DYNSYM) {
                        symtabs.addFirst(t);
                    } else {
                        symtabs.add(t);
                    }
                }
            }
        }
    }

    static PythonElf open(Path path) throws IOException {
        FileChannel ch = FileChannel.open(path, StandardOpenOption.READ);
        try {
            return new PythonElf(path, ch);
        } finally {
            ch.close();
        }
    }

    // The constructor reads everything but symbols; symbols need the channel again.
    private static FileChannel reopen(Path path) throws IOException {
        return FileChannel.open(path, StandardOpenOption.READ);
    }

    Path path() {
        return path;
    }

    Section section(String name) {
        for (Section s : sections) {
            if (s.name.equals(name)) {
                return s;
            }
        }
        return null;
    }

    List<Load> loads() {
        return loads;
    }

    /**
     * The link-time address at the start of a mapping of this file at {@code fileOffset} (the
     * mapping's start minus this is the load bias), or -1 if no loadable segment covers it.
     */
    long vaddrAtFileOffset(long fileOffset) {
        for (Load l : loads) {
            long pageOff = l.offset & ~0xfffL;
            if (fileOffset >= pageOff && fileOffset < l.offset + Math.max(l.filesz, 1)) {
                return l.vaddr - (l.offset - fileOffset);
            }
        }
        return -1;
    }

    /** {@code n} bytes of the file at link-time address {@code vaddr}, or null if no section holds them. */
    byte[] bytesAt(long vaddr, int n) throws IOException {
        for (Section sec : sections) {
            if (sec.addr != 0 && vaddr >= sec.addr && vaddr + n <= sec.addr + sec.size && !sec.name.equals(".bss")
                    && !sec.name.equals(".tbss")) {
                try (FileChannel c = reopen(path)) {
                    ByteBuffer b = bytes(c, sec.offset + (vaddr - sec.addr), n);
                    byte[] out = new byte[n];
                    b.get(out);
                    return out;
                }
            }
        }
        return null;
    }

    /**
     * The code ranges {@code [start, end)} of every FDE in {@code .eh_frame} (link-time addresses):
     * the functions and function parts (a {@code .cold} or hot/cold partition has its own FDE)
     * whether or not the file has symbols for them. Empty if there is no {@code .eh_frame}.
     */
    List<long[]> fdeRanges() throws IOException {
        Section eh = section(".eh_frame");
        List<long[]> out = new ArrayList<>();
        if (eh == null || eh.size <= 0 || eh.size > 64L << 20) {
            return out;
        }
        ByteBuffer b;
        try (FileChannel c = reopen(path)) {
            b = bytes(c, eh.offset, eh.size);
        }
        Map<Integer, Integer> cieEncoding = new HashMap<>();
        int p = 0;
        int n = b.limit();
        while (p + 8 <= n) {
            int start = p;
            long length = b.getInt(p) & 0xffffffffL;
            p += 4;
            if (length == 0) {
                break;
            }
            if (length == 0xffffffffL) {
                length = b.getLong(p);
                p += 8;
            }
            int end = (int) Math.min(n, p + length);
            if (end <= p) {
                break;
            }
            int idAt = p;
            int id = b.getInt(p);
            p += 4;
            if (id == 0) {
                cieEncoding.put(start, cieFdeEncoding(b, p, end));
            } else {
                int cie = idAt - id;
                Integer enc = cieEncoding.get(cie);
                if (enc != null && p + 16 <= end) {
                    int[] at = {p};
                    long begin = encoded(b, at, enc, eh.addr);
                    long range = encoded(b, at, enc & 0x0f, eh.addr);
                    if (begin != Long.MIN_VALUE && range != Long.MIN_VALUE && range > 0) {
                        out.add(new long[] {begin, begin + range});
                    }
                }
            }
            p = end;
        }
        return out;
    }

    /** The pointer encoding of a CIE's FDEs (its 'R' augmentation), absptr if none. */
    private static int cieFdeEncoding(ByteBuffer b, int p, int end) {
        if (p >= end) {
            return 0;
        }
        p++; // version
        int augStart = p;
        while (p < end && b.get(p) != 0) {
            p++;
        }
        String aug = cString(b, augStart);
        p++;
        if (aug.contains("eh")) {
            p += 8;
        }
        int[] at = {p};
        uleb(b, at); // code alignment
        uleb(b, at); // data alignment (sleb: only skipped)
        uleb(b, at); // return address register (uleb in versions 3+, one byte in 1: < 128 either way)
        if (!aug.startsWith("z")) {
            return 0;
        }
        uleb(b, at);
        for (int i = 1; i < aug.length() && at[0] < end; i++) {
            switch (aug.charAt(i)) {
                case 'R' -> {
                    return b.get(at[0]) & 0xff;
                }
                case 'P' -> {
                    int enc = b.get(at[0]++) & 0xff;
                    encoded(b, at, enc, 0);
                }
                case 'L' -> at[0]++;
                default -> {
                }
            }
        }
        return 0;
    }

    private static long uleb(ByteBuffer b, int[] at) {
        long v = 0;
        int shift = 0;
        while (at[0] < b.limit()) {
            int x = b.get(at[0]++) & 0xff;
            if (shift < 64) {
                v |= (long) (x & 0x7f) << shift;
            }
            shift += 7;
            if ((x & 0x80) == 0) {
                break;
            }
        }
        return v;
    }

    /** A DW_EH_PE-encoded value at {@code at} (advanced past it); pc-relative against the section's address. */
    private static long encoded(ByteBuffer b, int[] at, int enc, long sectionAddr) {
        if (enc == 0xff) {
            return Long.MIN_VALUE;
        }
        int field = at[0];
        long v;
        switch (enc & 0x0f) {
            case 0x00, 0x04, 0x0c -> {
                v = b.getLong(at[0]);
                at[0] += 8;
            }
            case 0x01 -> v = uleb(b, at);
            case 0x02 -> {
                v = b.getShort(at[0]) & 0xffff;
                at[0] += 2;
            }
            case 0x03 -> {
                v = b.getInt(at[0]) & 0xffffffffL;
                at[0] += 4;
            }
            case 0x0a -> {
                v = b.getShort(at[0]);
                at[0] += 2;
            }
            case 0x0b -> {
                v = b.getInt(at[0]);
                at[0] += 4;
            }
            default -> {
                return Long.MIN_VALUE;
            }
        }
        return switch (enc & 0x70) {
            case 0x00 -> v;
            case 0x10 -> sectionAddr + field + v;
            default -> Long.MIN_VALUE;
        };
    }

    /** The named symbols found (first table wins: .dynsym, then .symtab). */
    Map<String, Symbol> symbols(Set<String> wanted) throws IOException {
        Map<String, Symbol> found = new HashMap<>();
        try (FileChannel c = reopen(path)) {
            for (long[] t : symtabs) {
                long entsize = t[2] == 0 ? 24 : t[2];
                if (entsize < 24) {
                    continue;
                }
                ByteBuffer syms = bytes(c, t[0], t[1]);
                ByteBuffer strs = bytes(c, t[3], t[4]);
                byte[][] want = new byte[wanted.size()][];
                String[] wantNames = wanted.toArray(new String[0]);
                for (int i = 0; i < want.length; i++) {
                    want[i] = wantNames[i].getBytes(StandardCharsets.US_ASCII);
                }
                long n = t[1] / entsize;
                for (long i = 0; i < n; i++) {
                    int o = (int) (i * entsize);
                    int nameOff = syms.getInt(o);
                    if (nameOff <= 0 || nameOff >= strs.limit()) {
                        continue;
                    }
                    for (int w = 0; w < want.length; w++) {
                        if (!found.containsKey(wantNames[w]) && equalsAt(strs, nameOff, want[w])) {
                            long value = syms.getLong(o + 8);
                            if (value != 0) {
                                found.put(wantNames[w], new Symbol(wantNames[w], value, syms.getLong(o + 16)));
                            }
                        }
                    }
                }
            }
        }
        return found;
    }

    private static boolean equalsAt(ByteBuffer strs, int at, byte[] name) {
        if (at + name.length >= strs.limit()) {
            return false;
        }
        for (int i = 0; i < name.length; i++) {
            if (strs.get(at + i) != name[i]) {
                return false;
            }
        }
        return strs.get(at + name.length) == 0;
    }

    private static String cString(ByteBuffer b, int at) {
        if (at < 0 || at >= b.limit()) {
            return "";
        }
        int end = at;
        while (end < b.limit() && b.get(end) != 0) {
            end++;
        }
        byte[] s = new byte[end - at];
        b.get(at, s);
        return new String(s, StandardCharsets.ISO_8859_1);
    }

    private ByteBuffer bytes(long offset, long n) throws IOException {
        return bytes(ch, offset, n);
    }

    private ByteBuffer bytes(FileChannel c, long offset, long n) throws IOException {
        if (offset < 0 || n < 0 || n > 64L << 20 || offset + n > fileSize) {
            throw new IOException(String.format("%s: table at byte %d (%d bytes) lies outside the file", path, offset, n));
        }
        ByteBuffer b = ByteBuffer.allocate((int) n).order(ByteOrder.LITTLE_ENDIAN);
        while (b.hasRemaining()) {
            if (c.read(b, offset + b.position()) < 0) {
                throw new IOException(path + ": truncated at byte " + (offset + b.position()));
            }
        }
        return b.flip();
    }
}
