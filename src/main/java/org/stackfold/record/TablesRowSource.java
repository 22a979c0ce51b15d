package org.stackfold.record;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import org.stackfold.unwind.UnwindTable;
import org.stackfold.unwind.UnwindTables;

/** The walker's rows from {@link UnwindTables} (built from .eh_frame, cached by build id in memory and on disk). */
final class TablesRowSource implements UnwindRowSource {
    private final UnwindTables tables;

    TablesRowSource(UnwindTables tables) {
        this.tables = tables;
    }

    @Override
    public MemorySegment rows(Path file, String name) throws IOException {
        return segment(tables.forFile(file));
    }

    @Override
    public MemorySegment vdsoRows() {
        return segment(tables.vdso());
    }

    private static MemorySegment segment(UnwindTable t) {
        return t == null || t.rowCount() == 0 ? null : t.segment(Arena.ofAuto());
    }
}
