package org.stackfold.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * {@link UnwindMaps#withEntryStop}: an ELF entry point no FDE covers (ld.so's {@code _start}) gets a
 * stop row, so the walks of a program's start-up end "root reached" there; covered entry points and
 * the other rows are left as they are. Pure: no privileges.
 */
class EntryStopRowTest {
    private static final int RSP_16 = 2; // cfa type rsp (0) | 16 / 8

    private static MemorySegment rows(long... pcAndCfa) {
        MemorySegment s = MemorySegment.ofArray(new byte[pcAndCfa.length / 2 * 8]);
        for (int i = 0; i < pcAndCfa.length / 2; i++) {
            s.set(ValueLayout.JAVA_INT_UNALIGNED, i * 8L, (int) pcAndCfa[2 * i]);
            s.set(ValueLayout.JAVA_SHORT_UNALIGNED, i * 8L + 4, (short) pcAndCfa[2 * i + 1]);
            s.set(ValueLayout.JAVA_SHORT_UNALIGNED, i * 8L + 6, (short) (i == 0 ? -2 : 0));
        }
        return s;
    }

    private static long[] decode(MemorySegment s) {
        long[] out = new long[(int) (s.byteSize() / 8) * 2];
        for (int i = 0; i < out.length / 2; i++) {
            out[2 * i] = Integer.toUnsignedLong(s.get(ValueLayout.JAVA_INT_UNALIGNED, i * 8L));
            out[2 * i + 1] = Short.toUnsignedInt(s.get(ValueLayout.JAVA_SHORT_UNALIGNED, i * 8L + 4));
        }
        return out;
    }

    private final MemorySegment table = rows(0x1000, RSP_16, 0x2000, UnwindMaps.CFA_NO_INFO, 0x3000, RSP_16);

    @Test
    void anEntryInANoInfoGapGetsAStopRow() {
        assertThat(decode(UnwindMaps.withEntryStop(table, 0x2500))).containsExactly(0x1000, RSP_16,
                0x2000, UnwindMaps.CFA_NO_INFO, 0x2500, UnwindMaps.CFA_STOP, 0x3000, RSP_16);
        // at the gap's own row: replaced, not doubled
        assertThat(decode(UnwindMaps.withEntryStop(table, 0x2000))).containsExactly(0x1000, RSP_16,
                0x2000, UnwindMaps.CFA_STOP, 0x3000, RSP_16);
    }

    @Test
    void anEntryBeforeTheFirstRowGetsAStopRow() {
        MemorySegment s = UnwindMaps.withEntryStop(table, 0x500);
        assertThat(decode(s)).containsExactly(0x500, UnwindMaps.CFA_STOP, 0x1000, RSP_16,
                0x2000, UnwindMaps.CFA_NO_INFO, 0x3000, RSP_16);
        assertThat(s.get(ValueLayout.JAVA_SHORT_UNALIGNED, 8 + 6)).as("the rows' rbp kept").isEqualTo((short) -2);
    }

    @Test
    void aCoveredEntryOrNoneChangesNothing() {
        assertThat(UnwindMaps.withEntryStop(table, 0x1800)).isSameAs(table);
        assertThat(UnwindMaps.withEntryStop(table, 0x3000)).isSameAs(table);
        assertThat(UnwindMaps.withEntryStop(table, 0)).isSameAs(table);
        assertThat(UnwindMaps.withEntryStop(null, 0x2500)).isNull();
    }

    @Test
    void theSourceSegmentIsNeverWritten() {
        MemorySegment before = MemorySegment.ofArray(table.toArray(ValueLayout.JAVA_BYTE));
        UnwindMaps.withEntryStop(table, 0x2500);
        UnwindMaps.withEntryStop(table, 0x2000);
        assertThat(table.mismatch(before)).isEqualTo(-1);
    }
}
