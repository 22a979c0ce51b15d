package org.stackfold.format.speedscope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.Formats;
import org.stackfold.format.RandomProfiles;
import org.stackfold.io.InputException;
import org.stackfold.model.CallTree;
import org.stackfold.model.Profile;
import org.stackfold.model.Timeline;

class SpeedscopeFormatTest {
    private static final SpeedscopeFormat FORMAT = new SpeedscopeFormat();
    private static Schema schema;

    @BeforeAll
    static void loadSchema() throws IOException {
        try (InputStream s = SpeedscopeFormatTest.class.getResourceAsStream("/formats/speedscope-file-format-schema.json")) {
            schema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_7).getSchema(s);
        }
    }

    static void assertValid(byte[] json) {
        List<Error> errors = schema.validate(new String(json, StandardCharsets.UTF_8), InputFormat.JSON);
        assertThat(errors).as("schema errors").isEmpty();
    }

    @Test
    void validatorRejectsABrokenFile() {
        String broken = "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[]},"
                + "\"profiles\":[{\"type\":\"sampled\",\"name\":\"x\",\"unit\":\"parsecs\",\"startValue\":0,\"endValue\":0,\"samples\":[]}]}";
        assertThat(schema.validate(broken, InputFormat.JSON)).isNotEmpty();
    }

    static List<Long> seeds() {
        return RandomProfiles.seeds(40);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void roundTripKeepsStacksCountsAndLocations(long seed) throws IOException {
        Profile p = RandomProfiles.plain(seed, 60, 12, true);
        byte[] json = RandomProfiles.write(FORMAT, p, FormatOptions.none());
        assertValid(json);
        Profile back = RandomProfiles.read(FORMAT, json, FormatOptions.none());
        assertThat(RandomProfiles.locatedStacks(back)).isEqualTo(RandomProfiles.locatedStacks(p));
        assertThat(back.valueTypes()).containsExactly(Profile.ValueType.SAMPLES);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void differentialRoundTrip(long seed) throws IOException {
        Profile p = RandomProfiles.differential(seed, 40, 8);
        byte[] json = RandomProfiles.write(FORMAT, p, FormatOptions.none());
        assertValid(json);
        Profile back = RandomProfiles.read(FORMAT, json, FormatOptions.none());
        assertThat(back.tree().isDifferential()).isTrue();
        assertThat(RandomProfiles.stacks(back, 0)).isEqualTo(RandomProfiles.stacks(p, 0));
        assertThat(RandomProfiles.stacks(back, 1)).isEqualTo(RandomProfiles.stacks(p, 1));
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void timelineKeepsTimeOrderPerThread(long seed) throws IOException {
        Profile p = RandomProfiles.timeline(seed, 200);
        byte[] json = RandomProfiles.write(FORMAT, p, FormatOptions.none());
        assertValid(json);
        Profile back = RandomProfiles.read(FORMAT, json, FormatOptions.none());
        assertThat(RandomProfiles.stacks(back)).isEqualTo(RandomProfiles.stacks(p));
        Timeline a = p.timeline();
        Timeline b = back.timeline();
        assertThat(b).isNotNull();
        assertThat(b.size()).isEqualTo(a.size());
        // Per thread (threads renumbered in order of appearance), the same sequence of stacks.
        Map<Long, List<String>> want = perThread(p);
        Map<Long, List<String>> got = perThread(back);
        assertThat(List.copyOf(got.values())).isEqualTo(List.copyOf(want.values()));
    }

    private static Map<Long, List<String>> perThread(Profile p) {
        Map<Long, List<String>> out = new java.util.LinkedHashMap<>();
        Timeline tl = p.timeline();
        for (int i = 0; i < tl.size(); i++) {
            StringBuilder sb = new StringBuilder();
            for (int f : p.tree().stack(tl.node(i))) {
                sb.append(p.frames().name(f)).append(';');
            }
            out.computeIfAbsent(tl.threadId(i), k -> new java.util.ArrayList<>()).add(sb.toString());
        }
        return out;
    }

    @Test
    void exportedTimelineListsSamplesInTimeOrder() throws IOException {
        Profile p = new Profile();
        int a = p.frames().plain("a");
        int b = p.frames().plain("b");
        CallTree t = p.tree();
        int na = t.child(CallTree.ROOT, a);
        int nb = t.child(CallTree.ROOT, b);
        Timeline tl = new Timeline("microseconds");
        int[] order = {nb, na, nb, nb, na};
        for (int i = 0; i < order.length; i++) {
            t.addSelf(order[i], 1);
            tl.add(7, 0, i, 0, order[i]);
        }
        p.setTimeline(tl);
        String json = new String(RandomProfiles.write(FORMAT, p, FormatOptions.none()), StandardCharsets.UTF_8);
        assertThat(json).contains("\"name\":\"thread 7\"")
                .contains("\"samples\":[[" + b + "],[" + a + "],[" + b + "],[" + b + "],[" + a + "]]");
    }

    @Test
    void readsEventedProfilesAndConvertsTimeUnits() throws IOException {
        String json = """
                {"$schema":"https://www.speedscope.app/file-format-schema.json",
                 "shared":{"frames":[{"name":"main"},{"name":"work","file":"w.js","line":3,"col":7}]},
                 "profiles":[{"type":"evented","name":"t1","unit":"milliseconds","startValue":0,"endValue":10,
                   "events":[{"type":"O","frame":0,"at":0},{"type":"O","frame":1,"at":1.5},
                             {"type":"C","frame":1,"at":4},{"type":"C","frame":0,"at":10}]}]}
                """;
        Profile p = RandomProfiles.read(FORMAT, json.getBytes(StandardCharsets.UTF_8), FormatOptions.none());
        assertThat(RandomProfiles.stacks(p)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "main", 7_500_000L, "main;work", 2_500_000L));
        assertThat(p.valueTypes()).containsExactly(new Profile.ValueType("time", "nanoseconds"));
        int work = p.tree().frame(p.tree().find(p.tree().find(CallTree.ROOT, 0), 1));
        assertThat(p.frames().file(work)).isEqualTo("w.js");
        assertThat(p.frames().line(work)).isEqualTo(3);
        assertThat(p.frames().column(work)).isEqualTo(7);
    }

    @Test
    void fractionalWeightsAreRoundedCumulatively() throws IOException {
        String json = """
                {"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"a"}]},
                 "profiles":[{"type":"sampled","name":"x","unit":"none","startValue":0,"endValue":3,
                   "samples":[[0],[0],[0],[0]],"weights":[0.75,0.75,0.75,0.75]}]}
                """;
        Profile p = RandomProfiles.read(FORMAT, json.getBytes(StandardCharsets.UTF_8), FormatOptions.none());
        assertThat(p.tree().totalSamples()).isEqualTo(3);
    }

    @Test
    void threadFramesAndProfileSelection() throws IOException {
        String json = """
                {"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"a"},{"name":"b"}]},
                 "profiles":[{"type":"sampled","name":"main","unit":"none","startValue":0,"endValue":2,"samples":[[0],[0,1]],"weights":[1,1]},
                   {"type":"sampled","name":"worker","unit":"none","startValue":0,"endValue":1,"samples":[[1]],"weights":[3]}]}
                """;
        byte[] data = json.getBytes(StandardCharsets.UTF_8);
        assertThat(RandomProfiles.stacks(RandomProfiles.read(FORMAT, data, FormatOptions.none().set("thread-frames", true))))
                .containsExactlyInAnyOrderEntriesOf(Map.of("main;a", 1L, "main;a;b", 1L, "worker;b", 3L));
        assertThat(RandomProfiles.stacks(RandomProfiles.read(FORMAT, data, FormatOptions.none().set("profile", "worker"))))
                .containsExactlyInAnyOrderEntriesOf(Map.of("b", 3L));
        assertThat(RandomProfiles.stacks(RandomProfiles.read(FORMAT, data, FormatOptions.none().set("profile", "0"))))
                .containsExactlyInAnyOrderEntriesOf(Map.of("a", 1L, "a;b", 1L));
        assertThatThrownBy(() -> RandomProfiles.read(FORMAT, data, FormatOptions.none().set("profile", "nope")))
                .isInstanceOf(InputException.class).hasMessageContaining("'main'");
        java.io.StringWriter info = new java.io.StringWriter();
        try (org.stackfold.io.Input in = org.stackfold.io.Input.ofBytes("x.json", data)) {
            assertThat(FORMAT.describe(in, FormatOptions.none(), new java.io.PrintWriter(info, true))).isTrue();
        }
        assertThat(info.toString()).contains("'main' sampled, 2 samples, 2 none").contains("'worker' sampled, 1 samples, 3 none");
    }

    @Test
    void badInputNamesTheByteOffset() {
        String[] bad = {
            "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[]},\"profiles\":[",
            "{\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"profiles\":[{\"type\":\"sampled\",\"name\":\"x\",\"unit\":\"none\","
                    + "\"startValue\":0,\"endValue\":1,\"samples\":[[5]],\"weights\":[1]}]}",
            "{\"shared\":{\"frames\":[]},\"profiles\":[{\"type\":\"sampled\",\"samples\":[[0]],\"weights\":[]}]}",
            "{\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"profiles\":[{\"type\":\"evented\",\"name\":\"x\",\"unit\":\"none\","
                    + "\"startValue\":0,\"endValue\":1,\"events\":[{\"type\":\"C\",\"frame\":0,\"at\":0}]}]}",
            "{\"shared\":{\"frames\":[{\"name\":7}]},\"profiles\":[]}",
            "[1,2,3]",
        };
        String huge = "{\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"profiles\":[{\"type\":\"sampled\",\"name\":\"x\","
                + "\"unit\":\"seconds\",\"startValue\":0,\"endValue\":1,\"samples\":[[0]],\"weights\":[1e300]}]}";
        assertThatThrownBy(() -> RandomProfiles.read(FORMAT, huge.getBytes(StandardCharsets.UTF_8), FormatOptions.none()))
                .isInstanceOf(InputException.class).hasMessageContaining("past 2^63");
        for (String s : bad) {
            assertThatThrownBy(() -> RandomProfiles.read(FORMAT, s.getBytes(StandardCharsets.UTF_8), FormatOptions.none()))
                    .as(s).isInstanceOf(InputException.class).hasMessageContaining("at byte offset");
        }
    }

    @Test
    void framesDifferingOnlyInKindShareOneEntry() throws IOException {
        Profile p = new Profile();
        org.stackfold.model.FrameTable ft = p.frames();
        int main = ft.plain("main");
        p.addStack(new int[] {main, ft.frame("work", org.stackfold.model.FrameKind.JIT)}, 2, 3);
        p.addStack(new int[] {main, ft.frame("work", org.stackfold.model.FrameKind.INTERPRETED)}, 2, 4);
        byte[] json = RandomProfiles.write(FORMAT, p, FormatOptions.none());
        assertValid(json);
        assertThat(new String(json, StandardCharsets.UTF_8)).contains("\"frames\":[{\"name\":\"main\"},{\"name\":\"work\"}]");
        assertThat(RandomProfiles.stacks(RandomProfiles.read(FORMAT, json, FormatOptions.none())))
                .containsExactlyEntriesOf(Map.of("main;work", 7L));
    }

    @Test
    void namesAreEscapedInJson() throws IOException {
        Profile p = new Profile();
        int[] s = {p.frames().plain("a\"b</script>\\"), p.frames().plain("ctl\u0001")};
        p.addStack(s, 2, 1);
        byte[] json = RandomProfiles.write(FORMAT, p, FormatOptions.none());
        assertValid(json);
        assertThat(RandomProfiles.stacks(RandomProfiles.read(FORMAT, json, FormatOptions.none())))
                .isEqualTo(RandomProfiles.stacks(p));
    }

    /** Random corruption of a valid file: read, or an InputException naming the offset; nothing else. */
    @ParameterizedTest
    @MethodSource("seeds")
    void corruptedInputFailsCleanly(long seed) throws IOException {
        java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
        byte[] json = RandomProfiles.write(FORMAT, RandomProfiles.plain(seed, 20, 6, true), FormatOptions.none());
        byte[] alphabet = "{}[],:\"0123456789-.eE aZ\\\u00ff".getBytes(StandardCharsets.ISO_8859_1);
        for (int round = 0; round < 40; round++) {
            byte[] bad = json.clone();
            for (int e = 1 + r.nextInt(3); e > 0; e--) {
                int at = r.nextInt(bad.length);
                if (r.nextInt(4) == 0) {
                    bad = java.util.Arrays.copyOf(bad, at);
                    break;
                }
                bad[at] = alphabet[r.nextInt(alphabet.length)];
            }
            try {
                RandomProfiles.read(FORMAT, bad, FormatOptions.none());
            } catch (InputException expected) {
                assertThat(expected.getMessage()).contains("speedscope");
            } catch (RuntimeException e) {
                org.assertj.core.api.Assertions.fail("seed " + seed + " round " + round + ": " + e, e);
            }
        }
    }

    @Test
    void sniffedByContent() {
        byte[] head = "  {\"$schema\":\"https://www.speedscope.app/file-format-schema.json\"".getBytes(StandardCharsets.UTF_8);
        assertThat(FORMAT.sniff(head, head.length)).isTrue();
        byte[] folded = "main;foo 1\n".getBytes(StandardCharsets.UTF_8);
        assertThat(FORMAT.sniff(folded, folded.length)).isFalse();
        assertThat(Formats.byName("speedscope")).isInstanceOf(SpeedscopeFormat.class);
    }
}
