package org.stackfold.collapse;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * FlameGraph's other collapsers: each golden input (recorded on the project machine, or taken from
 * speedscope's and pprof's test data, see {@code src/test/resources/collapse/README.md}) collapses to
 * what the FlameGraph script printed for it ({@code *.fg.folded}, sorted, zero lines dropped), and
 * {@code collapse guess} picks the format from the content alone.
 */
class FlameGraphCollapsersGoldenTest {
    static Stream<Arguments> cases() {
        return Stream.of(
                c("jstack", "jstack/jstack-jdk25.txt", "jstack/jstack-jdk25.fg.folded", Map.of()),
                c("jstack", "jstack/jstack-jdk25.txt", "jstack/jstack-jdk25.tid-shorten.fg.folded",
                        Map.of("includetid", true, "shortenpkgs", true)),
                c("jstack", "jstack/jstack-jdk25.txt", "jstack/jstack-jdk25.no-tname.fg.folded",
                        Map.of("includetname", false)),
                c("gdb", "gdb/gdb-pmp.txt", "gdb/gdb-pmp.fg.folded", Map.of()),
                c("elfutils", "elfutils/eu-stack.txt", "elfutils/eu-stack.fg.folded", Map.of()),
                c("elfutils", "elfutils/eu-stack.txt", "elfutils/eu-stack.pid-tid.fg.folded",
                        Map.of("pid", true, "tid", true)),
                c("faulthandler", "faulthandler/faulthandler.txt", "faulthandler/faulthandler.fg.folded", Map.of()),
                c("stap", "stap/stap-kernel.txt", "stap/stap-kernel.fg.folded", Map.of()),
                c("go", "go/pprof__java.cpu.string", "go/pprof__java.cpu.fg.folded", Map.of()),
                c("chrome-tracing", "chrome-tracing/speedscope__Chrome-116-Trace.json.gz",
                        "chrome-tracing/speedscope__Chrome-116-Trace.fg.folded", Map.of()),
                c("chrome-tracing", "chrome-tracing/speedscope__multiprocess.json",
                        "chrome-tracing/speedscope__multiprocess.fg.folded", Map.of()),
                c("chrome-tracing", "chrome-tracing/speedscope__matching-x.json",
                        "chrome-tracing/speedscope__matching-x.fg.folded", Map.of()),
                c("instruments", "instruments/instruments-deep-copy.txt",
                        "instruments/instruments-deep-copy.fg.folded", Map.of()),
                c("ibmjava", "ibmjava/javacore.txt", "ibmjava/javacore.fg.folded", Map.of()),
                c("ibmjava", "ibmjava/javacore.txt", "ibmjava/javacore.tid.fg.folded", Map.of("includetid", true)),
                c("java-exceptions", "java-exceptions/exceptions.log", "java-exceptions/exceptions.fg.folded", Map.of()),
                c("java-exceptions", "java-exceptions/exceptions.log", "java-exceptions/exceptions.no-pkgs.fg.folded",
                        Map.of("nopkgs", true)),
                c("aix", "aix/procstack.txt", "aix/procstack.fg.folded", Map.of()),
                c("pmc", "pmc/speedscope__pmcstat-simple.txt", "pmc/speedscope__pmcstat-simple.fg.folded", Map.of()),
                c("pmc", "pmc/speedscope__pmcstat-simple-with-invalids.txt",
                        "pmc/speedscope__pmcstat-simple-with-invalids.fg.folded", Map.of()),
                c("ljp", "ljp/traces.txt", "ljp/traces.fg.folded", Map.of()),
                c("wcp", "wcp/report.txt", "wcp/report.fg.folded", Map.of()),
                c("vtune-mc", "vtune-mc/allocations.csv", "vtune-mc/allocations.fg.folded", Map.of()),
                c("vtune-mc", "vtune-mc/allocations.csv", "vtune-mc/allocations.size.fg.folded", Map.of("size", true)),
                c("xdebug", "xdebug/trace.xt", "xdebug/trace.fg.folded", Map.of()),
                c("xdebug", "xdebug/trace.xt", "xdebug/trace.count.fg.folded", Map.of("count", true)),
                c("perf-sched", "perf-sched/sched.txt", "perf-sched/sched.default.fg.folded", Map.of()),
                c("perf-sched", "perf-sched/sched.txt", "perf-sched/sched.record_tid.fg.folded",
                        Map.of("record_tid", true)),
                c("perf-sched", "perf-sched/sched.txt", "perf-sched/sched.record_wake_stack.fg.folded",
                        Map.of("record_wake_stack", true)),
                c("perf-sched", "perf-sched/sched-pid.txt", "perf-sched/sched-pid.recurse.fg.folded",
                        Map.of("recurse", true)));
    }

    private static Arguments c(String format, String input, String expected, Map<String, Object> options) {
        String name = format + " " + input.substring(input.indexOf('/') + 1) + (options.isEmpty() ? "" : " " + options);
        return Arguments.of(name, format, input, expected, options);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void matchesTheFlameGraphScript(String name, String format, String input, String expected,
                                    Map<String, Object> options) throws Exception {
        List<String> warnings = new ArrayList<>();
        List<String> got = CollapseTesting.collapse(format, CollapseTesting.resource(input),
                CollapseTesting.options(options), warnings);
        assertThat(got).isNotEmpty().containsExactlyElementsOf(CollapseTesting.expected(CollapseTesting.resource(expected)));
        assertThat(warnings).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void isGuessedFromItsContent(String name, String format, String input, String expected,
                                 Map<String, Object> options) throws Exception {
        byte[] head = head(CollapseTesting.resource(input));
        assertThat(GuessCollapser.choose(head, head.length)).extracting(Collapser::name).isEqualTo(format);
    }

    /** The decompressed first bytes, as {@code collapse guess} reads them. */
    private static byte[] head(Path file) throws Exception {
        try (InputStream raw = Files.newInputStream(file);
             InputStream in = file.toString().endsWith(".gz") ? new GZIPInputStream(raw) : raw) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(in.readNBytes(GuessCollapser.HEAD));
            byte[] b = out.toByteArray();
            if (b.length < GuessCollapser.HEAD && b.length > 0 && b[b.length - 1] != '\n') {
                b = java.util.Arrays.copyOf(b, b.length + 1);
                b[b.length - 1] = '\n';
            }
            return b;
        }
    }
}
