package org.stackfold.format.tachyon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stackfold.cli.CliRun.run;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.stackfold.cli.CliRun;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/** {@code stackfold convert} and {@code stackfold info} on Tachyon files, end to end. */
class TachyonCliTest {
    static final List<String> GOOD = Fixtures.GOOD;

    @TempDir
    Path dir;

    Path fixture(String name) throws IOException {
        Path p = dir.resolve(name.replace('/', '_') + ".bin");
        Files.write(p, Fixtures.bytes(name + ".bin"));
        return p;
    }

    @ParameterizedTest
    @FieldSource("GOOD")
    void convertToFoldedIsCPythonCollapsed(String name) throws IOException {
        Path out = dir.resolve("out.folded");
        CliRun r = run("convert", fixture(name).toString(), "-o", out.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(Files.readAllBytes(out)).isEqualTo(Fixtures.bytes(name + ".collapsed.txt"));
    }

    @ParameterizedTest
    @FieldSource("GOOD")
    void info(String name) throws IOException {
        CliRun r = run("info", fixture(name).toString());
        assertThat(r.code()).as(r.err()).isZero();
        TachyonFile f = Fixtures.open(name);
        assertThat(r.out()).contains("format             tachyon")
                .contains("samples            " + Long.toUnsignedString(f.sampleCount()))
                .contains("records ").contains("threads            " + f.threadCount());
    }

    @Test
    void foldedToTachyonAndBack() throws IOException {
        Path folded = dir.resolve("in.folded");
        Files.writeString(folded, "main;work;leaf 3\nmain;idle 2\ntid:7;main;io 4\n");
        for (String comp : List.of("none", "zstd")) {
            Path bin = dir.resolve("out-" + comp + ".bin");
            CliRun r = run("convert", folded.toString(), "-o", bin.toString(), "--compression", comp);
            assertThat(r.code()).as(r.err()).isZero();
            TachyonFile f = TachyonFile.open("x", MemorySegment.ofArray(Files.readAllBytes(bin)));
            assertThat(f.compression()).isEqualTo(comp.equals("zstd") ? 1 : 0);
            assertThat(f.sampleCount()).isEqualTo(9);
            Path back = dir.resolve("back.folded");
            r = run("convert", bin.toString(), "-o", back.toString());
            assertThat(r.code()).as(r.err()).isZero();
            // No location: CPython shows the bare name; thread roots become thread ids.
            assertThat(Files.readString(back)).isEqualTo("tid:7;main;io 4\ntid:0;main;work;leaf 3\ntid:0;main;idle 2\n");
        }
    }

    @ParameterizedTest
    @FieldSource("GOOD")
    void tachyonToTachyonKeepsEverySample(String name) throws IOException {
        Path out = dir.resolve("copy.bin");
        CliRun r = run("convert", fixture(name).toString(), "-o", out.toString(), "--tachyon-byte-order", "big",
                "--compression", "zstd");
        assertThat(r.code()).as(r.err()).isZero();
        TachyonFile g = TachyonFile.open("copy", MemorySegment.ofArray(Files.readAllBytes(out)));
        assertThat(g.byteOrder()).isEqualTo(java.nio.ByteOrder.BIG_ENDIAN);
        // Same samples per thread (records may interleave differently between threads).
        assertThat(perThreadSorted(Fixtures.decodeSamples(g))).isEqualTo(perThreadSorted(Fixtures.decodeSamples(Fixtures.open(name))));
    }

    private static List<String> perThreadSorted(List<String> samples) {
        // Stable sort by "interp tid" keeps each thread's own order.
        return samples.stream().sorted(java.util.Comparator.comparing(s -> s.substring(0, s.indexOf(' ', s.indexOf(' ') + 1)))).toList();
    }

    @Test
    void filtersOnTheCommandLine() throws IOException {
        Path out = dir.resolve("f.folded");
        CliRun r = run("convert", fixture("real/a_none").toString(), "-o", out.toString(), "--tachyon-threads", "22518",
                "--tachyon-naming", "function", "--tachyon-stacks", "merged");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(Files.readString(out)).isEqualTo("Thread._bootstrap;Thread._bootstrap_inner;Thread.run;sleepy_worker 3252\n");
    }

    @Test
    void recognisedByContentWhateverTheName() throws IOException {
        Path p = dir.resolve("profile.dat");
        Files.write(p, Fixtures.bytes("edge/edge_threads_bigendian.bin"));
        Path out = dir.resolve("o.txt");
        CliRun r = run("convert", p.toString(), "-o", out.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(Files.readAllBytes(out)).isEqualTo(Fixtures.bytes("edge/edge_threads_bigendian.collapsed.txt"));
        CliRun info = run("info", p.toString());
        assertThat(info.out()).contains("byte order         big-endian").contains("mode               gil");
    }

    @Test
    void corruptFileIsOneLineError() throws IOException {
        Path p = dir.resolve("bad.bin");
        Files.write(p, Fixtures.bytes("edge/corrupt/unknown_encoding.bin"));
        CliRun r = run("convert", p.toString(), "-o", dir.resolve("x.folded").toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err().strip()).startsWith("stackfold: " + p + ": at byte offset ")
                .contains("Unknown stack encoding: 9").doesNotContain("\n");
        assertThat(dir.resolve("x.folded")).doesNotExist();
    }

    @Test
    void readerBuildsTimelineOnlyWhenAsked() throws IOException {
        Path p = fixture("real/a_none");
        TachyonFormat fmt = new TachyonFormat();
        try (Input in = Input.open(p.toString())) {
            assertThat(fmt.read(in, FormatOptions.none()).timeline()).isNull();
        }
        try (Input in = Input.open(p.toString())) {
            Profile prof = fmt.read(in, FormatOptions.none().set(TachyonOptions.TIMELINE, true));
            assertThat(prof.timeline()).isNotNull();
            assertThat((long) prof.timeline().size()).isEqualTo(prof.tree().totalSamples());
            // Every timeline entry points at a node with a count, and its thread matches its tid root.
            for (int i = 0; i < prof.timeline().size(); i += 97) {
                int node = prof.timeline().node(i);
                int root = node;
                while (prof.tree().parent(root) != 0) {
                    root = prof.tree().parent(root);
                }
                assertThat(prof.frames().name(prof.tree().frame(root))).isEqualTo("tid:" + prof.timeline().threadId(i));
            }
        }
        try (Input in = Input.open(p.toString())) {
            Profile raw = fmt.read(in, FormatOptions.none().set(TachyonOptions.NAMING, "raw"));
            int f = raw.tree().frame(raw.tree().size() - 1);
            assertThat(raw.frames().file(f)).startsWith("/");
            assertThat(raw.frames().line(f)).isPositive();
        }
    }

    @Test
    void profileWithTimelineRoundTripsThroughTheWriter() throws IOException {
        Path p = fixture("edge/edge_threads");
        Profile prof;
        try (Input in = Input.open(p.toString())) {
            prof = new TachyonFormat().read(in, FormatOptions.none().set(TachyonOptions.TIMELINE, true)
                    .set(TachyonOptions.NAMING, "raw"));
        }
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        new TachyonFormat().write(prof, out, FormatOptions.none());
        TachyonFile g = TachyonFile.open("w", MemorySegment.ofArray(out.toByteArray()));
        java.io.ByteArrayOutputStream folded = new java.io.ByteArrayOutputStream();
        TachyonFolded.write(g, TachyonOptions.defaults(), folded);
        assertThat(folded.toString(StandardCharsets.UTF_8))
                .isEqualTo(new String(Fixtures.bytes("edge/edge_threads.collapsed.txt"), StandardCharsets.UTF_8));
    }
}
