package org.stackfold.format.tachyon;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.stackfold.format.FormatOptions;

/** Folded output of every fixture equals CPython's {@code replay --collapsed} byte for byte. */
class TachyonFoldedTest {
    static final List<String> GOOD = Fixtures.GOOD;

    static String folded(String name, FormatOptions o) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TachyonFolded.write(Fixtures.open(name), TachyonOptions.from(o), out);
        return out.toString(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @FieldSource("GOOD")
    void defaultIsCPythonCollapsed(String name) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TachyonFolded.write(Fixtures.open(name), TachyonOptions.defaults(), out);
        assertThat(out.toByteArray()).isEqualTo(Fixtures.bytes(name + ".collapsed.txt"));
    }

    @Test
    void namingStyles() throws IOException {
        String fn = folded("edge/edge_legacy_stats32", FormatOptions.none().set(TachyonOptions.NAMING, "function"));
        assertThat(fn).isEqualTo("tid:1;main;hot_func 5\n");
        String file = folded("edge/edge_legacy_stats32", FormatOptions.none().set(TachyonOptions.NAMING, "file"));
        assertThat(file).isEqualTo("tid:1;/l/main.py:main;/l/hot.py:hot_func 5\n");
        String line = folded("edge/edge_legacy_stats32", FormatOptions.none().set(TachyonOptions.NAMING, "line"));
        assertThat(line).isEqualTo("tid:1;/l/main.py:main:1;/l/hot.py:hot_func:99 5\n");
        String merged = folded("edge/edge_legacy_stats32", FormatOptions.none().set(TachyonOptions.STACKS, "merged"));
        assertThat(merged).isEqualTo("main.py:main:1;hot.py:hot_func:99 5\n");
    }

    @Test
    void syntheticFramesAreBareAndInternalFramesDropped() throws IOException {
        String s = folded("edge/edge_strings", FormatOptions.none());
        assertThat(s).contains(";<native>;<GC> 3\n").doesNotContain("_sync_coordinator");
        String kept = folded("edge/edge_strings", FormatOptions.none().set(TachyonOptions.KEEP_INTERNAL, true));
        assertThat(kept).contains("_sync_coordinator.py:main:254");
    }

    @Test
    void mergedStacksSumThreads() throws IOException {
        String merged = folded("real/a_none", FormatOptions.none().set(TachyonOptions.STACKS, "merged"));
        assertThat(merged).doesNotContain("tid:");
        assertThat(total(merged)).isEqualTo(total(folded("real/a_none", FormatOptions.none())));
    }

    @Test
    void threadFilter() throws IOException {
        String one = folded("real/a_none", FormatOptions.none().set(TachyonOptions.THREADS, "22518"));
        assertThat(one.lines()).allMatch(l -> l.startsWith("tid:22518;"));
        String all = folded("real/a_none", FormatOptions.none());
        assertThat(total(one)).isEqualTo(all.lines().filter(l -> l.startsWith("tid:22518;"))
                .mapToLong(TachyonFoldedTest::count).sum());
    }

    @Test
    void statusFilter() throws IOException {
        // edge_legacy_stats32: five samples, status 1 (has GIL).
        assertThat(folded("edge/edge_legacy_stats32", FormatOptions.none().set(TachyonOptions.STATUS, "gil")))
                .endsWith(" 5\n");
        assertThat(folded("edge/edge_legacy_stats32", FormatOptions.none().set(TachyonOptions.STATUS, "on-cpu")))
                .isEmpty();
        assertThat(folded("edge/edge_legacy_stats32", FormatOptions.none().set(TachyonOptions.STATUS, "no-gil")))
                .isEmpty();
        // edge_threads: in round r, thread 1000+k has status (k + r) % 64 (see make_edge_cases.py).
        long expected = 0;
        for (int r = 0; r < 6; r++) {
            for (int k = 0; k < 300; k++) {
                if (((k + r) % 64 & 0x12) == 0x12) {
                    expected++;
                }
            }
        }
        long both = total(folded("edge/edge_threads", FormatOptions.none().set(TachyonOptions.STATUS, "on-cpu,exception")));
        assertThat(both).isEqualTo(expected);
    }

    @Test
    void timeRange() throws IOException {
        // edge_legacy_stats32: start 0, samples at 2000, 4000, ... 10000 us.
        assertThat(folded("edge/edge_legacy_stats32", FormatOptions.none().set(TachyonOptions.FROM, "0.004")
                .set(TachyonOptions.TO, "0.008"))).endsWith(" 2\n");
    }

    static long count(String line) {
        return Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
    }

    static long total(String folded) {
        return folded.lines().mapToLong(TachyonFoldedTest::count).sum();
    }
}
