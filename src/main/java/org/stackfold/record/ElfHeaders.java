package org.stackfold.record;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What the walker needs of an ELF file's program headers: its {@code PT_LOAD} segments (to turn a
 * mapping's file offset into the load bias), its interpreter and its {@code DT_NEEDED} libraries (to
 * build tables for a command's files before it execs). Reads only the headers; anything malformed
 * gives no segments rather than an exception.
 */
final class ElfHeaders {
    private static final int PT_LOAD = 1, PT_DYNAMIC = 2, PT_INTERP = 3;
    private static final long DT_NEEDED = 1, DT_STRTAB = 5;
    private static final List<String> LIBRARY_DIRS = List.of("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
            "/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib");

    /** {offset, vaddr, filesz} of each PT_LOAD. */
    final long[][] loads;
    final String interpreter;
    final List<String> needed;
    final long entry;

    private ElfHeaders(long[][] loads, String interpreter, List<String> needed) {
        this(loads, interpreter, needed, -1);
    }

    private ElfHeaders(long[][] loads, String interpreter, List<String> needed, long entry) {
        this.entry = entry;
        this.loads = loads;
        this.interpreter = interpreter;
        this.needed = needed;
    }

    static ElfHeaders read(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer h = read(ch, 0, 64);
            if (h.getInt(0) != 0x464c457f || h.get(4) != 2 || h.get(5) != 1) {
                return new ElfHeaders(new long[0][], null, List.of()); // not a little-endian 64-bit ELF file
            }
            long phoff = h.getLong(32);
            int phentsize = Short.toUnsignedInt(h.getShort(54));
            int phnum = Short.toUnsignedInt(h.getShort(56));
            if (phentsize < 56 || phnum > 4096) {
                return new ElfHeaders(new long[0][], null, List.of());
            }
            ByteBuffer ph = read(ch, phoff, phentsize * phnum);
            List<long[]> loads = new ArrayList<>();
            String interp = null;
            long dynOff = -1, dynSize = 0;
            for (int i = 0; i < phnum; i++) {
                int p = i * phentsize;
                int type = ph.getInt(p);
                long off = ph.getLong(p + 8), vaddr = ph.getLong(p + 16), filesz = ph.getLong(p + 32);
                if (type == PT_LOAD) {
                    loads.add(new long[] {off, vaddr, filesz});
                } else if (type == PT_INTERP && filesz > 1 && filesz < 4096) {
                    ByteBuffer b = read(ch, off, (int) filesz - 1);
                    interp = StandardCharsets.UTF_8.decode(b).toString();
                } else if (type == PT_DYNAMIC && filesz < 1 << 20) {
                    dynOff = off;
                    dynSize = filesz;
                }
            }
            long[][] l = loads.toArray(new long[0][]);
            List<String> needed = new ArrayList<>();
            if (dynOff >= 0) {
                ByteBuffer d = read(ch, dynOff, (int) dynSize);
                long strtab = -1;
                List<Long> names = new ArrayList<>();
                for (int p = 0; p + 16 <= dynSize; p += 16) {
                    long tag = d.getLong(p), val = d.getLong(p + 8);
                    if (tag == 0) {
                        break;
                    } else if (tag == DT_NEEDED) {
                        names.add(val);
                    } else if (tag == DT_STRTAB) {
                        strtab = val;
                    }
                }
                long strOff = fileOffset(l, strtab);
                for (long n : names) {
                    if (strOff >= 0) {
                        ByteBuffer s = read(ch, strOff + n, 256);
                        int len = 0;
                        while (len < s.limit() && s.get(len) != 0) {
                            len++;
                        }
                        needed.add(new String(s.array(), 0, len, StandardCharsets.UTF_8));
                    }
                }
            }
            return new ElfHeaders(l, interp, needed, h.getLong(24));
        }
    }

    private static ByteBuffer read(FileChannel ch, long off, int n) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
        while (b.hasRemaining() && ch.read(b, off + b.position()) > 0) {
            // read on
        }
        b.flip();
        if (b.limit() < n && n <= 64) {
            return ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN); // too short: zeros, "not ELF"
        }
        return b;
    }

    /** The file offset of the entry point (e_entry), or -1. */
    long entryFileOffset() {
        return entry <= 0 ? -1 : fileOffset(loads, entry);
    }

    private static long fileOffset(long[][] loads, long vaddr) {
        for (long[] l : loads) {
            if (vaddr >= l[1] && vaddr < l[1] + l[2]) {
                return vaddr - l[1] + l[0];
            }
        }
        return -1;
    }

    /**
     * The load bias of a mapping of this file at {@code start} from file offset {@code offset}: the
     * address minus the link-time virtual address of the same byte (-1 when no PT_LOAD holds it).
     */
    long bias(long start, long offset) {
        for (long[] l : loads) {
            if (offset >= l[0] && offset < l[0] + Math.max(l[2], 1)) {
                return start - (l[1] + (offset - l[0]));
            }
        }
        return Long.MIN_VALUE;
    }

    /** The executable, its interpreter and its libraries, transitively, as far as they are found on disk. */
    static Set<Path> withLibraries(Path executable) {
        Set<Path> out = new LinkedHashSet<>();
        List<Path> todo = new ArrayList<>(List.of(executable));
        while (!todo.isEmpty() && out.size() < 256) {
            Path f = todo.removeLast();
            if (!out.add(f)) {
                continue;
            }
            try {
                ElfHeaders h = read(f);
                if (h.interpreter != null) {
                    todo.add(Path.of(h.interpreter).toRealPath());
                }
                for (String n : h.needed) {
                    for (String dir : LIBRARY_DIRS) {
                        Path p = Path.of(dir, n);
                        if (Files.isRegularFile(p)) {
                            todo.add(p.toRealPath());
                            break;
                        }
                    }
                }
            } catch (IOException | RuntimeException e) {
                // A file we cannot read gets its table when it is mapped, or never.
            }
        }
        return out;
    }
}
