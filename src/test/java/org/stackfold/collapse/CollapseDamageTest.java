package org.stackfold.collapse;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;

/**
 * Damaged inputs (seeded: truncated, bytes flipped, lines duplicated or dropped, random bytes):
 * every collapser either returns a profile or throws an {@link InputException} — never another
 * exception — and with {@code lenient} it only throws for damage no leniency can skip.
 */
class CollapseDamageTest {
    static Stream<Arguments> inputs() {
        return Stream.of(
                Arguments.of("dtrace", "dtrace/inferno__collapse-dtrace__java.txt"),
                Arguments.of("sample", "sample/inferno__collapse-sample__sample.txt"),
                Arguments.of("vtune", "vtune/inferno__collapse-vtune__vtune.csv"),
                Arguments.of("vsprof", "vsprof/inferno__collapse-vsprof__CallTreeSummary.csv"),
                Arguments.of("ghcprof", "ghcprof/inferno__collapse-ghcprof__utf8.prof"),
                Arguments.of("xctrace", "xctrace/inferno__collapse-xctrace__basic.xml.gz"),
                Arguments.of("recursive", "recursive/inferno__collapse-recursive__basic.txt"),
                Arguments.of("bpftrace", "bpftrace/bpftrace-comm.txt"),
                Arguments.of("bcc", "bcc/profile-d-a.txt"),
                Arguments.of("jstack", "jstack/jstack-jdk25.txt"),
                Arguments.of("ibmjava", "ibmjava/javacore.txt"),
                Arguments.of("gdb", "gdb/gdb-pmp.txt"),
                Arguments.of("elfutils", "elfutils/eu-stack.txt"),
                Arguments.of("faulthandler", "faulthandler/faulthandler.txt"),
                Arguments.of("stap", "stap/stap-kernel.txt"),
                Arguments.of("go", "go/pprof__java.cpu.string"),
                Arguments.of("chrome-tracing", "chrome-tracing/speedscope__multiprocess.json"),
                Arguments.of("instruments", "instruments/instruments-deep-copy.txt"),
                Arguments.of("java-exceptions", "java-exceptions/exceptions.log"),
                Arguments.of("aix", "aix/procstack.txt"),
                Arguments.of("pmc", "pmc/speedscope__pmcstat-simple.txt"),
                Arguments.of("ljp", "ljp/traces.txt"),
                Arguments.of("wcp", "wcp/report.txt"),
                Arguments.of("vtune-mc", "vtune-mc/allocations.csv"),
                Arguments.of("xdebug", "xdebug/trace.xt"),
                Arguments.of("perf-sched", "perf-sched/sched.txt"),
                Arguments.of("guess", "sample/inferno__collapse-sample__sample.txt"));
    }

    private static byte[] damage(byte[] data, SplittableRandom r) {
        byte[] d = data.clone();
        switch (r.nextInt(5)) {
            case 0 -> d = java.util.Arrays.copyOf(d, r.nextInt(d.length + 1)); // truncated
            case 1 -> {
                for (int i = 0, n = 1 + r.nextInt(20); i < n; i++) {
                    d[r.nextInt(d.length)] = (byte) r.nextInt(256);
                }
            }
            case 2 -> {
                for (int i = 0, n = 1 + r.nextInt(20); i < n; i++) {
                    d[r.nextInt(d.length)] = (byte) "\n ;+,\"<>`@[]:0123456789-".charAt(r.nextInt(24));
                }
            }
            case 3 -> { // a random slice moved elsewhere (lines duplicated and dropped)
                int a = r.nextInt(d.length);
                int len = r.nextInt(Math.min(2000, d.length - a) + 1);
                int to = r.nextInt(d.length - len + 1);
                System.arraycopy(data, a, d, to, len);
            }
            default -> r.nextBytes(d = new byte[r.nextInt(4000)]);
        }
        return d;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("inputs")
    void damagedInputIsAProfileOrAnInputError(String format, String resource) throws Exception {
        byte[] data = Files.readAllBytes(CollapseTesting.resource(resource));
        if (resource.endsWith(".gz")) {
            try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(data))) {
                data = in.readAllBytes();
            }
            data = java.util.Arrays.copyOf(data, Math.min(data.length, 200_000));
        }
        SplittableRandom r = new SplittableRandom(format.hashCode());
        Collapser c = Collapsers.byName(format);
        for (int i = 0; i < 80; i++) {
            byte[] d = damage(data, r);
            for (boolean lenient : new boolean[] {false, true}) {
                FormatOptions o = FormatOptions.none().set("lenient", lenient);
                try (Input in = Input.ofBytes("damaged", d)) {
                    assertThat(c.collapse(in, o, w -> { })).isNotNull();
                } catch (InputException expected) {
                    assertThat(expected.getMessage()).startsWith("damaged");
                }
            }
        }
    }
}
