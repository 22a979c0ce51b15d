package org.stackfold.symbolize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.stackfold.io.InputException;

class PerfMapTest {
    private static PerfMap fixture() throws IOException {
        try (InputStream in = PerfMapTest.class.getResourceAsStream("/symbolize/perf-map.txt")) {
            return PerfMap.parse(in.readAllBytes(), "perf-map.txt");
        }
    }

    @Test
    void findsTheNewestEntryCoveringAnAddress() throws IOException {
        PerfMap map = fixture();
        assertThat(map.count()).isEqualTo(4);
        // two entries start at 7f93e3ec7ca0; the later line (Hot.main, 0x100 bytes) wins where it reaches
        assertThat(map.name(map.lookup(0x7f93e3ec7ca0L + 0x10))).isEqualTo("void Hot.main(java.lang.String[])");
        assertThat(map.name(map.lookup(0x7f93e3ec7ca0L + 0x200))).isEqualTo("double Hot.leafMath(double)");
        assertThat(map.name(map.lookup(0x7f93e3ec80ffL))).isEqualTo("Interpreter");
        assertThat(map.lookup(0x7f93e3ec8100L)).isEqualTo(-1);
        assertThat(map.name(map.lookup(0x7f93e3ec9000L))).isEqualTo("zero sized stub");
        assertThat(map.lookup(0x1000)).isEqualTo(-1);
    }

    @Test
    void aBrokenLineNamesItsLineNumber() {
        byte[] text = "7f00 10 ok\n7fzz 10 bad\n".getBytes(StandardCharsets.US_ASCII);
        assertThatThrownBy(() -> PerfMap.parse(text, "p.map")).isInstanceOf(InputException.class)
                .hasMessage("p.map:2: expected 'START SIZE NAME' in hexadecimal");
    }
}
