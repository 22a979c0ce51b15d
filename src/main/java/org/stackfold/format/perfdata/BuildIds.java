package org.stackfold.format.perfdata;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;

/**
 * GNU build ids (NT_GNU_BUILD_ID notes) of an ELF file's PT_NOTE segments and of the running kernel
 * ({@code /sys/kernel/notes}), so that a perf.data file's recorded build ids are checked before an
 * address is named with a file of this machine, as perf does: a file that was rebuilt, or another
 * machine's kernel, names nothing.
 */
final class BuildIds {
    private static final int PT_NOTE = 4;
    private static final int NT_GNU_BUILD_ID = 3;

    private BuildIds() {
    }

    /** The running kernel's build id, or null where /sys/kernel/notes cannot be read or holds none. */
    static String runningKernel() {
        try {
            byte[] notes = Files.readAllBytes(Path.of("/sys/kernel/notes"));
            return inNotes(ByteBuffer.wrap(notes).order(ByteOrder.nativeOrder()), 0, notes.length);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The build id of an ELF file, or null where it has none (or is no readable ELF file). */
    static String of(Path file) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate((int) Math.min(ch.size(), 1 << 16));
            while (b.hasRemaining() && ch.read(b) > 0) {
                // fill: the program headers and, in practice, the notes lie in the first 64 KiB
            }
            b.flip();
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
            for (int i = 0; i < phnum; i++) {
                int p = (int) (phoff + (long) i * phentsize);
                if (b.getInt(p) != PT_NOTE) {
                    continue;
                }
                long off = is64 ? b.getLong(p + 8) : b.getInt(p + 4) & 0xffffffffL;
                long size = is64 ? b.getLong(p + 32) : b.getInt(p + 16) & 0xffffffffL;
                if (off < 0 || size < 0 || off + size > b.limit()) {
                    continue;
                }
                String id = inNotes(b, (int) off, (int) (off + size));
                if (id != null) {
                    return id;
                }
            }
            return null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The NT_GNU_BUILD_ID note among the notes in [from, to), as hex. */
    private static String inNotes(ByteBuffer b, int from, int to) {
        int p = from;
        while (to - p >= 12) {
            int nameSize = b.getInt(p);
            int descSize = b.getInt(p + 4);
            int type = b.getInt(p + 8);
            if (nameSize < 0 || descSize < 0 || nameSize > to - p || descSize > to - p) {
                return null;
            }
            int name = p + 12;
            int desc = name + ((nameSize + 3) & ~3);
            if (desc + (long) descSize > to) {
                return null;
            }
            if (type == NT_GNU_BUILD_ID && nameSize == 4 && b.get(name) == 'G' && b.get(name + 1) == 'N'
                    && b.get(name + 2) == 'U') {
                byte[] id = new byte[descSize];
                b.get(desc, id);
                return HexFormat.of().formatHex(id);
            }
            p = desc + ((descSize + 3) & ~3);
        }
        return null;
    }

    /**
     * Whether a recorded id (perf pads ids to 20 bytes with zeros) is the actual one: equal, or the
     * actual one with perf's zero padding.
     */
    static boolean same(String recorded, String actual) {
        if (recorded == null || actual == null) {
            return false;
        }
        if (recorded.equals(actual)) {
            return true;
        }
        return recorded.startsWith(actual) && recorded.substring(actual.length()).matches("0*");
    }
}
