package org.stackfold.format.chrome;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.Formats;
import org.stackfold.format.folded.FoldedWriter;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.Profile;

/** Chrome/Node .cpuprofile read as speedscope's importer reads it. */
class CpuProfileFormatTest {
    private static Path res(String rel) throws Exception {
        return Path.of(CpuProfileFormatTest.class.getResource("/formats/cpuprofile/" + rel).toURI());
    }

    private static List<String> folded(Profile p) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new FoldedWriter(false).write(p, out);
        return out.toString(StandardCharsets.UTF_8).lines().toList();
    }

    private static List<String> read(String json) throws Exception {
        try (Input in = Input.ofBytes("t.cpuprofile", json.getBytes(StandardCharsets.UTF_8))) {
            return folded(new CpuProfileFormat().read(in, FormatOptions.none()));
        }
    }

    @Test
    void chromeProfileMatchesSpeedscopesImporter() throws Exception {
        Path file = res("speedscope__Chrome-65-simple.cpuprofile");
        try (Input in = Input.open(file.toString())) {
            assertThat(Formats.forInput(in, null).name()).isEqualTo("cpuprofile");
            Profile p = Formats.forInput(in, null).read(in, FormatOptions.none());
            assertThat(folded(p)).containsExactlyElementsOf(
                    Files.readAllLines(res("speedscope__Chrome-65-simple.snapshot.folded")));
            // frames keep their location, 1-based as speedscope shows it
            int d = -1;
            for (int f = 0; f < p.frames().size(); f++) {
                if (p.frames().name(f).equals("d")) {
                    d = f;
                }
            }
            assertThat(p.frames().line(d)).isEqualTo(14);
            assertThat(p.frames().column(d)).isEqualTo(11);
        }
    }

    @Test
    void timeGoesToEachRunUntilTheNextAndProgramSitsOnThePreviousStack() throws Exception {
        String json = """
                {"nodes":[
                 {"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1,"columnNumber":-1},"children":[2,4,5]},
                 {"id":2,"callFrame":{"functionName":"main","url":"file:///app/x.js","lineNumber":0,"columnNumber":0},"children":[3]},
                 {"id":3,"callFrame":{"functionName":"","url":"file:///app/x.js","lineNumber":9,"columnNumber":4}},
                 {"id":4,"callFrame":{"functionName":"(garbage collector)","url":"","lineNumber":-1,"columnNumber":-1}},
                 {"id":5,"callFrame":{"functionName":"(idle)","url":"","lineNumber":-1,"columnNumber":-1}}],
                 "startTime":0,"endTime":100,
                 "samples":[2,2,3,4,5,99,2],
                 "timeDeltas":[5,10,10,7,3,20,-4]}
                """;
        // times: 5,15,25,32,35,55,51->55; runs: main@5, anon@25, gc@32 (on main;anon), idle@35, 99 unknown, main@55
        assertThat(read(json)).containsExactly("main 20", "main;(anonymous x.js:10) 7", "main;(anonymous x.js:10);(garbage collector) 3");
    }

    @Test
    void invalidJsonAndMismatchedArraysAreOneLineErrors() {
        assertThatThrownBy(() -> read("{\"nodes\":[\n{\"id\":1,}]}"))
                .isInstanceOf(InputException.class).hasMessageStartingWith("t.cpuprofile:2: ")
                .hasMessageContaining("invalid JSON");
        assertThatThrownBy(() -> read("{\"nodes\":[],\"samples\":[1,2],\"timeDeltas\":[1]}"))
                .isInstanceOf(InputException.class).hasMessageContaining("2 samples but 1 timeDeltas");
    }
}
