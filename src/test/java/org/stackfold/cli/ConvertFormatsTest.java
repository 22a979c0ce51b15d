package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stackfold.cli.CliRun.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.Formats;
import org.stackfold.format.ProfileFormat;
import org.stackfold.format.RandomProfiles;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/** {@code stackfold convert} across every pair of the folded, speedscope and pprof formats, and from JFR. */
class ConvertFormatsTest {
    private static final List<String> FORMATS = List.of("folded", "speedscope", "pprof");
    private static final Map<String, String> FILE_NAME = Map.of("folded", "p.folded", "speedscope",
            "p.speedscope.json", "pprof", "p.pb.gz", "diff-folded", "p.diff.folded");

    @TempDir
    Path dir;

    static java.util.stream.Stream<Arguments> pairs() {
        List<Arguments> out = new ArrayList<>();
        for (long seed : RandomProfiles.seeds(3)) {
            for (String from : FORMATS) {
                for (String to : FORMATS) {
                    out.add(Arguments.of(seed, from, to));
                }
            }
        }
        return out.stream();
    }

    private Path write(String format, String name, Profile p) throws IOException {
        Path f = dir.resolve(name);
        Files.write(f, RandomProfiles.write(Formats.byName(format), p, FormatOptions.none()));
        return f;
    }

    private static Profile readAuto(Path f) throws IOException {
        try (Input in = Input.open(f.toString())) {
            ProfileFormat fmt = Formats.forInput(in, null);
            return fmt.read(in, FormatOptions.none());
        }
    }

    @ParameterizedTest
    @MethodSource("pairs")
    void byExtensionKeepsStacksAndCounts(long seed, String from, String to) throws IOException {
        Profile p = RandomProfiles.plain(seed, 50, 10, false);
        Path in = write(from, "in-" + FILE_NAME.get(from), p);
        Path out = dir.resolve("out-" + FILE_NAME.get(to));
        CliRun r = run("convert", in.toString(), "-o", out.toString());
        assertThat(r.code()).as(r.err()).isZero();
        try (Input i = Input.open(out.toString())) {
            assertThat(Formats.forInput(i, null).name()).isEqualTo(to);
        }
        assertThat(RandomProfiles.stacks(readAuto(out))).isEqualTo(RandomProfiles.stacks(p));
    }

    @ParameterizedTest
    @MethodSource("pairs")
    void forcedFormatsWithNeutralNames(long seed, String from, String to) throws IOException {
        Profile p = RandomProfiles.plain(seed, 50, 10, false);
        Path in = write(from, "input.dat", p);
        Path out = dir.resolve("output.dat");
        CliRun r = run("convert", in.toString(), "--from", from, "--to", to, "-o", out.toString());
        assertThat(r.code()).as(r.err()).isZero();
        Profile back;
        try (Input i = Input.open(out.toString())) {
            back = Formats.byName(to).read(i, FormatOptions.none());
        }
        assertThat(RandomProfiles.stacks(back)).isEqualTo(RandomProfiles.stacks(p));
        // Without --from the content decides (folded is the fallback).
        CliRun sniffed = run("convert", in.toString(), "--to", "folded", "-o", dir.resolve("sniffed.folded").toString());
        assertThat(sniffed.code()).as(sniffed.err()).isZero();
        assertThat(RandomProfiles.stacks(readAuto(dir.resolve("sniffed.folded")))).isEqualTo(RandomProfiles.stacks(p));
    }

    /**
     * Every registered writable format to every registered writable format (whatever other packages
     * register): the conversion works, or fails with one clear line; never an internal error.
     */
    @Test
    void everyRegisteredPairConvertsOrSaysWhyNot() throws IOException {
        Profile p = RandomProfiles.plain(99, 30, 6, false);
        Profile d = RandomProfiles.differential(99, 30, 6);
        for (ProfileFormat from : Formats.all()) {
            if (!from.canRead() || !from.canWrite()) {
                continue;
            }
            Path in = dir.resolve("any-in." + from.extensions().getFirst());
            try {
                Files.write(in, RandomProfiles.write(from, from.name().startsWith("diff") ? d : p, FormatOptions.none()));
            } catch (RuntimeException e) {
                continue; // a format that cannot hold a random profile (says so when converting to it)
            }
            for (ProfileFormat to : Formats.all()) {
                Path out = dir.resolve("any-out-" + from.name() + "-" + to.name());
                CliRun r = run("convert", in.toString(), "--from", from.name(), "--to", to.name(), "-o", out.toString());
                String pair = from.name() + " -> " + to.name();
                if (r.code() == 0) {
                    assertThat(out).as(pair).exists();
                } else {
                    assertThat(r.code()).as(pair).isEqualTo(1);
                    assertThat(r.err().strip()).as(pair).startsWith("stackfold: ").doesNotContain("internal error")
                            .doesNotContain("\n");
                    assertThat(out).as(pair).doesNotExist();
                }
            }
        }
    }

