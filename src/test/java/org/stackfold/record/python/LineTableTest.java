package org.stackfold.record.python;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The location-table decoder against CPython itself: each interpreter on the machine compiles a
 * sample module (loops, multi-line expressions, exceptions, comprehensions, coroutines, line jumps
 * of 200 and 9000 lines) and prints each code object's {@code co_linetable} with the line
 * {@code co_lines()} gives every code unit; {@link LineTable#line} must agree on every one.
 */
class LineTableTest {
    static Stream<Interpreters.Interpreter> interpreters() {
        return Interpreters.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("interpreters")
    void everyInstructionHasCPythonsLine(Interpreters.Interpreter py) throws Exception {
        String missing = py.missing();
        assumeTrue(missing == null, missing);
        List<String> cmd = new ArrayList<>();
        if (py.root() != null) {
            cmd.addAll(List.of("chroot", py.root().toString()));
        }
        cmd.addAll(List.of(py.python().toString(), "-"));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try (InputStream script = LineTableTest.class.getResourceAsStream("linetable_oracle.py")) {
            p.getOutputStream().write(script.readAllBytes());
        }
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        int codes = 0;
        long units = 0;
        for (String line : out.split("\n")) {
            if (line.startsWith("ready")) {
                continue;
            }
            String[] f = line.split(" ");
            byte[] table = f[2].equals("-") ? new byte[0] : HexFormat.of().parseHex(f[2]);
            int first = Integer.parseInt(f[1]);
            String[] expected = f[3].split(",");
            for (int u = 0; u < expected.length; u++) {
                assertThat(LineTable.line(table, first, u)).as("%s unit %d", f[0], u)
                        .isEqualTo(Integer.parseInt(expected[u]));
            }
            codes++;
            units += expected.length;
        }
        assertThat(codes).as(out).isGreaterThanOrEqualTo(10);
        assertThat(units).isGreaterThan(300);
    }

    @Test
    void beforeTheFirstInstructionIsTheFirstLine() {
        assertThat(LineTable.line(new byte[] {(byte) 0x80, 0}, 12, -1)).isEqualTo(12);
    }

    @Test
    void pastTheTableIsNoLine() {
        // One short-form entry of one code unit on the first line.
        byte[] t = {(byte) 0x80, 0};
        assertThat(LineTable.line(t, 7, 0)).isEqualTo(7);
        assertThat(LineTable.line(t, 7, 1)).isEqualTo(LineTable.NONE);
        assertThat(LineTable.line(new byte[0], 7, 0)).isEqualTo(LineTable.NONE);
    }

    @Test
    void aTruncatedTableEndsWithoutReadingPastIt() {
        // A long-form entry (code 14) cut after its first byte, and a varint with its
        // continuation bit set at the end.
        assertThat(LineTable.line(new byte[] {(byte) 0xf0}, 3, 5)).isEqualTo(LineTable.NONE);
        assertThat(LineTable.line(new byte[] {(byte) 0xe8, 0x42}, 3, 5)).isEqualTo(LineTable.NONE);
    }
}
