package org.stackfold.record.python;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/**
 * {@code _Py_DebugOffsets} decoding against the bytes of real builds (the first bytes of
 * {@code _PyRuntime} read from running pyenv 3.13.0, Debian sid's 3.14.10 and 3.15.2 processes:
 * CPython's data, PSF licence), the built-in 3.11/3.12 table, and the BPF map value's layout.
 */
class PythonOffsetsTest {
    private static byte[] raw(String version) throws IOException {
        try (InputStream in = PythonOffsetsTest.class.getResourceAsStream("debug-offsets-" + version + ".bin")) {
            return in.readAllBytes();
        }
    }

    @Test
    void decodes313() throws IOException {
        PythonOffsets o = PythonOffsets.fromDebugOffsets(raw("3.13.0"));
        assertThat(o.versionString()).isEqualTo("3.13.0");
        assertThat(o.source()).isEqualTo(PythonOffsets.Source.DEBUG_OFFSETS);
        assertThat(new int[] {o.interpretersHead(), o.interpNext(), o.interpThreadsHead(), o.tstateNext(),
                o.tstateThreadId(), o.tstateNativeThreadId(), o.tstateCframe(), o.currentFrame()})
                .containsExactly(632, 7264, 7344, 8, 152, 160, -1, 72);
        assertThat(new int[] {o.frameSize(), o.framePrevious(), o.frameExecutable(), o.frameInstrPtr(),
                o.frameOwner(), o.frameIsEntry(), o.ownerNotPython()}).containsExactly(72, 8, 0, 56, 70, -1, 3);
        assertThat(new int[] {o.codeFilename(), o.codeName(), o.codeQualname(), o.codeLinetable(),
                o.codeFirstlineno(), o.codeArgcount(), o.codeAdaptive()})
                .containsExactly(112, 120, 128, 136, 68, 52, 200);
        assertThat(new int[] {o.asciiObjectSize(), o.compactObjectSize(), o.bytesObSval()}).containsExactly(40, 56, 32);
        assertThat(o.executableTagMask()).isZero();
    }

    @Test
    void decodes314() throws IOException {
        PythonOffsets o = PythonOffsets.fromDebugOffsets(raw("3.14.10"));
        assertThat(o.versionString()).isEqualTo("3.14.10");
        assertThat(new int[] {o.interpretersHead(), o.interpNext(), o.interpThreadsHead(), o.tstateNext(),
                o.tstateThreadId(), o.tstateNativeThreadId(), o.currentFrame()})
                .containsExactly(808, 7272, 7344, 8, 152, 160, 72);
        assertThat(new int[] {o.frameSize(), o.framePrevious(), o.frameExecutable(), o.frameInstrPtr(),
                o.frameOwner()}).containsExactly(80, 8, 0, 56, 74);
        assertThat(new int[] {o.codeFilename(), o.codeQualname(), o.codeLinetable(), o.codeFirstlineno(),
                o.codeAdaptive()}).containsExactly(112, 128, 136, 68, 208);
        assertThat(o.executableTagMask()).isEqualTo(7);
    }

    @Test
    void decodes315() throws IOException {
        PythonOffsets o = PythonOffsets.fromDebugOffsets(raw("3.15.2"));
        assertThat(o.versionString()).isEqualTo("3.15.2");
        assertThat(new int[] {o.interpretersHead(), o.interpNext(), o.interpThreadsHead(), o.tstateNext(),
                o.tstateThreadId(), o.tstateNativeThreadId(), o.currentFrame()})
                .containsExactly(936, 7264, 7336, 8, 176, 184, 72);
        assertThat(new int[] {o.frameSize(), o.framePrevious(), o.frameExecutable(), o.frameInstrPtr(),
                o.frameOwner()}).containsExactly(80, 8, 0, 56, 74);
        assertThat(o.codeAdaptive()).isEqualTo(208);
    }

    @Test
    void aLayoutOffByOneFieldIsRefused() throws IOException {
        for (String v : new String[] {"3.13.0", "3.14.10", "3.15.2"}) {
            byte[] r = raw(v);
            // Drop interpreter_state's last field: every later group moves up by one.
            int cut = v.startsWith("3.13") ? 24 + 15 * 8 : 24 + 18 * 8;
            byte[] shifted = new byte[r.length - 8];
            System.arraycopy(r, 0, shifted, 0, cut);
            System.arraycopy(r, cut + 8, shifted, cut, r.length - cut - 8);
            assertThatThrownBy(() -> PythonOffsets.fromDebugOffsets(shifted))
                    .hasMessage("CPython " + v + ": its _Py_DebugOffsets do not match any known layout of 3."
                            + v.split("\\.")[1]);
        }
    }

