package org.stackfold.render.flamegraph;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.stackfold.cli.Main;

/** {@code stackfold flamegraph} end to end: options, differential inputs, errors, escaping, corpus log cases. */
class FlameGraphCliTest {
    @TempDir
    Path tmp;

    record Run(int rc, String out, String err, Path svg) {
        SvgFrames.Parsed parsed() throws Exception {
            return SvgFrames.parse(Files.readAllBytes(svg));
        }

        String text() throws Exception {
            return Files.readString(svg);
        }
    }

    Run run(String... args) throws Exception {
        Path svg = tmp.resolve("out-" + System.nanoTime() + ".svg");
        List<String> a = new ArrayList<>(List.of("flamegraph"));
        a.addAll(List.of(args));
        a.add("-o");
        a.add(svg.toString());
        StringWriter out = new StringWriter(), err = new StringWriter();
        int rc = Main.run(a.toArray(String[]::new), new PrintWriter(out), new PrintWriter(err));
        return new Run(rc, out.toString(), err.toString(), svg);
    }

    Path file(String name, String content) throws Exception {
        Path p = tmp.resolve(name);
        Files.writeString(p, content);
        return p;
    }

    static Map<String, SvgFrames.Frame> byName(SvgFrames.Parsed p) {
        return p.frames().stream().collect(Collectors.toMap(f -> f.name() + "@" + f.y(), f -> f, (a, b) -> a));
    }

    @Test
    void differentialFromTwoProfilesMatchesDiffFoldedInput() throws Exception {
        Path before = file("before.folded", "main;a 10\nmain;b 30\nmain;c 5\n");
        Path after = file("after.folded", "main;a 25\nmain;b 15\nmain;d 5\n");
        Path diff = file("change.diff.folded", "main;a 10 25\nmain;b 30 15\nmain;c 5 0\nmain;d 0 5\n");
        Run two = run("--diff", before.toString(), after.toString());
        Run one = run(diff.toString());
        assertThat(two.rc()).as(two.err()).isZero();
        assertThat(one.rc()).as(one.err()).isZero();
        List<SvgFrames.Frame> a = two.parsed().frames(), b = one.parsed().frames();
        assertThat(a).hasSameSizeAs(b);
        for (int i = 0; i < a.size(); i++) {
            assertThat(a.get(i).title()).isEqualTo(b.get(i).title());
            assertThat(a.get(i).fill()).isEqualTo(b.get(i).fill());
        }
        Map<String, SvgFrames.Frame> f = byName(one.parsed());
        SvgFrames.Frame fa = f.values().stream().filter(x -> "a".equals(x.name())).findFirst().orElseThrow();
        // widths from AFTER, delta +15 of 45, both counts shown; grew -> red
        assertThat(fa.title()).isEqualTo("a (25 samples, 55.56%; +33.33%; before 10, after 25)");
        assertThat(fa.fill()).isEqualTo("rgb(255,0,0)");
        SvgFrames.Frame fb = f.values().stream().filter(x -> "b".equals(x.name())).findFirst().orElseThrow();
        assertThat(fb.title()).isEqualTo("b (15 samples, 33.33%; -33.33%; before 30, after 15)");
        assertThat(fb.fill()).isEqualTo("rgb(0,0,255)");
        // c vanished (width 0): not drawn
        assertThat(f.values()).noneMatch(x -> "c".equals(x.name()));

        Run neg = run("--negate", diff.toString());
        SvgFrames.Frame na = neg.parsed().frames().stream().filter(x -> "a".equals(x.name())).findFirst().orElseThrow();
        assertThat(na.delta()).isEqualTo("-33.33");
        assertThat(na.fill()).isEqualTo("rgb(0,0,255)");
    }

    @Test
    void normalizeScalesBeforeToAfter() throws Exception {
        Path before = file("b.folded", "main;a 10\nmain;b 10\n");
        Path after = file("a.folded", "main;a 20\nmain;b 20\n");
        Run r = run("--diff", "--normalize", before.toString(), after.toString());
        assertThat(r.rc()).as(r.err()).isZero();
        assertThat(r.parsed().frames()).filteredOn(f -> "a".equals(f.name()))
                .allMatch(f -> f.delta().equals("0.00") && f.fill().equals("rgb(255,255,255)"));
        Run diffFile = run("--normalize", file("n.diff.folded", "main;a 10 20\nmain;b 10 20\n").toString());
        assertThat(diffFile.parsed().frames()).filteredOn(f -> "a".equals(f.name())).allMatch(f -> f.delta().equals("0.00"));
    }

