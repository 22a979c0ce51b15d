package org.stackfold.format.perfdata;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
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
        try {
            ElfProgramHeaders h = ElfProgramHeaders.of(ElfProgramHeaders.firstBytes(file));
            if (h == null) {
                return null;
            }
            ByteBuffer b = h.bytes();
            for (int i = 0; i < h.count(); i++) {
                if (h.type(i) != PT_NOTE) {
                    continue;
                }
                long off = h.fileOffset(i);
                long size = h.fileSize(i);
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
