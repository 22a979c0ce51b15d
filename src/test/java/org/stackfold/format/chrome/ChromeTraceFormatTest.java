package org.stackfold.format.chrome;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.stackfold.collapse.InputFormats;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.Formats;
import org.stackfold.format.SpeedscopeGolden;
import org.stackfold.format.folded.FoldedWriter;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.Profile;
import org.stackfold.model.Timeline;

/** CPU profiles inside Chrome traces, read as speedscope's importFromChromeTimeline reads them. */
class ChromeTraceFormatTest {
    private static Path res(String rel) throws Exception {
        return Path.of(ChromeTraceFormatTest.class.getResource("/formats/chrome-trace/" + rel).toURI());
    }

    private static List<String> folded(Profile p) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new FoldedWriter(false).write(p, out);
        return out.toString(StandardCharsets.UTF_8).lines().toList();
    }

    private static Profile read(String json, FormatOptions o) throws Exception {
        try (Input in = Input.ofBytes("t.json", json.getBytes(StandardCharsets.UTF_8))) {
            return new ChromeTraceFormat().read(in, o);
        }
    }

    private static Profile read(String json) throws Exception {
        return read(json, FormatOptions.none());
    }

    @ParameterizedTest
    @ValueSource(strings = {"speedscope__Chrome-65-simple-timeline.json", "speedscope__Chrome-69-simple.json",
            "speedscope__Chrome-66-worker.json", "speedscope__Chrome-116-Trace-20230603T221323.json",
            "speedscope__Chrome-141-no-arg-data.json"})
    void everyThreadHasSpeedscopesStacksAndMicroseconds(String name) throws Exception {
        // a declared profile without samples is an empty profile to speedscope, no thread to a timeline
        List<SpeedscopeGolden.Golden> golden = SpeedscopeGolden.load(res(name + ".speedscope.tsv")).stream()
                .filter(g -> !g.stacks().isEmpty()).toList();
        try (Input in = Input.open(res(name + ".gz").toString())) {
            assertThat(InputFormats.choose(in, null).name()).isEqualTo("chrome-trace");
            Profile p = InputFormats.choose(in, null).read(in, FormatOptions.none());
            Map<Long, Map<String, Double>> ours = SpeedscopeGolden.byThread(p);
            assertThat(ours).hasSameSizeAs(golden);
            List<Long> threads = new ArrayList<>(ours.keySet());
            for (SpeedscopeGolden.Golden g : golden) {
                assertThat(g.unit()).isEqualTo("microseconds");
                // several profiles are named "file - thread name", one only by the file
                long thread = golden.size() == 1 ? threads.getFirst() : threads.stream()
                        .filter(t -> g.name().endsWith(" - " + p.timeline().threadName(t))).findFirst().orElseThrow();
                SpeedscopeGolden.assertSame(ours.get(thread), g, 1, 0);
            }
        }
    }

    private static final String NODES = """
            {"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1,"columnNumber":-1}},
            {"id":2,"parent":1,"callFrame":{"functionName":"main","url":"file:///a.js","lineNumber":0,"columnNumber":0}},
            {"id":3,"parent":2,"callFrame":{"functionName":"work","url":"file:///a.js","lineNumber":4,"columnNumber":2}}""";

    @Test
    void chunksAppendToTheirProfileInTimeOrderAndThreadsAreNamed() throws Exception {
        // the second chunk comes first in the file but later in time; events sort by ts
        String json = "[" + """
                {"name":"thread_name","ph":"M","pid":7,"tid":9,"ts":0,"args":{"name":"CrRendererMain"}},
                {"name":"ProfileChunk","ph":"P","pid":7,"tid":9,"ts":300,"id":"0x1","args":{"data":{"cpuProfile":{"samples":[2,2]},"timeDeltas":[10,30]}}},
                {"name":"Profile","ph":"P","pid":7,"tid":9,"ts":100,"id":"0x1","args":{"data":{"startTime":1000}}},
                {"name":"RunTask","ph":"X","pid":7,"tid":9,"ts":150,"dur":20,"args":{"data":{"frame":"x"}}},
                {"name":"ProfileChunk","ph":"P","pid":7,"tid":9,"ts":200,"id":"0x1","args":{"data":{"cpuProfile":{"nodes":[""" + NODES + """
                ],"samples":[3,3,2]},"timeDeltas":[5,10,20]}}}
                ]""";
        Profile p = read(json);
        // samples 3@5, 3@15, 2@35, 2@45, 2@75: work 30, main 40
        assertThat(folded(p)).containsExactly("main 40", "main;work 30");
        Timeline tl = p.timeline();
        assertThat(tl.size()).isEqualTo(2);
        assertThat(tl.threadId(0)).isEqualTo(9);
        assertThat(tl.threadName(9)).isEqualTo("CrRendererMain");
        assertThat(tl.timestamp(0)).isEqualTo(1005);
        assertThat(tl.weight(0)).isEqualTo(30);
        assertThat(tl.timestamp(1)).isEqualTo(1035);
        assertThat(p.valueTypes().getFirst().unit()).isEqualTo("microseconds");
        assertThat(folded(read(json, FormatOptions.none().set("thread-frames", true))))
                .containsExactly("CrRendererMain;main 40", "CrRendererMain;main;work 30");
    }

    @Test
    void aChunkOfAnUndeclaredProfileIsIgnoredWithAWarning() throws Exception {
        String json = "{\"traceEvents\":[" + """
                {"name":"ProfileChunk","ph":"P","pid":1,"tid":1,"ts":1,"id":"0x9","args":{"data":{"cpuProfile":{"nodes":[""" + NODES + """
                ],"samples":[3,2]},"timeDeltas":[1,1]}}},
                {"name":"Profile","ph":"P","pid":1,"tid":2,"ts":2,"args":{"data":{"startTime":0}}},
                {"name":"ProfileChunk","ph":"P","pid":1,"tid":2,"ts":3,"args":{"data":{"cpuProfile":{"nodes":[""" + NODES + """
                ],"samples":[3,2,2]},"timeDeltas":[1,4,1]}}}
                ]}""";
        List<String> warnings = new ArrayList<>();
        Profile p = read(json, FormatOptions.none().withWarnings(warnings::add));
        assertThat(folded(p)).containsExactly("main 1", "main;work 4");
        assertThat(warnings).containsExactly("t.json: chrome-trace: ignored 1 ProfileChunk event(s) of undeclared profiles");
    }

    @Test
    void aBareArrayMayLackItsClosingBracket() throws Exception {
        String json = "[{\"name\":\"Profile\",\"ph\":\"P\",\"pid\":1,\"tid\":1,\"ts\":0,\"args\":{\"data\":{}}},"
                + "{\"name\":\"ProfileChunk\",\"ph\":\"P\",\"pid\":1,\"tid\":1,\"ts\":1,\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":["
                + NODES + "],\"samples\":[3,2]},\"timeDeltas\":[0,7]}}},\n";
        assertThat(folded(read(json))).containsExactly("main;work 7");
    }

    @Test
    void chrome65CpuProfileEventsCarryAWholeProfile() throws Exception {
        String json = "[{\"name\":\"CpuProfile\",\"ph\":\"I\",\"pid\":1,\"tid\":1,\"ts\":0,\"args\":{\"data\":{\"cpuProfile\":{"
                + "\"nodes\":[" + NODES + "],\"samples\":[2,3,3],\"timeDeltas\":[0,2,3],\"startTime\":0,\"endTime\":9}}}}]";
        assertThat(folded(read(json))).containsExactly("main 2", "main;work 3");
    }

    @Test
    void detectionTellsSampledTracesFromDurationEvents() throws Exception {
        byte[] durations = "[{\"name\":\"RunTask\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":5,\"cat\":\"x\"}]"
                .getBytes(StandardCharsets.UTF_8);
        try (Input in = Input.ofBytes("d.json", durations)) {
            assertThat(InputFormats.choose(in, null).name()).isEqualTo("chrome-tracing");
        }
        byte[] sampled = ("[{\"name\":\"Profile\",\"ph\":\"P\",\"pid\":1,\"tid\":1,\"ts\":0,\"args\":{\"data\":{}}},"
                + "{\"name\":\"RunTask\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":5}]").getBytes(StandardCharsets.UTF_8);
        try (Input in = Input.ofBytes("s.json", sampled)) {
            assertThat(Formats.sniffed(in).name()).isEqualTo("chrome-trace");
        }
        // a CPU profile event past the first 4 KiB: found in the collapsers' 1 MiB head
        StringBuilder big = new StringBuilder("{\"traceEvents\":[");
        for (int i = 0; i < 200; i++) {
            big.append("{\"name\":\"RunTask\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":").append(i).append(",\"dur\":1},");
        }
        big.append("{\"name\":\"Profile\",\"ph\":\"P\",\"pid\":1,\"tid\":1,\"ts\":0,\"args\":{\"data\":{}}}]}");
        try (Input in = Input.ofBytes("b.json", big.toString().getBytes(StandardCharsets.UTF_8))) {
            assertThat(Formats.sniffed(in)).isNull();
            assertThat(InputFormats.choose(in, null).name()).isEqualTo("chrome-trace");
        }
    }

    @Test
    void badInputIsOneLineWithTheByteOffset() {
        assertThatThrownBy(() -> read("{\"traceEvents\":[{\"name\":\"Profile\",}]}"))
                .isInstanceOf(InputException.class)
                .hasMessageStartingWith("t.json: at byte offset 34: chrome-trace: invalid JSON");
        assertThatThrownBy(() -> read("[{\"name\":\"RunTask\",\"ph\":\"X\",\"ts\":0,\"dur\":1}]"))
                .isInstanceOf(InputException.class)
                .hasMessage("t.json: chrome-trace: no CPU profile in the trace (no Profile, ProfileChunk or CpuProfile"
                        + " events); its duration events are read by --from chrome-tracing");
        assertThatThrownBy(() -> read("[{\"name\":\"ProfileChunk\",\"args\":{\"data\":{\"cpuProfile\":{\"samples\":[1,\"x\"]}}}}]"))
                .isInstanceOf(InputException.class).hasMessageContaining("at byte offset")
                .hasMessageEndingWith("chrome-trace: a sample is not a whole number");
        assertThatThrownBy(() -> read("[{\"name\":\"ProfileChunk\",\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[{\"callFrame\":{}}]}}}}]"))
                .isInstanceOf(InputException.class).hasMessageEndingWith("chrome-trace: a node without an id");
        assertThatThrownBy(() -> read("42")).isInstanceOf(InputException.class)
                .hasMessageContaining("expected a JSON array of trace events");
        assertThatThrownBy(() -> read("{\"traceEvents\":[{\"name\":\"Profile\"}")).isInstanceOf(InputException.class)
                .hasMessageContaining("invalid JSON");
    }
}