    @Test
    void emptyInputFailsAndLeavesNoOutputFile() throws Exception {
        Run r = run(file("empty.folded", "").toString());
        assertThat(r.rc()).isEqualTo(1);
        assertThat(r.err()).contains("no stack counts found");
        assertThat(r.svg()).doesNotExist();
    }

    @Test
    void emptyInputToStandardOutputIsTheErrorPictureBothPeersDraw() throws Exception {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.StringWriter err = new java.io.StringWriter();
        int rc = org.stackfold.cli.Main.run(new String[] {"flamegraph", file("empty2.folded", "").toString()}, out,
                new java.io.PrintWriter(err, true));
        assertThat(rc).isEqualTo(1);
        assertThat(out.toString(java.nio.charset.StandardCharsets.UTF_8)).contains("ERROR: No valid input provided to flamegraph");
        SvgFrames.parse(out.toByteArray());
    }

    @Test
    void badLinesAreSkippedWithOneWarning() throws Exception {
        Path in = Path.of(FlameGraphGoldenTest.resource("inferno/inputs/inferno__flamegraph__bad-lines__bad-lines.txt").toString());
        Run r = run(in.toString());
        assertThat(r.rc()).as(r.err()).isZero();
        assertThat(r.err().lines().filter(l -> l.contains("lines with invalid format")).count()).isEqualTo(1);
        Run strict = run("--no-lenient", in.toString());
        assertThat(strict.rc()).isEqualTo(1);
        assertThat(strict.err()).contains("line");
    }

    @Test
    void fractionalCountsWarnOnceAndOnlyWhenPresent() throws Exception {
        Run r = run(FlameGraphGoldenTest.resource("inferno/inputs/inferno__flamegraph__fractional-samples__fractional.txt").toString());
        assertThat(r.err().lines().filter(l -> l.contains("fractional")).count()).isEqualTo(1);
        Run none = run(FlameGraphGoldenTest.resource("inferno/inputs/inferno__flamegraph__fractional-samples__no-fractionals.txt")
                .toString());
        assertThat(none.err()).doesNotContain("fractional");
    }

    /**
     * flamegraph.pl keeps fractional counts as floats; we truncate (as inferno does). What stays
     * comparable with perl's fractional.svg: the same frames at the same rows, counts within the
     * truncated fractions.
     */
    @Test
    void perlFractionalComparableParts() throws Exception {
        Run r = run("--hash", FlameGraphGoldenTest.resource("perl/inputs/inferno__flamegraph__fractional-samples__fractional.txt").toString());
        SvgFrames.Parsed want = SvgFrames.parse(Files.readAllBytes(FlameGraphGoldenTest.resource("perl/expected/flamegraph.pl__fractional.svg")));
        SvgFrames.Parsed got = r.parsed();
        assertThat(got.frames()).hasSameSizeAs(want.frames());
        for (SvgFrames.Frame w : want.frames()) {
            assertThat(got.frames()).as(w.title()).anySatisfy(g -> {
                assertThat(g.name()).isEqualTo(w.name());
                assertThat(g.y()).isEqualTo(w.y());
                assertThat(Math.abs(g.count() - w.count())).isLessThanOrEqualTo(3);
            });
        }
    }

    @Test
    void hostileNamesAreEscapedAndTheFileIsWellFormed() throws Exception {
        String longName = "y".repeat(10_000);
        String folded = "main;<script>alert(1)</script> 5\nmain;a&b\"c'd>e 5\nmain;]]>--> 5\nmain;" + longName
                + " 5\nmain;tab\there 5\n";
        Path in = tmp.resolve("hostile.folded");
        byte[] text = folded.getBytes(StandardCharsets.UTF_8);
        byte[] bad = "main;bad\u0001\u0000x".getBytes(StandardCharsets.UTF_8);
        byte[] invalid = {(byte) 0xE2, (byte) 0x82, ' ', '5', '\n'};
        try (var out = Files.newOutputStream(in)) {
            out.write(text);
            out.write(bad);
            out.write(invalid);
        }
        Run r = run("--title", "<b>&\"title\"", "--subtitle", "]]>", "--notes", "-- <x> --", "--nametype", "</script>",
                "--countname", "<u>", in.toString());
        assertThat(r.rc()).as(r.err()).isZero();
        SvgFrames.Parsed p = r.parsed();
        List<String> names = p.frames().stream().map(SvgFrames.Frame::name).toList();
        assertThat(names).contains("<script>alert(1)</script>", "a&b\"c'd>e", "]]>-->", longName, "tab\there");
        assertThat(names).anyMatch(n -> n != null && n.startsWith("bad") && n.contains("\uFFFD"));
        assertThat(p.byId("title").getTextContent()).isEqualTo("<b>&\"title\"");
        assertThat(p.doc().getElementsByTagName("script").getLength()).isEqualTo(1);
        assertThat(r.text()).doesNotContain("<script>alert");
    }

