package org.stackfold.record;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * Where the walker's rows come from: per ELF file, its {@code .eh_frame} turned into 8-byte rows
 * {@code {u32 pc; u16 cfa; s16 rbp}} (little-endian, sorted by pc, pc the ELF virtual address),
 * {@code cfa = type << 14 | offset / 8} with types 0 rsp+off, 1 rbp+off, 2 PLT, 3 command (offset
 * 0 no info, 1 stop, 2 signal frame, 3 unsupported), {@code rbp} 0 unchanged, else saved at CFA + rbp*8.
 */
public interface UnwindRowSource {
    /** The rows of {@code file} (opened at that path; {@code name} is its name for messages), or null when it has none. */
    MemorySegment rows(Path file, String name) throws IOException;

    /** The rows of this boot's vDSO (its addresses relative to the vDSO image), or null. */
    MemorySegment vdsoRows() throws IOException;

    /** A source with no rows: every file is "no table". */
    UnwindRowSource NONE = new UnwindRowSource() {
        @Override
        public MemorySegment rows(Path file, String name) {
            return null;
        }

        @Override
        public MemorySegment vdsoRows() {
            return null;
        }
    };
}
