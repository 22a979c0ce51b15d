package org.stackfold.format.tachyon;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/** Every CPython-written fixture decodes exactly as CPython 3.15.2's own reader decodes it. */
class TachyonConformanceTest {
    static final List<String> GOOD = Fixtures.GOOD;

    @ParameterizedTest
    @FieldSource("GOOD")
    void samplesEqualCPythonReplay(String name) {
        TachyonFile f = Fixtures.open(name);
        List<String> ours = Fixtures.decodeSamples(f);
        List<String> theirs = Fixtures.replaySamples(name);
        assertThat(ours).hasSameSizeAs(theirs);
        for (int i = 0; i < ours.size(); i++) {
            assertThat(ours.get(i)).as("sample %d", i).isEqualTo(theirs.get(i));
        }
    }

    @ParameterizedTest
    @FieldSource("GOOD")
    @SuppressWarnings("unchecked")
    void headerAndStatsEqualCPythonInfo(String name) {
        Map<String, Object> all = Fixtures.info(name);
        Map<String, Object> info = (Map<String, Object>) all.get("info");
        Map<String, Object> stats = (Map<String, Object>) all.get("reader_stats");
        TachyonFile f = Fixtures.open(name);
        assertThat(num(info, "version")).isEqualTo(f.version());
        assertThat((List<Object>) info.get("python_version")).containsExactly(
                BigInteger.valueOf(f.pyMajor()), BigInteger.valueOf(f.pyMinor()), BigInteger.valueOf(f.pyMicro()));
        assertThat(info.get("start_time_us").toString()).isEqualTo(Long.toUnsignedString(f.startTime()));
        assertThat(num(info, "sample_interval_us")).isEqualTo(f.interval());
        assertThat(num(info, "sample_count")).isEqualTo(f.sampleCount());
        assertThat(num(info, "thread_count")).isEqualTo(f.threadCount());
        assertThat(num(info, "string_count")).isEqualTo(f.stringCount());
        assertThat(num(info, "frame_count")).isEqualTo(f.frameCount());
        assertThat(num(info, "compression_type")).isEqualTo(f.compression());
        assertThat(info.get("mode")).isEqualTo(f.mode() < 0 ? null : BigInteger.valueOf(f.mode()));
        assertThat(info.get("capture_features")).isEqualTo(f.captureFeatures() < 0 ? null
                : BigInteger.valueOf(f.captureFeatures()));
        TachyonFile.Stats s = f.stats();
        if (info.get("duration_sec") == null) {
            assertThat(s).isNull();
        } else {
            assertThat(s.duration()).isEqualTo((Double) info.get("duration_sec"));
            assertThat(s.sampleRate()).isEqualTo((Double) info.get("sample_rate"));
            assertThat(info.get("error_rate")).isEqualTo(s.hasErrorRate() ? s.errorRate() : null);
            assertThat(info.get("missed_samples")).isEqualTo(s.hasMissedSamples() ? s.missedSamples() : null);
        }
        TachyonReplay r = new TachyonReplay(f);
        r.run((t, st, ts, n) -> { });
        assertThat(r.samples()).isEqualTo(num(all, "replayed"));
        assertThat(r.records(Tachyon.REPEAT)).isEqualTo(num(stats, "repeat_records"));
        assertThat(r.records(Tachyon.FULL)).isEqualTo(num(stats, "full_records"));
        assertThat(r.records(Tachyon.SUFFIX)).isEqualTo(num(stats, "suffix_records"));
        assertThat(r.records(Tachyon.POP_PUSH)).isEqualTo(num(stats, "pop_push_records"));
        assertThat(r.repeatSamples()).isEqualTo(num(stats, "repeat_samples"));
    }

    private static long num(Map<String, Object> m, String k) {
        return ((BigInteger) m.get(k)).longValue();
    }
}
