package org.stackfold.collapse;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every exact corpus case of the collapsers other than perf (manifest ids in the names), plus the
 * bpftrace and BCC recordings of this machine: output equals the expected file as sorted lines
 * (zero-count lines, which Stackfold never writes, left out).
 */
class CollapseGoldenTest {
    private static final String D = "dtrace/inferno__collapse-dtrace__results__";
    private static final String G = "ghcprof/inferno__collapse-ghcprof__";

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("dtrace-example", "dtrace", "dtrace/fg__example-dtrace-stacks.txt.gz",
                        D + "dtrace-example.txt", Map.of()),
                Arguments.of("dtrace-example-offsets", "dtrace", "dtrace/fg__example-dtrace-stacks.txt.gz",
                        D + "dtrace-example-offsets.txt", Map.of("includeoffset", true)),
                Arguments.of("dtrace-java", "dtrace", "dtrace/inferno__collapse-dtrace__java.txt",
                        D + "java.txt", Map.of()),
                Arguments.of("dtrace-stack-ustack", "dtrace", "dtrace/inferno__collapse-dtrace__stack-ustack.txt",
                        D + "stack-ustack.txt", Map.of()),
                Arguments.of("dtrace-rust-names", "dtrace", "dtrace/inferno__collapse-dtrace__rust-names.txt",
                        D + "rust-names.txt", Map.of()),
                Arguments.of("sample-default", "sample", "sample/inferno__collapse-sample__sample.txt",
                        "sample/inferno__collapse-sample__results__sample-default.txt", Map.of()),
                Arguments.of("vtune-default", "vtune", "vtune/inferno__collapse-vtune__vtune.csv",
                        "vtune/inferno__collapse-vtune__results__vtune-default.txt", Map.of()),
                Arguments.of("vsprof-default", "vsprof", "vsprof/inferno__collapse-vsprof__CallTreeSummary.csv",
                        "vsprof/inferno__collapse-vsprof__results__sample-default.txt", Map.of()),
                Arguments.of("ghcprof-percent", "ghcprof", G + "percent.prof", G + "results__percent.txt", Map.of()),
                Arguments.of("ghcprof-ticks-default", "ghcprof", G + "ticks.prof", G + "results__ticks.txt", Map.of()),
                Arguments.of("ghcprof-ticks-ticks", "ghcprof", G + "ticks.prof", G + "results__ticks_ticks.txt",
                        Map.of("source", "ticks")),
                Arguments.of("ghcprof-utf8-bytes", "ghcprof", G + "utf8.prof", G + "results__utf8_bytes.txt",
                        Map.of("source", "bytes")),
                Arguments.of("xctrace-basic", "xctrace", "xctrace/inferno__collapse-xctrace__basic.xml.gz",
                        "xctrace/inferno__collapse-xctrace__results__basic.folded", Map.of()),
                Arguments.of("recursive-basic", "recursive", "recursive/inferno__collapse-recursive__basic.txt",
                        "recursive/inferno__collapse-recursive__results__basic-collapsed.txt", Map.of()),
                // recorded here (see src/test/resources/collapse/README.md)
                Arguments.of("bpftrace-comm", "bpftrace", "bpftrace/bpftrace-comm.txt",
                        "bpftrace/bpftrace-comm.folded", Map.of()),
                Arguments.of("bpftrace-comm-offsets", "bpftrace", "bpftrace/bpftrace-comm.txt",
                        "bpftrace/bpftrace-comm.offsets.folded", Map.of("includeoffset", true)),
                Arguments.of("bpftrace-kstack", "bpftrace", "bpftrace/bpftrace-kstack.txt",
                        "bpftrace/bpftrace-kstack.folded", Map.of()),
                Arguments.of("bpftrace-ustack-kstack", "bpftrace", "bpftrace/bpftrace-ustack-kstack.txt",
                        "bpftrace/bpftrace-ustack-kstack.folded", Map.of()),
                Arguments.of("bpftrace-perf-mode", "bpftrace", "bpftrace/bpftrace-perfmode.txt",
                        "bpftrace/bpftrace-perfmode.folded", Map.of()),
                Arguments.of("bcc-profile", "bcc", "bcc/profile.txt", "bcc/profile.expected.folded", Map.of()),
                Arguments.of("bcc-profile-d-a", "bcc", "bcc/profile-d-a.txt", "bcc/profile-d-a.expected.folded",
                        Map.of()),
                Arguments.of("bcc-profile-d-a-keep", "bcc", "bcc/profile-d-a.txt", "bcc/profile-d-a.keep.folded",
                        Map.of("keepdelimiter", true)),
                Arguments.of("bcc-profile-d-a-dedup", "bcc", "bcc/profile-d-a.txt", "bcc/profile-d-a.dedup.folded",
                        Map.of("dedupkernelleaf", true)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void matchesExpected(String id, String format, String input, String expected, Map<String, Object> options)
            throws Exception {
        List<String> warnings = new ArrayList<>();
        List<String> got = CollapseTesting.collapse(format, CollapseTesting.resource(input),
                CollapseTesting.options(options), warnings);
        assertThat(got).containsExactlyElementsOf(CollapseTesting.expected(CollapseTesting.resource(expected)));
        assertThat(warnings).isEmpty();
    }

    @ParameterizedTest(name = "guess {0}")
    @MethodSource("cases")
    void guessFindsTheSameCollapser(String id, String format, String input, String expected,
                                    Map<String, Object> options) throws Exception {
        if (format.equals("recursive") || format.equals("bcc")) {
            return; // folded inputs are never guessed (as in inferno)
        }
        List<String> got = CollapseTesting.collapse("guess", CollapseTesting.resource(input),
                CollapseTesting.options(options), new ArrayList<>());
        assertThat(got).containsExactlyElementsOf(CollapseTesting.expected(CollapseTesting.resource(expected)));
    }
}
