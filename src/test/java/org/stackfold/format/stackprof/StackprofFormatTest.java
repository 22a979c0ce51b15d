package org.stackfold.format.stackprof;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.stackfold.collapse.InputFormats;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.SpeedscopeOracle;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.Profile;

/** Ruby stackprof JSON read as speedscope's importer reads it. */
class StackprofFormatTest {
    static Profile read(String json) throws IOException {
        try (Input in = Input.ofBytes("t.json", json.getBytes(StandardCharsets.UTF_8))) {
            return new StackprofFormat().read(in, FormatOptions.none());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"simple-stackprof.json", "simple-cpu-stackprof.json", "object-stackprof.json",
            "stackprof-last-frame-no-name.json", "ruby-stackprof.json.gz"})
    void sameStacksAndWeightsAsSpeedscope(String file) throws IOException {
        assertThat(SpeedscopeOracle.detected("stackprof/" + file)).isEqualTo("stackprof");
        try (Input in = Input.open(SpeedscopeOracle.resource("stackprof/" + file).toString())) {
            assertThat(InputFormats.choose(in, null).name()).isEqualTo("stackprof");
        }
        Profile p = SpeedscopeOracle.read("stackprof/" + file, FormatOptions.none());
        String oracle = file.endsWith(".gz") ? file.replace(".gz", ".speedscope.txt.gz") : file + ".speedscope.txt";
        Map<String, Long> expected = SpeedscopeOracle.expected("stackprof/" + oracle, 1);
        assertThat(expected).isNotEmpty();
        assertThat(SpeedscopeOracle.stacks(p)).isEqualTo(expected);
    }

    private static final String FRAMES = "\"frames\":{\"1\":{\"name\":\"main\",\"file\":\"a.rb\",\"line\":3},"
            + "\"2\":{\"name\":\"work\",\"file\":\"a.rb\",\"line\":9},\"3\":{\"name\":\"(garbage collection)\"},\"4\":{\"file\":\"b.rb\"}}";

    @Test
    void wallModeWeighsEachRecordByItsTimestampDeltas() throws IOException {
        Profile p = read("{\"mode\":\"wall\",\"interval\":1000," + FRAMES
                + ",\"raw\":[2,1,2,2, 1,1,1, 2,1,4,1],\"raw_timestamp_deltas\":[10,20,5,7]}");
        assertThat(SpeedscopeOracle.stacks(p)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "main;work", 30L, "main", 5L, "main;(unknown)", 7L));
        assertThat(p.valueTypes().getFirst()).isEqualTo(new Profile.ValueType("wall", "microseconds"));
        int work = -1;
        for (int f = 0; f < p.frames().size(); f++) {
            work = p.frames().name(f).equals("work") ? f : work;
        }
        assertThat(p.frames().file(work)).isEqualTo("a.rb");
        assertThat(p.frames().line(work)).isEqualTo(9);
    }

    @Test
    void cpuModeWeighsCountTimesIntervalAndObjectModeCounts() throws IOException {
        String raw = ",\"raw\":[2,1,2,3],\"raw_timestamp_deltas\":[1,1,1]}";
        assertThat(SpeedscopeOracle.stacks(read("{\"mode\":\"cpu\",\"interval\":250," + FRAMES + raw)))
                .containsExactly(Map.entry("main;work", 750L));
        Profile objects = read("{\"mode\":\"object\",\"interval\":1," + FRAMES + raw);
        assertThat(SpeedscopeOracle.stacks(objects)).containsExactly(Map.entry("main;work", 3L));
        assertThat(objects.valueTypes().getFirst()).isEqualTo(new Profile.ValueType("objects", "count"));
    }

    @Test
    void garbageCollectionAloneGoesOnTopOfTheStackBefore() throws IOException {
        Profile p = read("{\"mode\":\"cpu\",\"interval\":1," + FRAMES + ",\"raw\":[2,1,2,1, 1,3,2, 1,3,4, 2,3,1,1]}");
        // the second gc nests on the first, as speedscope's previous stack is the gc stack itself;
        // gc inside a longer stack stays where it is
        assertThat(SpeedscopeOracle.stacks(p)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "main;work", 1L, "main;work;(garbage collection)", 2L,
                "main;work;(garbage collection);(garbage collection)", 4L, "(garbage collection);main", 1L));
    }

    @Test
    void badInputIsOneLine() {
        assertThatThrownBy(() -> read("{\"mode\":\"cpu\",\"frames\":{\"1\":{\"name\":\"a\"}},\"raw\":[1,7,1]}"))
                .isInstanceOf(InputException.class).hasMessage("t.json: stackprof: raw[1]: frame 7 is not in \"frames\"");
        assertThatThrownBy(() -> read("{\"mode\":\"cpu\",\"frames\":{},\"raw\":[5,1]}"))
                .isInstanceOf(InputException.class).hasMessage("t.json: stackprof: raw[0]: a stack of 5 frames does not fit in raw");
        assertThatThrownBy(() -> read("{\"mode\":\"wall\",\"frames\":{\"1\":{}},\"raw\":[1,1,2],\"raw_timestamp_deltas\":[4]}"))
                .isInstanceOf(InputException.class).hasMessage("t.json: stackprof: raw counts more samples than the 1 raw_timestamp_deltas");
        assertThatThrownBy(() -> read("{\"mode\":\"wall\",\n\"frames\":{\"x\":{}}}"))
                .isInstanceOf(InputException.class).hasMessage("t.json:2: stackprof: frame id \"x\" is not a number");
        assertThatThrownBy(() -> read("{\"mode\":\"wall\",\n\"raw\":[1,]}"))
                .isInstanceOf(InputException.class).hasMessageStartingWith("t.json:2: stackprof: invalid JSON");
    }

    @Test
    void sniffingWantsStackprofsKeys() {
        byte[] yes = "{\"version\":1.2,\"mode\":\"wall\",\"interval\":1000,\"samples\":3,\"frames\":{".getBytes();
        byte[] no = "{\"mode\":\"dark\",\"theme\":1}".getBytes();
        assertThat(new StackprofFormat().sniff(yes, yes.length)).isTrue();
        assertThat(new StackprofFormat().sniff(no, no.length)).isFalse();
    }
}
