package org.stackfold.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The Python frame value's encoding (docs/python.md "In the kernel") and the program's shape. */
class PythonProgramTest {
    @Test
    void aFrameValueKeepsItsCodeObjectAndInstruction() {
        long code = 0x7f3a_1234_5678L & ~7L;
        long v = PythonProgram.value(code, 41, true);
        assertThat(PythonProgram.isPython(v)).isTrue();
        assertThat(PythonProgram.kind(v)).isEqualTo(PythonProgram.KIND_LINE);
        assertThat(PythonProgram.code(v)).isEqualTo(code);
        assertThat(PythonProgram.instruction(v)).isEqualTo(41);
        // Before the first instruction (3.11/3.12: -1), and an index that does not fit.
        assertThat(PythonProgram.instruction(PythonProgram.value(code, -1, true))).isEqualTo(-1);
        assertThat(PythonProgram.instruction(PythonProgram.value(code, 100_000, true))).isEqualTo(-2);
        // The highest user address still fits.
        long top = (1L << 47) - 8;
        assertThat(PythonProgram.code(PythonProgram.value(top, 0, true))).isEqualTo(top);
    }

    @Test
    void functionLevelValuesHaveNoInstruction() {
        long v = PythonProgram.value(0x5555_0000_1000L, 12, false);
        assertThat(PythonProgram.kind(v)).isEqualTo(PythonProgram.KIND_FUNCTION);
        assertThat(PythonProgram.instruction(v)).isEqualTo(-2);
        assertThat(PythonProgram.value(0x5555_0000_1000L, 99, false)).isEqualTo(v);
    }

    @Test
    void noUserAddressLooksLikeAPythonFrame() {
        for (long a : List.of(0L, 0x400000L, (1L << 47) - 1, 0x7fff_ffff_f000L)) {
            assertThat(PythonProgram.isPython(a)).isFalse();
        }
    }

    @Test
    void theWalkerWithoutPythonMapsHasNoHook() {
        WalkerProgram.Spec without = new WalkerProgram.Spec(3, 4, 5, 6, 7, 8, -1, 9, 10, 11, 12, 13, 14, -1, -1, -1, false, false,
                true);
        WalkerProgram.Spec with = new WalkerProgram.Spec(3, 4, 5, 6, 7, 8, -1, 9, 10, 11, 12, 13, 14, -1, -1, -1, false, false,
                true, 15, 16, true);
        assertThat(WalkerProgram.entry(with).length).isGreaterThan(WalkerProgram.entry(without).length);
        assertThat(PythonProgram.assemble(with).length).isLessThan(8192);
    }
}
