package org.stackfold.format.tachyon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.stackfold.io.InputException;

/**
 * Each malformed file CPython 3.15.2 was given (edge/corrupt): we accept what it accepts (same
 * sample count and statistics) and reject what it rejects, at the same stage, with one line
 * naming the file, the offset and CPython's description of the problem.
 */
class TachyonCorruptTest {
    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> cases() {
        return (List<Map<String, Object>>) Fixtures.json(new String(
                Fixtures.bytes("edge/corrupt/expected_results.json"), StandardCharsets.UTF_8));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    @SuppressWarnings("unchecked")
    void sameVerdictAsCPython(Map<String, Object> c) {
        String name = (String) c.get("file");
        byte[] data = Fixtures.bytes("edge/corrupt/" + name);
        if (Boolean.TRUE.equals(c.get("ok"))) {
            TachyonFile f = TachyonFile.open(name, MemorySegment.ofArray(data));
            TachyonReplay r = new TachyonReplay(f);
            r.run((t, s, ts, n) -> { });
            assertThat(r.samples()).isEqualTo(((BigInteger) c.get("replayed")).longValue());
            List<Object> st = (List<Object>) c.get("stats_info");
            TachyonFile.Stats s = f.stats();
            if (st.get(0) == null) {
                assertThat(s).isNull();
            } else {
                assertThat(s.duration()).isEqualTo((Double) st.get(0));
                assertThat(s.sampleRate()).isEqualTo((Double) st.get(1));
                assertThat(s.hasErrorRate() ? (Object) s.errorRate() : null).isEqualTo(st.get(2));
                assertThat(s.hasMissedSamples() ? (Object) s.missedSamples() : null).isEqualTo(st.get(3));
            }
            return;
        }
        String expected = (String) c.get("message");
        int but = expected.indexOf(", but this is");
        String core = but >= 0 ? expected.substring(0, but) : expected;
        Runnable action = "open".equals(c.get("stage"))
                ? () -> TachyonFile.open(name, MemorySegment.ofArray(data))
                : () -> {
                    TachyonFile f = TachyonFile.open(name, MemorySegment.ofArray(data));
                    new TachyonReplay(f).run((t, s, ts, n) -> { });
                };
        if ("replay".equals(c.get("stage"))) {
            TachyonFile.open(name, MemorySegment.ofArray(data)); // opening must succeed
        }
        assertThatThrownBy(action::run)
                .isInstanceOf(InputException.class)
                .hasMessageStartingWith(name + ": at byte offset ")
                .hasMessageContaining(core)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
}
