package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz-style: real files of every format, mutated the way damage and hostile users mutate them
 * (flipped and inserted bytes, control characters, cut and repeated ranges, lying lengths), fed to
 * every command end to end. Whatever the input, four things hold: the exit code is 0, 1 or 2; at
 * most one line goes to stderr besides warnings; no file is left in the output directory or the
 * temporary directory; and an output written with exit 0 reads back to the same profile.
 * Seeded: a failure names its seed and mutation, and replays. STACKFOLD_FUZZ_ROUNDS runs more.
 */
class MutatedInputsTest {
    private static final int ROUNDS = Integer.parseInt(System.getenv().getOrDefault("STACKFOLD_FUZZ_ROUNDS", "12"));

    private static final List<String> SEEDS = List.of(
            "collapse/perf/inputs/fg__test__perf-funcab-cmd-01.txt",
            "collapse/dtrace/inferno__collapse-dtrace__java.txt",
            "collapse/bpftrace/bpftrace-comm.txt",
            "collapse/vtune/inferno__collapse-vtune__vtune.csv",
            "diff-folded/inferno__diff-folded__before.txt",
            "diff-folded/inferno__diff-folded__results__default.txt",
            "formats/speedscope/0.6.0_two-sampled.speedscope.json",
            "formats/speedscope/0.1.2_simple-sampled.speedscope.json",
            "formats/go/go119-cpu.pb.gz",
            "tachyon/real/a_none.bin",
            "tachyon/real/a_zstd.bin",
            "formats/jfr-heavy.jfr");

    @TempDir
    Path dir;

    static Stream<Arguments> cases() {
        List<Arguments> all = new ArrayList<>();
        for (String seed : SEEDS) {
            int rounds = seed.endsWith(".jfr") ? Math.max(2, ROUNDS / 4) : ROUNDS;
            for (int i = 0; i < rounds; i++) {
                all.add(Arguments.of(seed, (long) seed.hashCode() * 1_000_003L + i));
            }
        }
        return all.stream();
    }

    record Run(int code, String err) {
    }

    private static Run run(String... args) {
        StringWriter err = new StringWriter();
        int code = Assertions.assertTimeoutPreemptively(Duration.ofSeconds(60),
                () -> Main.run(args, new ByteArrayOutputStream(), new PrintWriter(err, true)),
                () -> "hung: " + String.join(" ", args));
        return new Run(code, err.toString());
    }

    @ParameterizedTest(name = "{0} seed {1}")
    @MethodSource("cases")
    void everyCommandKeepsTheFourInvariants(String seed, long randomSeed) throws IOException {
        byte[] original = Files.readAllBytes(Path.of("src/test/resources", seed));
        SplittableRandom random = new SplittableRandom(randomSeed);
        Mutation m = Mutation.apply(original, random);
        String name = Path.of(seed).getFileName().toString();
        Path in = dir.resolve("in").resolve(name);
        Files.createDirectories(in.getParent());
        Files.write(in, m.bytes());
        Path out = Files.createDirectories(dir.resolve("out"));
        Set<String> tmpBefore = stackfoldTemps();
        String what = seed + " after " + m.what() + " (seed " + randomSeed + ")";

        Path folded = out.resolve("p.folded");
        String[][] commands = {
                {"info", in.toString()},
                {"top", in.toString()},
                {"fold", in.toString(), "-o", folded.toString()},
                {"convert", in.toString(), "-o", out.resolve("p.speedscope.json").toString()},
                {"convert", in.toString(), "-o", out.resolve("p.pb.gz").toString()},
                {"flamegraph", in.toString(), "-o", out.resolve("p.svg").toString()},
        };
        for (String[] c : commands) {
            Run r = run(c);
            String label = c[0] + " " + what + ": " + r.err();
            assertThat(r.code()).as(label).isIn(0, 1, 2);
            assertThat(r.err().lines().filter(l -> !l.startsWith("stackfold: warning: ")).count()).as(label)
                    .isLessThanOrEqualTo(1);
            assertThat(r.err()).as(label).doesNotContain("internal error").doesNotContain("\tat ");
            try (Stream<Path> files = Files.list(out)) {
                List<String> names = files.map(p -> p.getFileName().toString()).toList();
                assertThat(names).as(label).noneMatch(n -> n.endsWith(".tmp"));
                if (r.code() != 0 && c.length > 2) {
                    assertThat(names).as(label + " leaves no output").doesNotContain(Path.of(c[c.length - 1]).getFileName().toString());
                }
            }
        }
        if (Files.exists(folded)) {
            // Exit 0: what was written reads back to the same profile, through every writable format.
            byte[] once = Files.readAllBytes(folded);
            for (String format : new String[] {"p.speedscope.json", "p.pb.gz"}) {
                Path converted = out.resolve(format);
                if (Files.exists(converted)) {
                    Path back = out.resolve("back-" + format + ".folded");
                    Run r = run("fold", converted.toString(), "-o", back.toString());
                    assertThat(r.code()).as(format + " of " + what + ": " + r.err()).isZero();
                    assertThat(new String(Files.readAllBytes(back), java.nio.charset.StandardCharsets.UTF_8))
                            .as(format + " of " + what).isEqualTo(new String(once, java.nio.charset.StandardCharsets.UTF_8));
                }
            }
            Path again = out.resolve("again.folded");
            assertThat(run("fold", folded.toString(), "-o", again.toString()).code()).as(what).isZero();
            assertThat(Files.readString(again, java.nio.charset.StandardCharsets.ISO_8859_1)).as("fold is a fixed point: " + what)
                    .isEqualTo(new String(once, java.nio.charset.StandardCharsets.ISO_8859_1));
        }
        assertThat(stackfoldTemps()).as("temporary files after " + what).isSubsetOf(tmpBefore);
    }

