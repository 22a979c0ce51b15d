package org.stackfold.format.firefox;

import static org.assertj.core.api.Assertions.assertThat;

import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.RandomProfiles;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameKind;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;
import org.stackfold.model.Timeline;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The processed-format writer: what it writes satisfies the profiler's version-57 layout (a schema
 * from the profiler's types, plus every cross-reference), and reads back with the same threads,
 * sample order, times, weights, names and locations.
 */
class FirefoxWriterTest {
    private static final FirefoxFormat FORMAT = new FirefoxFormat();
    private static Schema schema;

    @BeforeAll
    static void loadSchema() throws IOException {
        try (InputStream s = FirefoxWriterTest.class.getResourceAsStream("/formats/firefox/processed-57.schema.json")) {
            schema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_7).getSchema(s);
        }
    }

    /** Schema, then what a schema cannot say: lengths agree, indexes point inside their tables, prefixes come first. */
    static void assertValid(byte[] json) {
        String text = new String(json, StandardCharsets.UTF_8);
        List<Error> errors = schema.validate(text, InputFormat.JSON);
        assertThat(errors).as("schema errors").isEmpty();
        JsonNode root = JsonMapper.builder().build().readTree(text);
        int strings = root.get("shared").get("stringArray").size();
        for (JsonNode t : root.get("threads")) {
            JsonNode samples = t.get("samples");
            int n = samples.get("length").asInt();
            assertThat(samples.get("stack").size()).isEqualTo(n);
            assertThat(samples.get("time").size()).isEqualTo(n);
            if (!samples.get("weight").isNull()) {
                assertThat(samples.get("weight").size()).isEqualTo(n);
            }
            JsonNode stacks = t.get("stackTable");
            JsonNode frames = t.get("frameTable");
            JsonNode funcs = t.get("funcTable");
            int nStacks = stacks.get("length").asInt();
            int nFrames = frames.get("length").asInt();
            int nFuncs = funcs.get("length").asInt();
            for (JsonNode s : samples.get("stack")) {
                assertThat(s.asInt()).isLessThan(nStacks);
            }
            for (String c : List.of("frame", "prefix")) {
                assertThat(stacks.get(c).size()).as(c).isEqualTo(nStacks);
            }
            for (int i = 0; i < nStacks; i++) {
                JsonNode prefix = stacks.get("prefix").get(i);
                assertThat(prefix.isNull() || prefix.asInt() < i).as("prefix of stack %d comes first", i).isTrue();
                assertThat(stacks.get("frame").get(i).asInt()).isLessThan(nFrames);
            }
            frames.properties().forEach(e -> {
                if (!e.getKey().equals("length")) {
                    assertThat(e.getValue().size()).as("frameTable." + e.getKey()).isEqualTo(nFrames);
                }
            });
            for (JsonNode f : frames.get("func")) {
                assertThat(f.asInt()).isLessThan(nFuncs);
            }
            funcs.properties().forEach(e -> {
                if (!e.getKey().equals("length")) {
                    assertThat(e.getValue().size()).as("funcTable." + e.getKey()).isEqualTo(nFuncs);
                }
            });
            for (String c : List.of("name", "fileName")) {
                for (JsonNode s : funcs.get(c)) {
                    assertThat(s.isNull() || s.asInt() < strings).as("funcTable." + c).isTrue();
                }
            }
        }
    }

    static List<Long> seeds() {
        return RandomProfiles.seeds(30);
    }

    /** Samples on up to four threads at rising times, weights 1 or random, names that need escaping. */
    static Profile timeline(long seed, boolean weighted, String unit) {
        SplittableRandom r = new SplittableRandom(seed);
        Profile p = new Profile(new FrameTable(), new CallTree(1), List.of(new Profile.ValueType("cpu", unit)));
        FrameTable ft = p.frames();
        Timeline tl = new Timeline("microseconds");
        String[] names = {"main", "q\"uote", "back\\slash", "ctl\u0001x", "caf\u00e9", "\u65e5\u672c", "a<b>&c", "x;y"};
        int[] pool = new int[1 + r.nextInt(12)];
        for (int i = 0; i < pool.length; i++) {
            String name = names[r.nextInt(names.length)] + i;
            pool[i] = r.nextBoolean() ? ft.plain(name) : ft.frame(name, FrameKind.UNKNOWN, "src/" + r.nextInt(3) + ".js",
                    1 + r.nextInt(99), FrameTable.NONE, r.nextBoolean() ? FrameTable.NONE : 1 + r.nextInt(40),
                    FrameTable.NONE, FrameTable.NONE);
        }
        int threads = 1 + r.nextInt(4);
        for (int t = 0; t < threads; t++) {
            if (r.nextBoolean()) {
                tl.nameThread(100 + t, "worker \"" + t + "\"");
            }
        }
        long time = r.nextInt(1_000_000);
        int[] buf = new int[10];
        for (int i = 0, n = 1 + r.nextInt(200); i < n; i++) {
            int depth = 1 + r.nextInt(buf.length);
            for (int d = 0; d < depth; d++) {
                buf[d] = pool[r.nextInt(pool.length)];
            }
            int node = p.tree().path(buf, 0, depth);
            long w = weighted ? 1 + r.nextInt(5000) : 1;
            p.tree().addSelf(node, w);
            time += r.nextInt(3000);
            tl.add(100 + r.nextInt(threads), 0, time, 0, node, w);
        }
        p.setTimeline(tl);
        return p;
    }

    /** Per thread, in order: "thread|name|time-from-first|weight|stack with locations". */
    static List<String> samples(Profile p) {
        Timeline tl = p.timeline();
        long first = Long.MAX_VALUE;
        for (int i = 0; i < tl.size(); i++) {
            first = Math.min(first, tl.timestamp(i));
        }
        List<String> out = new ArrayList<>();
        for (long thread : tl.size() == 0 ? new long[0] : threadsInOrder(tl)) {
            for (int i = 0; i < tl.size(); i++) {
                if (tl.threadId(i) != thread) {
                    continue;
                }
                StringBuilder sb = new StringBuilder().append(thread).append('|').append(tl.threadName(thread)).append('|')
                        .append(tl.timestamp(i) - first).append('|').append(tl.weight(i)).append('|');
                for (int f : p.tree().stack(tl.node(i))) {
                    FrameTable ft = p.frames();
                    sb.append(ft.name(f)).append('@').append(ft.file(f)).append(':').append(ft.line(f)).append(':')
                            .append(ft.column(f)).append(';');
                }
                out.add(sb.toString());
            }
        }
        return out;
    }

    private static long[] threadsInOrder(Timeline tl) {
        return java.util.stream.IntStream.range(0, tl.size()).mapToLong(tl::threadId).distinct().toArray();
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void timelineRoundTripKeepsThreadsOrderTimesAndWeights(long seed) throws IOException {
        for (String unit : List.of("count", "microseconds")) {
            Profile p = timeline(seed, seed % 2 == 0, unit);
            byte[] json = RandomProfiles.write(FORMAT, p, FormatOptions.none());
            assertValid(json);
            Profile back = RandomProfiles.read(FORMAT, json, FormatOptions.none());
            Timeline tl = p.timeline();
            for (long t : threadsInOrder(tl)) {
                if (tl.threadName(t) == null) {
                    tl.nameThread(t, "thread " + t); // the writer names unnamed threads so
                }
            }
            assertThat(samples(back)).as("seed %d %s", seed, unit).isEqualTo(samples(p));
            assertThat(back.valueTypes().getFirst().unit()).isEqualTo(unit.equals("count") ? "count" : "microseconds");
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void aggregateRoundTripKeepsStacksCountsAndLocations(long seed) throws IOException {
        Profile p = RandomProfiles.plain(seed, 60, 12, true);
        byte[] json = RandomProfiles.write(FORMAT, p, FormatOptions.none());
        assertValid(json);
        assertThat(RandomProfiles.locatedStacks(RandomProfiles.read(FORMAT, json, FormatOptions.none())))
                .isEqualTo(RandomProfiles.locatedStacks(p));
    }

    @Test
    void theSchemaHasTeeth() throws IOException {
        String json = new String(RandomProfiles.write(FORMAT, RandomProfiles.plain(3, 5, 3, false), FormatOptions.none()),
                StandardCharsets.UTF_8);
        assertThat(schema.validate(json.replace("\"tid\"", "\"tidy\""), InputFormat.JSON)).isNotEmpty();
        assertThat(schema.validate(json.replace("\"preprocessedProfileVersion\":57", "\"preprocessedProfileVersion\":5"),
                InputFormat.JSON)).isNotEmpty();
        assertThat(schema.validate(json.replace("\"color\":\"grey\"", "\"color\":\"red\""), InputFormat.JSON)).isNotEmpty();
    }

    @Test
    void namesAreJsonEscaped() throws IOException {
        Profile p = new Profile();
        p.addStack(new int[] {p.frames().plain("a\"b"), p.frames().plain("c\\d\u0001\n</script>")}, 2, 3);
        String json = new String(RandomProfiles.write(FORMAT, p, FormatOptions.none()), StandardCharsets.UTF_8);
        assertThat(json).contains("\"a\\\"b\"").contains("\"c\\\\d\\u0001\\n</script>\"");
        assertValid(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void anEmptyProfileIsAValidFileWithOneEmptyThread() throws IOException {
        byte[] json = RandomProfiles.write(FORMAT, new Profile(), FormatOptions.none());
        assertValid(json);
        assertThat(RandomProfiles.stacks(RandomProfiles.read(FORMAT, json, FormatOptions.none()))).isEmpty();
    }
}