    @Test
    void differentialProfilesConvertBetweenDiffFoldedSpeedscopeAndPprof() throws IOException {
        Profile p = RandomProfiles.differential(42, 40, 6);
        List<String> formats = List.of("diff-folded", "speedscope", "pprof");
        for (String from : formats) {
            Path in = write(from, "d-in-" + FILE_NAME.get(from), p);
            for (String to : formats) {
                Path out = dir.resolve("d-out-" + FILE_NAME.get(to));
                CliRun r = run("convert", in.toString(), "-o", out.toString(), "--to", to);
                assertThat(r.code()).as(from + " -> " + to + ": " + r.err()).isZero();
                Profile back;
                try (Input i = Input.open(out.toString())) {
                    back = Formats.byName(to).read(i, FormatOptions.none());
                }
                assertThat(back.tree().isDifferential()).as(from + " -> " + to).isTrue();
                assertThat(RandomProfiles.stacks(back, 0)).isEqualTo(RandomProfiles.stacks(p, 0));
                assertThat(RandomProfiles.stacks(back, 1)).isEqualTo(RandomProfiles.stacks(p, 1));
            }
        }
    }

    static volatile long sink;

    @Test
    void jfrConvertsToEveryWritableFormat() throws IOException {
        Path jfr = dir.resolve("rec.jfr");
        try (Recording rec = new Recording()) {
            rec.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(5));
            rec.start();
            long end = System.nanoTime() + 400_000_000L;
            long x = 3;
            while (System.nanoTime() < end) {
                x = x * 31 + (x >>> 7);
            }
            sink = x;
            rec.stop();
            rec.dump(jfr);
        }
        Profile direct = readAuto(jfr);
        assertThat(direct.tree().totalSamples()).isPositive();
        for (String to : FORMATS) {
            Path out = dir.resolve("jfr-" + FILE_NAME.get(to));
            CliRun r = run("convert", jfr.toString(), "--thread-frames", "-o", out.toString());
            assertThat(r.code()).as(r.err()).isZero();
            Profile back = readAuto(out);
            assertThat(back.tree().totalSamples()).isEqualTo(direct.tree().totalSamples());
            assertThat(RandomProfiles.stacks(back).keySet()).allMatch(s -> s.startsWith("["));
        }
        CliRun cannot = run("convert", dir.resolve("jfr-p.folded").toString(), "--to", "jfr", "-o",
                dir.resolve("x.jfr").toString());
        assertThat(cannot.code()).isEqualTo(1);
        assertThat(cannot.err()).contains("cannot be written");
        CliRun byName = run("convert", dir.resolve("jfr-p.folded").toString(), "-o", dir.resolve("y.jfr").toString());
        assertThat(byName.code()).isEqualTo(1);
        assertThat(byName.err()).contains("format jfr cannot be written");
        assertThat(dir.resolve("y.jfr")).doesNotExist();
    }

    @Test
    void standardInputIsRecognisedByContent() throws IOException {
        Profile p = RandomProfiles.plain(5, 30, 6, false);
        java.io.InputStream saved = System.in;
        try {
            for (String format : List.of("speedscope", "pprof")) {
                byte[] data = RandomProfiles.write(Formats.byName(format), p, FormatOptions.none());
                for (boolean gzip : new boolean[] {false, true}) {
                    byte[] in = data;
                    if (gzip && !format.equals("pprof")) {
                        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
                        try (java.util.zip.GZIPOutputStream z = new java.util.zip.GZIPOutputStream(b)) {
                            z.write(data);
                        }
                        in = b.toByteArray();
                    }
                    System.setIn(new java.io.ByteArrayInputStream(in));
                    Path out = dir.resolve("stdin-" + format + gzip + ".folded");
                    CliRun r = run("convert", "-", "-o", out.toString());
                    assertThat(r.code()).as(format + ": " + r.err()).isZero();
                    assertThat(RandomProfiles.stacks(readAuto(out))).isEqualTo(RandomProfiles.stacks(p));
                }
            }
        } finally {
            System.setIn(saved);
        }
    }

    @Test
    void badInputIsOneLineWithTheOffset() throws IOException {
        Path bad = dir.resolve("bad.pprof");
        Files.write(bad, new byte[] {0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x12, (byte) 0xff, 0x7f});
        CliRun r = run("convert", bad.toString(), "-o", dir.resolve("o.folded").toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err().strip()).startsWith("stackfold: " + bad + ": at byte offset 7: pprof:").contains("length 16383 exceeds").doesNotContain("\n");
        assertThat(dir.resolve("o.folded")).doesNotExist();

        Path json = dir.resolve("bad.speedscope.json");
        Files.writeString(json, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"profiles\":[{]}");
        CliRun j = run("convert", json.toString(), "-o", dir.resolve("o2.folded").toString());
        assertThat(j.code()).isEqualTo(1);
        assertThat(j.err()).contains("at byte offset").contains("speedscope");
    }
}
