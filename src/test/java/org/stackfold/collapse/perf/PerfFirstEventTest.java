package org.stackfold.collapse.perf;

import static org.assertj.core.api.Assertions.assertThat;

import org.stackfold.io.Input;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The default event filter is the event of the first event line that names one (both peers keep
 * only that event's samples), found by a scan of the start of the file before the ranges run.
 */
class PerfFirstEventTest {
    private static String first(String text, boolean perl) {
        try (Input in = Input.ofBytes("t", text.getBytes(StandardCharsets.UTF_8))) {
            return PerfCollapser.firstEvent(in.range(0, in.view().size()), perl);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void theFirstNamedEventAfterCommentsAndBlankLines() {
        String text = "# perf script header\n#\n\n   \njava 12/13 [001] 1.000001: 250 cycles:\n\t 10 f (m)\n\n"
                + "java 12/13 [001] 1.000002: 1 cpu-clock:\n\t 10 f (m)\n";
        assertThat(first(text, false)).isEqualTo("cycles");
    }

    @Test
    void sideBandLinesAndEventsWithoutANameAreSkipped() {
        String text = "perf 1 [000] 0.5: PERF_RECORD_MMAP 1/1: [0x400000(0x1000) @ 0]: x /bin/true\n"
                + "java 12 1.000001:\n\t 10 f (m)\n\njava 12 1.000002: 7 instructions:\n\t 10 f (m)\n";
        assertThat(first(text, false)).isEqualTo("instructions");
    }

    @Test
    void anEventLineWithoutNewlineAtTheEnd() {
        assertThat(first("\n\njava 12/13 [001] 1.000001: 250 cycles:", false)).isEqualTo("cycles");
        assertThat(first("# only a comment\n\n", false)).isNull();
        assertThat(first("", false)).isNull();
    }

    @Test
    void anEventLineAcrossTheEndOfTheFirstBlock() {
        StringBuilder sb = new StringBuilder();
        while (sb.length() < (256 << 10) - 20) {
            sb.append("# a comment line that fills the first block of the scan\n");
        }
        int eventStart = sb.length();
        sb.append("java 12/13 [001] 1.000001: 250 branch-misses:\n\t 10 f (m)\n");
        assertThat(eventStart).isLessThan(256 << 10);
        assertThat(sb.indexOf("\n", eventStart)).isGreaterThan(256 << 10); // the block ends inside the line
        assertThat(first(sb.toString(), false)).isEqualTo("branch-misses");
    }
}
