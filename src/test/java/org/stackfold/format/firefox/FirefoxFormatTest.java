package org.stackfold.format.firefox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.stackfold.collapse.InputFormats;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.SpeedscopeGolden;
import org.stackfold.format.folded.FoldedWriter;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.Profile;
import org.stackfold.model.Timeline;

/** The Firefox profiler's Gecko and processed formats read into the model. */
class FirefoxFormatTest {
    static Path res(String rel) throws Exception {
        return Path.of(FirefoxFormatTest.class.getResource("/formats/firefox/" + rel).toURI());
    }

    static List<String> folded(Profile p) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new FoldedWriter(false).write(p, out);
        return out.toString(StandardCharsets.UTF_8).lines().toList();
    }

    static Profile read(String json, FormatOptions o) throws Exception {
        try (Input in = Input.ofBytes("t.json", json.getBytes(StandardCharsets.UTF_8))) {
            return new FirefoxFormat().read(in, o);
        }
    }

    static Profile read(String json) throws Exception {
        return read(json, FormatOptions.none());
    }

    @ParameterizedTest
    @ValueSource(strings = {"speedscope__Firefox-59-simple-firefox.json", "speedscope__Firefox-61-recursion.json",
            "speedscope__Firefox-63-simple-firefox.json"})
    void speedscopesViewOfAGeckoFileHasItsStacksAndTimes(String name) throws Exception {
        SpeedscopeGolden.Golden golden = SpeedscopeGolden.load(res(name + ".speedscope.tsv")).getFirst();
        assertThat(golden.unit()).isEqualTo("milliseconds");
        try (Input in = Input.open(res(name + ".gz").toString())) {
            assertThat(InputFormats.choose(in, null).name()).isEqualTo("firefox");
            Profile p = InputFormats.choose(in, null).read(in, FormatOptions.none().set("firefox.speedscope", true));
            Map<Long, Map<String, Double>> ours = SpeedscopeGolden.byThread(p);
            assertThat(ours).hasSize(1);
            assertThat(p.timeline().threadName(ours.keySet().iterator().next())).isEqualTo("GeckoMain");
            // ours in whole microseconds between rounded sample times: within 1 µs a sample of speedscope's ms
            SpeedscopeGolden.assertSame(ours.values().iterator().next(), golden, 1000, 2 * golden.stacks().size() + 40);
        }
    }

    @Test
    void byDefaultEveryThreadAndNativeFrameIsKept() throws Exception {
        try (Input in = Input.open(res("speedscope__Firefox-63-simple-firefox.json.gz").toString())) {
            Profile p = new FirefoxFormat().read(in, FormatOptions.none());
            assertThat(folded(p)).anyMatch(l -> l.startsWith("(root);XRE_InitChildProcess;"))
                    .anyMatch(l -> l.contains(";js::RunScript;alpha;beta;gamma "));
            assertThat(p.valueTypes().getFirst().unit()).isEqualTo("microseconds");
        }
    }

    @Test
    void cpythonGeckoOutputReadsPerThreadInTimeOrder() throws Exception {
        try (Input in = Input.open(res("cpython-gecko.json").toString())) {
            assertThat(InputFormats.choose(in, null).name()).isEqualTo("firefox");
            Profile p = new FirefoxFormat().read(in, FormatOptions.none());
            assertThat(folded(p)).containsExactly("main 1", "main;compute 1", "main;compute;<GC> 1",
                    "main;compute;inner \"quoted\" ünï 2", "worker;time.sleep 2");
            Timeline tl = p.timeline();
            assertThat(tl.size()).isEqualTo(7);
            assertThat(tl.threadId(0)).isEqualTo(4242);
            assertThat(tl.threadName(4243)).isEqualTo("Thread-4243");
            assertThat(tl.timestamp(1)).isEqualTo(1020); // 1.02 ms
            assertThat(p.frames().file(p.tree().frame(tl.node(0)))).isEqualTo("work.py");
            assertThat(folded(read(java.nio.file.Files.readString(res("cpython-gecko.json")),
                    FormatOptions.none().set("thread-frames", true)))).contains("Thread-4243;worker;time.sleep 2");
        }
    }

    /** Version 66+: shared tables, prefixOffset, sources, timeDeltas, tracing-ms weights. */
    @Test
    void sharedTablesOfRecentVersions() throws Exception {
        String json = """
                {"meta":{"interval":1,"startTime":0,"version":32,"preprocessedProfileVersion":70,"categories":[]},
                 "threads":[{"name":"GeckoMain","pid":"1","tid":7,
                   "samples":{"stack":[2,1,null,2],"timeDeltas":[0,1.5,1,1],"weight":[2,1,9,0.5],"weightType":"tracing-ms","length":4}}],
                 "shared":{"stringArray":["main","a.js","work"],
                   "sources":{"filename":[1],"id":[null],"length":1},
                   "funcTable":{"name":[0,2],"source":[0,0],"lineNumber":[1,5],"columnNumber":[null,3],"length":2},
                   "frameTable":{"func":[0,1],"line":[1,6],"column":[null,null],"length":2},
                   "stackTable":{"frame":[0,1,1],"prefixOffset":[0,1,1],"length":3}}}
                """;
        Profile p = read(json);
        // stack 2 is work under work under main (offsets point one back)
        assertThat(folded(p)).containsExactly("main;work 1000", "main;work;work 2500");
        assertThat(p.timeline().timestamp(1)).isEqualTo(1500);
        assertThat(p.frames().file(p.tree().frame(p.timeline().node(0)))).isEqualTo("a.js");
        assertThat(p.frames().line(p.tree().frame(p.timeline().node(0)))).isEqualTo(5);
    }

    @Test
    void geckoTablesFollowTheirSchemaAndChildProcessesShareTheClock() throws Exception {
        String thread = """
                {"name":"%s","tid":%d,"pid":1,
                 "samples":{"schema":{"stack":0,"time":1,"eventDelay":2},"data":[[1,10.0,0],[0,11.0,0],[null,12.5,0],[1,13.0,0]]},
                 "stackTable":{"schema":{"frame":0,"prefix":1},"data":[[0,null],[1,0]]},
                 "frameTable":{"schema":{"location":0,"relevantForJS":1,"line":2},"data":[[0,false,null],[1,false,3]]},
                 "stringTable":["Startup::XRE_Main","run (file:///x.js:3:4)"]}""";
        String json = "{\"meta\":{\"interval\":1,\"startTime\":1000,\"stackwalk\":1,\"version\":20},\"threads\":["
                + thread.formatted("GeckoMain", 1) + "],\"processes\":[{\"meta\":{\"startTime\":1100},\"threads\":["
                + thread.formatted("Content", 2) + "]}]}";
        Profile p = read(json);
        assertThat(folded(p)).containsExactly("Startup::XRE_Main 3000", "Startup::XRE_Main;run 2000");
        Timeline tl = p.timeline();
        assertThat(tl.threadId(2)).isEqualTo(2);
        assertThat(tl.timestamp(2)).isEqualTo(110_000); // 10 ms + the child's 100 ms later start
        int run = p.tree().frame(tl.node(0));
        assertThat(p.frames().file(run)).isEqualTo("file:///x.js");
        assertThat(p.frames().column(run)).isEqualTo(5);
        assertThat(folded(read(json, FormatOptions.none().set("firefox.speedscope", true)))).containsExactly("run 1000");
        // a line past an int is no line, not an error
        Profile huge = read(json.replace("run (file:///x.js:3:4)", "run (file:///x.js:99999999999:4)"));
        assertThat(huge.frames().line(huge.tree().frame(huge.timeline().node(0)))).isEqualTo(org.stackfold.model.FrameTable.NONE);
    }

    @Test
    void badInputIsOneLineWithTheByteOffset() {
        assertThatThrownBy(() -> read("{\"meta\":{},\"threads\":[{\"name\":}]}"))
                .isInstanceOf(InputException.class).hasMessageStartingWith("t.json: at byte offset 30: firefox: invalid JSON");
        assertThatThrownBy(() -> read("{\"meta\":{}}")).isInstanceOf(InputException.class)
                .hasMessage("t.json: firefox: no \"threads\" (not a Firefox profiler file)");
        assertThatThrownBy(() -> read("[1]")).isInstanceOf(InputException.class)
                .hasMessage("t.json: at byte offset 0: firefox: expected a JSON object");
        assertThatThrownBy(() -> read("{\"threads\":[\"{}\"]}")).isInstanceOf(InputException.class)
                .hasMessageContaining("a thread is not a JSON object");
        String badStack = "{\"threads\":[{\"name\":\"T\",\"samples\":{\"stack\":[5],\"time\":[0]},\"stackTable\":{\"frame\":[0],\"prefix\":[null]},"
                + "\"frameTable\":{\"func\":[0]},\"funcTable\":{\"name\":[0]},\"stringArray\":[\"f\"]}]}";
        assertThatThrownBy(() -> read(badStack)).isInstanceOf(InputException.class)
                .hasMessage("t.json: firefox: thread T: a sample names stack 5, past the stack table's 1");
        assertThatThrownBy(() -> read(badStack.replace("[5]", "[0]").replace("\"prefix\":[null]", "\"prefix\":[0]")))
                .isInstanceOf(InputException.class).hasMessageContaining("prefixes form a cycle");
        assertThatThrownBy(() -> read(badStack.replace("[5]", "[0]").replace("\"name\":[0]", "\"name\":[3]")))
                .isInstanceOf(InputException.class).hasMessageContaining("string 3 is past the string table's 1");
        assertThatThrownBy(() -> read(badStack.replace("[5]", "[0]").replace("\"stack\":[0]", "\"stack\":[0]")
                .replace("\"frame\":[0]", "\"frame\":[4]"))).isInstanceOf(InputException.class)
                .hasMessageContaining("a stack names frame 4, past the frame table");
        assertThatThrownBy(() -> read("{\"threads\":[{\"stackTable\":{\"frame\":[99999999999]}}]}"))
                .isInstanceOf(InputException.class).hasMessageContaining("a table value out of range");
    }
}
