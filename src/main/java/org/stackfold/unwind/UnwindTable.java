package org.stackfold.unwind;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The unwind rows of one ELF file, sorted by pc, no two neighbours with the same rule; the layout
 * of each row is {@link UnwindRow}'s. Immutable.
 */
public final class UnwindTable {
    static final ValueLayout.OfLong LE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private final String name;
    private final String buildId;
    private final long[] rows;
    private final int fdes;

    UnwindTable(String name, String buildId, long[] rows, int fdes) {
        this.name = name;
        this.buildId = buildId;
        this.rows = rows;
        this.fdes = fdes;
    }

    /** The file it was built from (a path, or {@code [vdso]}). */
    public String name() {
        return name;
    }

    /** The file's GNU build id (lowercase hex), or null where it has none. */
    public String buildId() {
        return buildId;
    }

    public int rowCount() {
        return rows.length;
    }

    /** How many FDEs the rows came from. */
    public int fdeCount() {
        return fdes;
    }

    /** Row {@code i} as a long ({@link UnwindRow}). */
    public long row(int i) {
        return rows[i];
    }

    /** A copy of the rows as longs. */
    public long[] rows() {
        return rows.clone();
    }

    /** Copies the rows, 8 bytes each in the little-endian layout of {@link UnwindRow}, to {@code dst} at {@code offset}. */
    public void copyTo(MemorySegment dst, long offset) {
        for (int i = 0; i < rows.length; i++) {
            dst.set(LE64, offset + 8L * i, rows[i]);
        }
    }

    /** The rows in the layout of {@link UnwindRow} (what goes into a BPF array map), in {@code arena}. */
    public MemorySegment segment(Arena arena) {
        MemorySegment s = arena.allocate(8L * Math.max(1, rows.length), 8);
        copyTo(s, 0);
        return s.asSlice(0, 8L * rows.length);
    }

    /** The index of the row that applies at ELF address {@code pc} (the last with row.pc &le; pc), or -1. */
    public int indexOf(long pc) {
        if (pc < 0 || pc > 0xffffffffL) {
            return -1;
        }
        int lo = 0;
        int hi = rows.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (UnwindRow.pc(rows[mid]) <= pc) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo - 1;
    }

    /** The row that applies at ELF address {@code pc}; a {@link UnwindRow#NO_INFO} row where none does. */
    public long find(long pc) {
        int i = indexOf(pc);
        return i < 0 ? UnwindRow.of(0, UnwindRow.CFA_NO_INFO, 0) : rows[i];
    }

    @Override
    public String toString() {
        return name + ": " + rows.length + " rows from " + fdes + " FDEs" + (buildId == null ? "" : ", build id " + buildId);
    }
}