    @Test
    void flameChartKeepsInputOrderAndMergesOnlyNeighbours() throws Exception {
        Path in = file("chart.folded", "main;b 1\nmain;a 1\nmain;b 1\n");
        Run r = run("--flamechart", in.toString());
        assertThat(r.rc()).as(r.err()).isZero();
        List<SvgFrames.Frame> row = r.parsed().frames().stream().filter(f -> "a".equals(f.name()) || "b".equals(f.name()))
                .sorted(java.util.Comparator.comparingDouble(SvgFrames.Frame::x)).toList();
        assertThat(row).extracting(SvgFrames.Frame::name).containsExactly("b", "a", "b");
        assertThat(r.parsed().byId("title").getTextContent()).isEqualTo("Flame Chart");
        Run inf = run("--flamechart", "--compat", "inferno", in.toString());
        List<SvgFrames.Frame> rowInf = inf.parsed().frames().stream().filter(f -> "a".equals(f.name()) || "b".equals(f.name()))
                .sorted(java.util.Comparator.comparingDouble(SvgFrames.Frame::x)).toList();
        assertThat(rowInf).extracting(SvgFrames.Frame::name).containsExactly("b", "a", "b");
    }

    @Test
    void sortByWeightPutsHeaviestSiblingFirst() throws Exception {
        Path in = file("w.folded", "main;a 1\nmain;b 5\nmain;c 3\n");
        Run r = run("--sort", "weight", in.toString());
        List<String> order = r.parsed().frames().stream().filter(f -> f.name() != null && f.name().length() == 1)
                .sorted(java.util.Comparator.comparingDouble(SvgFrames.Frame::x)).map(SvgFrames.Frame::name).toList();
        assertThat(order).containsExactly("b", "c", "a");
    }