    @Test
    void unknownMinorsAndFreeThreadedBuildsAreRefusedInOneLine() throws IOException {
        byte[] r = raw("3.15.2");
        ByteBuffer.wrap(r).order(ByteOrder.LITTLE_ENDIAN).putLong(8, 0x031000a1L);
        assertThatThrownBy(() -> PythonOffsets.fromDebugOffsets(r))
                .hasMessage("CPython 3.16.0a1: the layout of its _Py_DebugOffsets is not known (3.13, 3.14 and 3.15 are)");
        byte[] t = raw("3.13.0");
        ByteBuffer.wrap(t).order(ByteOrder.LITTLE_ENDIAN).putLong(16, 1);
        assertThatThrownBy(() -> PythonOffsets.fromDebugOffsets(t))
                .hasMessage("CPython 3.13.0t: free-threaded builds are not supported yet");
        assertThatThrownBy(() -> PythonOffsets.fromDebugOffsets(java.util.Arrays.copyOf(raw("3.13.0"), 200)))
                .hasMessageContaining("do not match");
    }

    @Test
    void builtInTableCovers311And312Only() {
        PythonOffsets o11 = PythonOffsets.builtIn(0x030b02f0);
        assertThat(o11.versionString()).isEqualTo("3.11.2");
        assertThat(new int[] {o11.tstateCframe(), o11.currentFrame(), o11.frameIsEntry(), o11.framePrevious(),
                o11.frameExecutable(), o11.frameInstrPtr(), o11.codeAdaptive()})
                .containsExactly(56, 8, 68, 48, 32, 56, 184);
        PythonOffsets o12 = PythonOffsets.builtIn(0x030c01f0);
        assertThat(new int[] {o12.interpThreadsHead(), o12.tstateNativeThreadId(), o12.currentFrame(),
                o12.frameOwner(), o12.ownerNotPython()}).containsExactly(72, 144, 0, 70, 3);
        assertThat(PythonOffsets.builtIn(0x030a0df0)).isNull();
        assertThat(PythonOffsets.builtIn(0x030d00f0)).isNull();
        assertThat(PythonOffsets.versionString(0x030e00c2)).isEqualTo("3.14.0rc2");
        assertThat(PythonOffsets.versionString(0x030f00a3)).isEqualTo("3.15.0a3");
    }

    @Test
    void mapValueLayout() throws IOException {
        PythonOffsets o = PythonOffsets.fromDebugOffsets(raw("3.14.10"));
        byte[] v = o.mapValue(0x7f0000001000L, 0x401000, 0x402000, 0x400800, 0x400900);
        assertThat(v).hasSize(PythonOffsets.MAP_VALUE_SIZE);
        ByteBuffer b = ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(b.getInt(0)).isEqualTo(1);
        assertThat(b.getInt(4)).isEqualTo(0x030e0af0);
        assertThat(new long[] {b.getLong(8), b.getLong(16), b.getLong(24), b.getLong(32), b.getLong(40)})
                .containsExactly(0x7f0000001000L, 0x401000, 0x402000, 0x400800, 0x400900);
        short[] u16 = new short[14];
        for (int i = 0; i < u16.length; i++) {
            u16[i] = b.getShort(48 + 2 * i);
        }
        assertThat(u16).containsExactly((short) 808, (short) 7272, (short) 7344, (short) 8, (short) 160,
                (short) 0xffff, (short) 72, (short) 80, (short) 8, (short) 0, (short) 56, (short) 74, (short) 0xffff,
                (short) 208);
        assertThat(new byte[] {b.get(76), b.get(77), b.get(78), b.get(79)}).containsExactly(3, 7, 0, 0);
        byte[] v11 = PythonOffsets.builtIn(0x030b02f0).mapValue(1, 2, 3, 0, 0);
        ByteBuffer b11 = ByteBuffer.wrap(v11).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(b11.getShort(58)).isEqualTo((short) 56);
        assertThat(b11.getShort(72)).isEqualTo((short) 68);
        assertThat(new byte[] {b11.get(76), b11.get(77), b11.get(78)}).containsExactly((byte) 0xff, 0, 1);
    }
}
