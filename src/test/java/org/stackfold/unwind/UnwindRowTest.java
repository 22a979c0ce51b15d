package org.stackfold.unwind;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** The row contract with the BPF walker: 8 bytes little-endian {u32 pc; u16 cfa; s16 rbp}. */
class UnwindRowTest {
    @Test
    void packsAndUnpacksTheThreeFields() {
        long row = UnwindRow.of(0x1234_5678L, UnwindRow.cfa(UnwindRow.RBP, 16), -2);
        assertThat(UnwindRow.pc(row)).isEqualTo(0x1234_5678L);
        assertThat(UnwindRow.type(row)).isEqualTo(UnwindRow.RBP);
        assertThat(UnwindRow.value(row)).isEqualTo(2);
        assertThat(UnwindRow.cfaOffset(row)).isEqualTo(16);
        assertThat(UnwindRow.rbp(row)).isEqualTo(-2);
        assertThat(UnwindRow.rbpOffset(row)).isEqualTo(-16);
        assertThat(UnwindRow.toString(row)).isEqualTo("12345678 rbp+16 rbp=c-16");
        long largest = UnwindRow.of(0xffff_ffffL, UnwindRow.cfa(UnwindRow.RSP, 8L * UnwindRow.MAX_CFA_EIGHTHS), Short.MAX_VALUE);
        assertThat(UnwindRow.pc(largest)).isEqualTo(0xffff_ffffL);
        assertThat(UnwindRow.cfaOffset(largest)).isEqualTo(131_064);
        assertThat(UnwindRow.type(largest)).isEqualTo(UnwindRow.RSP);
        assertThat(UnwindRow.rbp(largest)).isEqualTo(Short.MAX_VALUE);
    }

    @Test
    void commands() {
        assertThat(UnwindRow.CFA_NO_INFO).isEqualTo(0xc000);
        assertThat(UnwindRow.CFA_STOP).isEqualTo(0xc001);
        assertThat(UnwindRow.CFA_SIGNAL).isEqualTo(0xc002);
        assertThat(UnwindRow.CFA_UNSUPPORTED).isEqualTo(0xc003);
        assertThat(UnwindRow.CFA_PLT).isEqualTo(0x8000);
        assertThat(UnwindRow.toString(UnwindRow.of(16, UnwindRow.CFA_STOP, 0))).isEqualTo("10 stop");
        assertThat(UnwindRow.toString(UnwindRow.of(16, UnwindRow.CFA_PLT, 0))).isEqualTo("10 plt");
    }

    @Test
    void theBytesInMemoryAreTheCStruct() {
        UnwindTable t = new UnwindTable("t", null, new long[] {
                UnwindRow.of(0x1000, UnwindRow.cfa(UnwindRow.RSP, 8), 0),
                UnwindRow.of(0x1004, UnwindRow.cfa(UnwindRow.RSP, 24), -3)}, 1);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = t.segment(arena);
            assertThat(s.byteSize()).isEqualTo(16);
            byte[] b = s.toArray(ValueLayout.JAVA_BYTE);
            assertThat(b).containsExactly(
                    0x00, 0x10, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
                    0x04, 0x10, 0x00, 0x00, 0x03, 0x00, (byte) 0xfd, (byte) 0xff);
        }
        assertThat(t.indexOf(0xfff)).isEqualTo(-1);
        assertThat(t.indexOf(0x1000)).isZero();
        assertThat(t.indexOf(0x1003)).isZero();
        assertThat(t.indexOf(0x1004)).isEqualTo(1);
        assertThat(t.indexOf(0xffff_ffffL)).isEqualTo(1);
        assertThat(UnwindRow.cfa(t.find(0x10))).isEqualTo(UnwindRow.CFA_NO_INFO);
    }
}