    @Test
    void invertedTotalFactorAndMinwidth() throws Exception {
        Path in = file("t.folded", "main;a 90\nmain;b 10\n");
        Run r = run("--inverted", "--total", "200", "--factor", "1000", "--countname", "us", in.toString());
        SvgFrames.Parsed p = r.parsed();
        assertThat(p.byId("title").getTextContent()).isEqualTo("Icicle Graph");
        SvgFrames.Frame a = p.frames().stream().filter(f -> "a".equals(f.name())).findFirst().orElseThrow();
        assertThat(a.title()).isEqualTo("a (90,000 us, 45.00%)");
        assertThat(a.width()).isCloseTo(1180 * 90 / 200.0, org.assertj.core.data.Offset.offset(0.1));
        SvgFrames.Frame main = p.frames().stream().filter(f -> "main".equals(f.name())).findFirst().orElseThrow();
        assertThat(a.y()).isGreaterThan(main.y()); // icicle: children below
        Run pruned = run("--minwidth", "10.5%", in.toString());
        assertThat(pruned.parsed().frames()).noneMatch(f -> "b".equals(f.name()));
        Run px = run("--minwidth", "200", in.toString());
        assertThat(px.parsed().frames()).noneMatch(f -> "b".equals(f.name()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"hot", "mem", "io", "wakeup", "chain", "java", "js", "perl", "python", "rust", "red", "green",
            "blue", "aqua", "yellow", "purple", "orange"})
    void everyPaletteRenders(String palette) throws Exception {
        Path in = file("p.folded", "java;Lcom/x/Y:::m_[j] 3\nperl;Foo::bar 2\nnode;/app/x.js:1 4\nk;do_sys_[k] 1\nw;a;--;b 2\n");
        Run r = run("--colors", palette, in.toString());
        assertThat(r.rc()).as(r.err()).isZero();
        assertThat(r.parsed().frames()).allMatch(f -> f.fill().startsWith("rgb("));
        assertThat(r.parsed().frames()).filteredOn(f -> "--".equals(f.name())).allMatch(f -> f.fill().equals("rgb(160,160,160)"));
    }

    /**
     * Chain graphs: frames below the first "--" (the waker stack) are aqua, the rest blue. flamegraph.pl
     * also appends a "--" frame to stacks that have none (a quirk we leave out).
     */
    @Test
    void chainPaletteColoursWakers() throws Exception {
        Path in = file("chain.folded", "sshd;read;schedule;--;irq;wake_up 3\nsshd;write 2\n");
        SvgFrames.Parsed p = run("--colors", "chain", in.toString()).parsed();
        SvgFrames.Frame wake = p.frames().stream().filter(f -> "wake_up".equals(f.name())).findFirst().orElseThrow();
        assertThat(wake.fill()).isEqualTo("rgb(56,171,171)"); // aqua, as flamegraph.pl colours "wake_up_[w]"
        SvgFrames.Frame read = p.frames().stream().filter(f -> "read".equals(f.name())).findFirst().orElseThrow();
        assertThat(read.fill()).isEqualTo("rgb(136,136,252)"); // blue
        assertThat(p.frames()).noneMatch(f -> "--".equals(f.name()) && f.count() == 2);
    }

    @Test
    void colorModesAndConsistentPalette() throws Exception {
        Path in = file("c.folded", "main;a 3\nmain;b 2\n");
        for (String mode : List.of("--hash", "--random", "--deterministic")) {
            Run r = run(mode, in.toString());
            assertThat(r.rc()).as(mode + r.err()).isZero();
        }
        Path map = tmp.resolve("palette.map");
        Files.writeString(map, "a->rgb(1,2,3)\n");
        Run r = run("--palette-file", map.toString(), in.toString());
        assertThat(r.parsed().frames()).filteredOn(f -> "a".equals(f.name())).allMatch(f -> f.fill().equals("rgb(1,2,3)"));
        assertThat(Files.readAllLines(map)).contains("a->rgb(1,2,3)").anyMatch(l -> l.startsWith("b->rgb("));
        assertThat(run("--hash", "--random", in.toString()).rc()).isEqualTo(2);
        assertThat(run("--colors", "nope", in.toString()).rc()).isEqualTo(2);
        assertThat(run("--bgcolors", "pink", in.toString()).rc()).isEqualTo(2);
        assertThat(run("--minwidth", "abc", in.toString()).rc()).isEqualTo(2);
    }

    @Test
    void noSortRejectsUnsortedInput() throws Exception {
        Path unsorted = FlameGraphGoldenTest.resource(
                "inferno/inputs/inferno__flamegraph__unsorted-input__perf-vertx-stacks-01-collapsed-all-unsorted.txt");
        Run r = run("--no-sort", unsorted.toString());
        assertThat(r.rc()).isEqualTo(1);
        assertThat(r.err()).contains("unsorted input lines detected").contains("line");
        Run ok = run("--no-sort", file("s.folded", "a;b 1\na;c 2\n\n# comment\nb 1\n").toString());
        assertThat(ok.rc()).as(ok.err()).isZero();
        assertThat(run("--no-sort", "--reverse", unsorted.toString()).rc()).isZero();
    }

    @Test
    void flamegraphPlSpellingsAndQuiet() throws Exception {
        Path in = file("q.folded", "main;a 3\n");
        Run r = run("--color=java", "--bgcolor=grey", "--title=T", "-q", in.toString());
        assertThat(r.rc()).as(r.err()).isZero();
        assertThat(r.err()).isEmpty(); // the low-count warning is silenced
        assertThat(r.parsed().byId("title").getTextContent()).isEqualTo("T");
        assertThat(run(in.toString()).err()).contains("stack count is low");
    }

    /** --reverse/--base rewrite records while reading (CLI) or an existing tree (the transforms, API): same graph. */
    @ParameterizedTest
    @ValueSource(strings = {"--reverse", "--base", "--both"})
    void rewritingWhileReadingEqualsRewritingTheTree(String mode) throws Exception {
        Path in = FlameGraphGoldenTest.resource("inferno/inputs/inferno__flamegraph__base__flames.txt");
        FlameGraphOptions o = new FlameGraphOptions();
        List<String> args = new ArrayList<>();
        if (!mode.equals("--base")) {
            o.reverse = true;
            args.add("--reverse");
        }
        if (!mode.equals("--reverse")) {
            o.base.add("Final");
            args.addAll(List.of("--base", "Final"));
        }
        args.add(in.toString());
        Run cli = run(args.toArray(String[]::new));
        org.stackfold.model.Profile p = new org.stackfold.format.folded.FoldedReader(
                org.stackfold.format.folded.FoldedReader.Mode.AUTO, true, 2, w -> { })
                .read(org.stackfold.io.Input.open(in.toString())).profile();
        Path api = tmp.resolve("api.svg");
        List<org.stackfold.transform.Transform> rw = new ArrayList<>();
        if (!o.base.isEmpty()) {
            rw.add(new org.stackfold.transform.BaseSymbols(o.base, o.inferno()));
        }
        if (o.reverse) {
            rw.add(new org.stackfold.transform.Reverse());
        }
        try (var out = Files.newOutputStream(api)) {
            FlameGraph.render(new org.stackfold.transform.Transforms(rw).apply(p), o, out, w -> { });
        }
        List<String> a = cli.parsed().frames().stream().map(f -> f.title() + "@" + f.x() + "," + f.y()).sorted().toList();
        List<String> b = SvgFrames.parse(Files.readAllBytes(api)).frames().stream()
                .map(f -> f.title() + "@" + f.x() + "," + f.y()).sorted().toList();
        assertThat(a).isNotEmpty().isEqualTo(b);
    }

    @Test
    void helpListsOptionsWithoutFormatWarnings() throws Exception {
        java.io.PrintStream saved = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        StringWriter out = new StringWriter();
        try {
            System.setErr(new java.io.PrintStream(captured, true, StandardCharsets.UTF_8));
            assertThat(Main.run(new String[] {"flamegraph", "--help"}, new PrintWriter(out), new PrintWriter(new StringWriter())))
                    .isZero();
        } finally {
            System.setErr(saved);
        }
        assertThat(captured.toString(StandardCharsets.UTF_8)).doesNotContain("WARN");
        assertThat(out.toString()).contains("--minwidth", "--colors", "--flamechart", "--deterministic", "--zoom-percent");
    }

    /** A pipe (like /dev/null, a device) is written to, never renamed over. */
    @Test
    void pipeOutputStaysAPipe() throws Exception {
        Path fifo = tmp.resolve("out.fifo");
        org.junit.jupiter.api.Assumptions.assumeTrue(
                new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0, "mkfifo not available");
        java.util.concurrent.CompletableFuture<byte[]> read = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try (var in = Files.newInputStream(fifo)) {
                return in.readAllBytes();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        Path in = file("p.folded", "main;a 3\n");
        StringWriter err = new StringWriter();
        int rc = Main.run(new String[] {"flamegraph", in.toString(), "-o", fifo.toString()}, new PrintWriter(new StringWriter()),
                new PrintWriter(err));
        assertThat(rc).as(err.toString()).isZero();
        assertThat(new String(read.get(30, java.util.concurrent.TimeUnit.SECONDS), StandardCharsets.UTF_8)).contains("</svg>");
        assertThat(Files.isRegularFile(fifo)).isFalse();
    }

    @Test
    void gzipInputIsReadOnce() throws Exception {
        Path gz = tmp.resolve("p.folded.gz");
        try (var out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(gz))) {
            out.write("main;a 3\nmain;b 2\n".getBytes(StandardCharsets.UTF_8));
        }
        Run r = run(gz.toString());
        assertThat(r.rc()).as(r.err()).isZero();
        assertThat(r.parsed().frames()).hasSize(4);
    }

    @Test
    void staticAndPrettyOutput() throws Exception {
        Path in = file("s.folded", "main;a 3\n");
        Run r = run("--no-javascript", "--pretty-xml", "--stroke-color", "#112233", in.toString());
        assertThat(r.text()).doesNotContain("function init").contains("stroke:rgb(17,34,51)");
        SvgFrames.parse(Files.readAllBytes(r.svg()));
    }

    /** Seeded random profiles: every frame drawn lies inside its parent and the root spans the total. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void randomProfilesNestFrames(long seed) throws Exception {
        SplittableRandom rnd = new SplittableRandom(seed);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 300; i++) {
            int depth = 1 + rnd.nextInt(8);
            StringBuilder s = new StringBuilder();
            for (int d = 0; d < depth; d++) {
                s.append(d == 0 ? "" : ";").append((char) ('a' + rnd.nextInt(4)));
                if (rnd.nextInt(5) == 0) {
                    s.append(rnd.nextBoolean() ? "::x" : " y");
                }
            }
            b.append(s).append(' ').append(1 + rnd.nextInt(50)).append('\n');
        }
        Path in = file("r.folded", b.toString());
        Run r = run("--minwidth", "0", rnd.nextBoolean() ? "--reverse" : "--hash", in.toString());
        List<SvgFrames.Frame> frames = r.parsed().frames();
        double bottom = frames.stream().mapToDouble(SvgFrames.Frame::y).max().orElseThrow();
        for (SvgFrames.Frame f : frames) {
            if (f.y() == bottom) {
                assertThat(f.title()).startsWith("all (");
                continue;
            }
            assertThat(frames).as("parent of " + f.title()).anyMatch(p -> p.y() == f.y() + 16
                    && p.x() <= f.x() + 0.11 && p.x() + p.width() >= f.x() + f.width() - 0.21 && p.count() >= f.count());
        }
    }
}
