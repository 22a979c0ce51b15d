package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Folded output is a fixed point: for every collapse corpus case (every collapser, every option set
 * of the corpus) and every profile fixture, the folded text Stackfold writes is exactly what
 * {@code fold} writes from it, and what comes back from converting it to speedscope or pprof and
 * back to folded. (Under {@code --perl-compat} the bytes are perl's, white space at the ends of
 * names included, which {@code fold} trims: the property holds for the default output.)
 */
class FoldFixedPointTest {
    @TempDir
    Path dir;

    /** name, then the arguments that make the folded text (input resources as "res:PATH"). */
    static Stream<Arguments> cases() throws IOException {
        List<Arguments> out = new ArrayList<>();
        String d = "res:/collapse/dtrace/";
        String g = "res:/collapse/ghcprof/inferno__collapse-ghcprof__";
        add(out, "collapse", "dtrace", d + "fg__example-dtrace-stacks.txt.gz");
        add(out, "collapse", "dtrace", "--includeoffset", d + "fg__example-dtrace-stacks.txt.gz");
        add(out, "collapse", "dtrace", d + "inferno__collapse-dtrace__java.txt");
        add(out, "collapse", "dtrace", d + "inferno__collapse-dtrace__stack-ustack.txt");
        add(out, "collapse", "dtrace", d + "inferno__collapse-dtrace__rust-names.txt");
        add(out, "collapse", "sample", "res:/collapse/sample/inferno__collapse-sample__sample.txt");
        add(out, "collapse", "vtune", "res:/collapse/vtune/inferno__collapse-vtune__vtune.csv");
        add(out, "collapse", "vsprof", "res:/collapse/vsprof/inferno__collapse-vsprof__CallTreeSummary.csv");
        add(out, "collapse", "ghcprof", g + "percent.prof");
        add(out, "collapse", "ghcprof", g + "ticks.prof");
        add(out, "collapse", "ghcprof", "--ticks", g + "ticks.prof");
        add(out, "collapse", "ghcprof", "--bytes", g + "utf8.prof");
        add(out, "collapse", "xctrace", "res:/collapse/xctrace/inferno__collapse-xctrace__basic.xml.gz");
        add(out, "collapse", "recursive", "res:/collapse/recursive/inferno__collapse-recursive__basic.txt");
        for (String f : List.of("bpftrace-comm.txt", "bpftrace-kstack.txt", "bpftrace-ustack-kstack.txt",
                "bpftrace-perfmode.txt", "bpftrace-kstack-ustack-comm-pid-tid.txt")) {
            add(out, "collapse", "bpftrace", "res:/collapse/bpftrace/" + f);
        }
        add(out, "collapse", "bpftrace", "--includeoffset", "res:/collapse/bpftrace/bpftrace-comm.txt");
        for (String opt : List.of("", "--annotations", "--keep-delimiter", "--dedup-kernel-leaf")) {
            add(out, "collapse", "bcc", opt, "res:/collapse/bcc/profile-d-a.txt");
        }
        add(out, "collapse", "bcc", "res:/collapse/bcc/profile.txt");
        for (String f : List.of("inferno__collapse-perf__single-event.txt", "inferno__collapse-perf__java-inline.txt")) {
            add(out, "collapse", "guess", "res:/collapse/guess/" + f);
        }
        for (String line : resourceText("/collapse/perf/cases.tsv").split("\n")) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            String[] f = line.split("\t");
            if (f[4].equals("-") || resourceText("/collapse/perf/expected/" + f[4]).isBlank()) {
                continue; // no expected output (a warning case), or an input without samples: exit 1
            }
            List<String> args = new ArrayList<>(List.of("collapse", "perf"));
            if (!f[2].equals("-")) {
                args.addAll(Arrays.asList(f[2].split(" ")));
            }
            args.add("res:/collapse/perf/inputs/" + f[3]);
            out.add(Arguments.of("perf " + f[0], args));
        }
        // Profile fixtures: their folded form (Tachyon's is CPython's collapsed text, in count order:
        // made folded by fold first).
        for (String f : List.of("/formats/jfr-heavy.jfr", "/formats/pprof-go-simple.prof", "/formats/go/go119-cpu.pb.gz",
                "/formats/go/go119-heap.pb.gz", "/formats/speedscope/0.0.1_simple.speedscope.json",
                "/formats/speedscope/0.1.2_simple-sampled.speedscope.json",
                "/formats/speedscope/0.6.0_two-sampled.speedscope.json", "/tachyon/real/a_none.bin",
                "/tachyon/real/a_zstd.bin", "/tachyon/real/a_cpu_opcodes_native.bin")) {
            add(out, "convert", "res:" + f, "--to", "folded");
        }
        return out.stream();
    }

    private static void add(List<Arguments> out, String... args) {
        List<String> a = Arrays.stream(args).filter(s -> !s.isEmpty()).toList();
        out.add(Arguments.of(String.join(" ", a).replace("res:", ""), a));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void foldedOutputIsAFixedPoint(String name, List<String> args) throws Exception {
        Path a = dir.resolve("a.folded");
        List<String> make = new ArrayList<>(args.stream().map(FoldFixedPointTest::resolve).toList());
        make.addAll(List.of("-o", a.toString()));
        run(make.toArray(String[]::new));
        if (args.getFirst().equals("convert")) {
            Path raw = dir.resolve("raw.folded");
            Files.move(a, raw);
            run("fold", raw.toString(), "-o", a.toString());
        }
        byte[] folded = Files.readAllBytes(a);
        assertThat(folded.length).isPositive();

        Path b = dir.resolve("b.folded");
        run("fold", a.toString(), "-o", b.toString());
        assertThat(text(b)).as("fold").isEqualTo(new String(folded, StandardCharsets.UTF_8));

        for (String via : List.of("x.speedscope.json", "x.pb.gz")) {
            Path mid = dir.resolve(via);
            Path back = dir.resolve("back-" + via + ".folded");
            run("convert", a.toString(), "-o", mid.toString());
            run("convert", mid.toString(), "--to", "folded", "-o", back.toString());
            assertThat(text(back)).as("through " + via).isEqualTo(new String(folded, StandardCharsets.UTF_8));
        }
    }

    /** perf prints JIT stubs as {@code StubRoutines (initialstubs)}: one function, whether leaf or caller. */
    @org.junit.jupiter.api.Test
    void jitStubNamesLoseTheSpaceArgumentStrippingLeaves() throws Exception {
        String stub = "\t    7f10c6a1 StubRoutines (initialstubs)+0xc6 (/tmp/perf-1.map)\n";
        String script = "java 1 1.0: 1 cycles:\n" + stub + "\t    7f10c6a2 main+0x1 (/usr/bin/java)\n\n"
                + "java 1 1.1: 1 cycles:\n\t    7f10c6a3 leaf+0x1 (/usr/bin/java)\n" + stub
                + "\t    7f10c6a2 main+0x1 (/usr/bin/java)\n\n";
        Path in = Files.writeString(dir.resolve("perf.txt"), script);
        Path a = dir.resolve("a.folded");
        run("collapse", "perf", in.toString(), "-o", a.toString());
        assertThat(text(a)).isEqualTo("java;main;StubRoutines 1\njava;main;StubRoutines;leaf 1\n");
        Path b = dir.resolve("b.folded");
        run("fold", a.toString(), "-o", b.toString());
        assertThat(text(b)).isEqualTo(text(a));
        Path perl = dir.resolve("perl.folded");
        run("collapse", "perf", "--perl-compat", in.toString(), "-o", perl.toString());
        assertThat(text(perl)).isEqualTo("java;main;StubRoutines  1\njava;main;StubRoutines ;leaf 1\n");
    }

    private static String text(Path p) throws IOException {
        return Files.readString(p, StandardCharsets.UTF_8);
    }

    private static void run(String... args) {
        StringWriter err = new StringWriter();
        int code = Main.run(args, new ByteArrayOutputStream(), new PrintWriter(err, true));
        assertThat(code).as("%s: %s", String.join(" ", args), err).isZero();
    }

    private static String resolve(String arg) {
        if (!arg.startsWith("res:")) {
            return arg;
        }
        try {
            return Path.of(FoldFixedPointTest.class.getResource(arg.substring(4)).toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String resourceText(String name) throws IOException {
        try (var in = FoldFixedPointTest.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
