package org.stackfold.format.v8log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.stackfold.collapse.InputFormats;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.SpeedscopeOracle;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.Profile;

/** The JSON of {@code node --prof-process --preprocess} read as speedscope's importer reads it. */
class V8LogFormatTest {
    static Profile read(String json) throws IOException {
        try (Input in = Input.ofBytes("t.v8log.json", json.getBytes(StandardCharsets.UTF_8))) {
            return new V8LogFormat().read(in, FormatOptions.none());
        }
    }

    @Test
    void node85LogMatchesSpeedscope() throws IOException {
        assertThat(SpeedscopeOracle.detected("v8log/simple.v8log.json.gz")).isEqualTo("v8log");
        try (Input in = Input.open(SpeedscopeOracle.resource("v8log/simple.v8log.json.gz").toString())) {
            assertThat(InputFormats.choose(in, null).name()).isEqualTo("v8log");
        }
        Profile p = SpeedscopeOracle.read("v8log/simple.v8log.json.gz", FormatOptions.none());
        Map<String, Long> expected = SpeedscopeOracle.expected("v8log/simple.v8log.json.speedscope.txt", 1);
        assertThat(expected).isNotEmpty();
        assertThat(SpeedscopeOracle.stacks(p)).isEqualTo(expected);
        assertThat(p.valueTypes().getFirst()).isEqualTo(new Profile.ValueType("cpu", "microseconds"));
    }

    @Test
    void namesFollowTheCodeTypeAndKind() throws IOException {
        // expectations checked once with speedscope 1.25.0's importer on this very JSON
        String json = """
                {"code":[
                 {"name":"/usr/bin/node","type":"SHARED_LIB"},
                 {"name":"T v8::internal::Foo(int)","type":"CPP"},
                 {"name":"work /app/x.js:4:17","type":"JS","kind":"Opt"},
                 {"name":" /app/x.js:1:1","type":"JS","kind":"Unopt"},
                 {"name":"LoadIC","type":"CODE","kind":"LoadIC"},
                 {"name":"Ldar","type":"CODE","kind":"BytecodeHandler"},
                 {"name":"CallFunction","type":"CODE","kind":"Builtin"},
                 {"name":"odd","type":"WEIRD"},
                 null],
                 "functions":[],
                 "ticks":[
                  {"tm":10,"vm":0,"s":[2,0,3,0,-1,0,0,0]},
                  {"tm":15,"vm":0,"s":[1,0,4,0,5,0]},
                  {"tm":30,"vm":0,"s":[6,0,7,0,8,0,9,0,4096,0]}]}
                """;
        assertThat(SpeedscopeOracle.stacks(read(json))).containsExactlyInAnyOrderEntriesOf(Map.of(
                // root first: even positions from the end; -1 padding skipped
                "(LIB) /usr/bin/node;(anonymous x.js:1);work", 10L,
                "(bytecode) ~Ldar;(IC) LoadIC;(c++) v8::internal::Foo", 5L,
                // 4096 is past the table: an address; 9 is one past it: (unknown type); null: (unknown type)
                "0x1000;(unknown type);(unknown type);(WEIRD) odd;(builtin) CallFunction", 15L));
    }

    @Test
    void ticksAreTakenInTimeOrder() throws IOException {
        String json = """
                {"code":[{"name":"a","type":"CPP"},{"name":"b","type":"CPP"}],"functions":[],
                 "ticks":[{"tm":50,"s":[1,0]},{"tm":20,"s":[0,0]},{"tm":20,"s":[1,0]}]}
                """;
        // sorted: 20 a (20 since 0), 20 b (0), 50 b (30)
        assertThat(SpeedscopeOracle.stacks(read(json))).containsExactlyInAnyOrderEntriesOf(Map.of("a", 20L, "b", 30L));
    }

    @Test
    void badInputIsOneLine() {
        assertThatThrownBy(() -> read("{\"code\":[],\n\"ticks\":[{\"tm\":1,\"s\":[\"x\"]}]}"))
                .isInstanceOf(InputException.class)
                .hasMessage("t.v8log.json:2: v8log: a tick's stack holds something other than whole numbers");
        assertThatThrownBy(() -> read("{\"code\":[],\n\"ticks\":{}}"))
                .isInstanceOf(InputException.class).hasMessage("t.v8log.json:2: v8log: \"ticks\" is not an array");
        assertThatThrownBy(() -> read("{\"code\":[,]}"))
                .isInstanceOf(InputException.class).hasMessageStartingWith("t.v8log.json:1: v8log: invalid JSON");
    }
}