    private static Set<String> stackfoldTemps() throws IOException {
        Path tmp = org.stackfold.io.TempFiles.directory();
        try (Stream<Path> s = Files.list(tmp)) {
            return new java.util.HashSet<>(s.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith("stackfold-")).toList());
        }
    }

    /** One random change, described for the failure message. */
    record Mutation(byte[] bytes, String what) {
        private static final byte[] SPECIAL = {0, '\n', '\r', ';', ' ', '\t', '-', '9', (byte) 0xff, 0x1b, '"', '{', '<'};

        static Mutation apply(byte[] b, SplittableRandom r) {
            if (b.length == 0) {
                return new Mutation(new byte[] {'x'}, "insert");
            }
            int at = r.nextInt(b.length);
            return switch (r.nextInt(7)) {
                case 0 -> {
                    byte[] c = b.clone();
                    int n = 1 + r.nextInt(8);
                    for (int i = 0; i < n; i++) {
                        c[r.nextInt(c.length)] ^= (byte) (1 << r.nextInt(8));
                    }
                    yield new Mutation(c, n + " flipped bits");
                }
                case 1 -> {
                    byte[] c = new byte[b.length + 1];
                    System.arraycopy(b, 0, c, 0, at);
                    c[at] = SPECIAL[r.nextInt(SPECIAL.length)];
                    System.arraycopy(b, at, c, at + 1, b.length - at);
                    yield new Mutation(c, "byte " + c[at] + " inserted at " + at);
                }
                case 2 -> new Mutation(java.util.Arrays.copyOf(b, at), "cut at " + at);
                case 3 -> {
                    int len = Math.min(b.length - at, 1 + r.nextInt(64));
                    byte[] c = new byte[b.length - len];
                    System.arraycopy(b, 0, c, 0, at);
                    System.arraycopy(b, at + len, c, at, b.length - at - len);
                    yield new Mutation(c, len + " bytes deleted at " + at);
                }
                case 4 -> {
                    int len = Math.min(b.length - at, 1 + r.nextInt(256));
                    byte[] c = new byte[b.length + len * 3];
                    System.arraycopy(b, 0, c, 0, at + len);
                    for (int k = 1; k <= 3; k++) {
                        System.arraycopy(b, at, c, at + len * k, len);
                    }
                    System.arraycopy(b, at + len, c, at + len * 4, b.length - at - len);
                    yield new Mutation(c, len + " bytes at " + at + " repeated");
                }
                case 5 -> {
                    byte[] c = b.clone();
                    int n = Math.min(4, c.length - at);
                    for (int i = 0; i < n; i++) {
                        c[at + i] = (byte) 0xff; // a length or count field that lies
                    }
                    yield new Mutation(c, "0xff x" + n + " at " + at);
                }
                default -> {
                    byte[] c = b.clone();
                    for (int i = 0; i < c.length; i++) {
                        if (c[i] == '\n' && r.nextInt(3) == 0) {
                            c[i] = '\r';
                        }
                    }
                    yield new Mutation(c, "line ends turned into CR");
                }
            };
        }
    }
}
