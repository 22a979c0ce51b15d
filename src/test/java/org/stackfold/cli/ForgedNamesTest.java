package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.Formats;
import org.stackfold.format.ProfileFormat;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * Nothing a profile says may change the structure of an output: frame names holding a line end, a
 * CR, {@code ;} or other control characters, read from every binary or JSON format, are written
 * safely by every writer (folded, diff folded, top, SVG) and kept exactly by the formats that can
 * carry them (speedscope, pprof, Tachyon).
 */
class ForgedNamesTest {
    static final String EVIL = "evil 5\nforged;stack";
    static final String NASTY = "bell\u0007\u001b[2J\rcr\u0000nul";
    static final String COMMENT = "# not a comment";

    @TempDir
    Path dir;

    /** main;EVIL 100, main;NASTY 3, COMMENT 7 (a root that looks like a comment line). */
    static Profile evil() {
        Profile p = new Profile();
        int main = p.frames().plain("main");
        p.addStack(new int[] {main, p.frames().plain(EVIL)}, 2, 100);
        p.addStack(new int[] {main, p.frames().plain(NASTY)}, 2, 3);
        p.addStack(new int[] {p.frames().plain(COMMENT)}, 1, 7);
        return p;
    }

    private Path write(String format) throws Exception {
        ProfileFormat f = Formats.byName(format);
        Path file = dir.resolve("evil." + f.extensions().getFirst());
        try (var out = Files.newOutputStream(file)) {
            f.write(evil(), out, FormatOptions.none());
        }
        return file;
    }

    @ParameterizedTest(name = "from {0}")
    @ValueSource(strings = {"speedscope", "pprof", "tachyon"})
    void foldedHasNoForgedLine(String format) throws Exception {
        Path in = write(format);
        String folded = run("convert", in.toString(), "--to", "folded");
        List<String> lines = folded.lines().toList();
        assertThat(lines).hasSize(3).noneMatch(l -> l.startsWith("forged"));
        assertThat(folded).doesNotContain("\r").contains("evil 5\\x0aforged:stack 100\n");
        if (!format.equals("tachyon")) {
            assertThat(folded).doesNotContain("\u0000").doesNotContain("\u001b")
                    .contains("bell\\x07\\x1b[2J\\x0dcr\\x00nul 3\n").contains("\\x23 not a comment 7\n");
        } else { // CPython's collapsed bytes: only what changes the structure is escaped
            assertThat(folded).contains("bell\u0007\u001b[2J\\x0dcr\u0000nul 3\n");
        }
        assertThat(run("top", Files.writeString(dir.resolve("x.folded"), folded).toString()))
                .contains("110 samples");
    }

    @ParameterizedTest(name = "from {0}")
    @ValueSource(strings = {"speedscope", "pprof", "tachyon"})
    void topCountsEverySampleOnceOnItsOwnLine(String format) throws Exception {
        String top = run("top", write(format).toString());
        List<String> lines = top.lines().toList();
        assertThat(lines.getLast()).startsWith("110 samples");
        assertThat(lines.subList(1, lines.size() - 1)).allMatch(l -> l.matches(" +\\d+ +[\\d.]+% +\\d+ +[\\d.]+%  .+"))
                .anyMatch(l -> l.endsWith("  evil 5\\x0aforged;stack"));
        assertThat(top.chars().filter(c -> c < 0x20 && c != '\n')).isEmpty();
    }

    @ParameterizedTest(name = "from {0}")
    @ValueSource(strings = {"speedscope", "pprof", "tachyon"})
    void diffFoldedHasNoForgedLine(String format) throws Exception {
        Path in = write(format);
        String diff = run("diff", in.toString(), in.toString());
        assertThat(diff.lines().toList()).hasSize(3).noneMatch(l -> l.startsWith("forged"));
        assertThat(diff).contains("main;evil 5\\x0aforged:stack 100 100\n");
    }

    @ParameterizedTest(name = "from {0}")
    @ValueSource(strings = {"speedscope", "pprof", "tachyon"})
    void svgIsWellFormed(String format) throws Exception {
        String svg = run("flamegraph", write(format).toString());
        var factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        var doc = factory.newDocumentBuilder()
                .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        assertThat(doc.getDocumentElement().getNodeName()).isEqualTo("svg");
        assertThat(svg.chars().filter(c -> c < 0x20 && c != '\n' && c != '\t' && c != '\r')).isEmpty();
    }

    /** Binary and JSON formats carry any name: they keep it exactly, through any of them. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"speedscope", "pprof", "tachyon"})
    void formatsThatCarryAnyNameKeepIt(String format) throws Exception {
        Path in = write(format);
        try (Input i = Input.open(in.toString())) {
            Profile back = Formats.byName(format).read(i, FormatOptions.none().set("tachyon.stacks", "merged"));
            List<String> names = new java.util.ArrayList<>();
            for (int f = 0; f < back.frames().size(); f++) {
                names.add(back.frames().name(f));
            }
            assertThat(names).contains(EVIL, NASTY, COMMENT);
        }
    }

    private static String run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringWriter err = new StringWriter();
        int code = Main.run(args, out, new PrintWriter(err, true));
        assertThat(code).as("%s: %s", String.join(" ", args), err).isZero();
        return out.toString(StandardCharsets.UTF_8);
    }
}
