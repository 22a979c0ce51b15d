package org.stackfold.format.jfr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.Formats;
import org.stackfold.format.RandomProfiles;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.Profile;

/**
 * Recordings from grafana/jfr-parser's test data (async-profiler and Pyroscope agent recordings),
 * against what JDK 25's {@code jfr print} shows of them (issue 29). Origins: formats/README.md.
 */
class JfrRealFilesTest {
    @TempDir
    Path dir;

    Path resource(String name) throws IOException {
        Path p = dir.resolve(name);
        try (InputStream in = JfrRealFilesTest.class.getResourceAsStream("/formats/jfr-parser/" + name)) {
            Files.copy(in, p, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        return p;
    }

    Profile read(String name, String event, List<String> warnings) throws IOException {
        try (Input in = Input.open(resource(name).toString())) {
            FormatOptions o = FormatOptions.none().set("event", event).withWarnings(warnings::add);
            return Formats.forInput(in, null).read(in, o);
        }
    }

    @Test
    void fullEventNameReadsExactlyThatEvent() throws IOException {
        // jfr print --json --events jdk.ObjectAllocationInNewTLAB: 418 events, tlabSize summing to 173124416
        Profile p = read("uint64-ref-id.jfr.gz", "jdk.ObjectAllocationInNewTLAB", new ArrayList<>());
        assertThat(p.tree().totalSamples()).isEqualTo(173_124_416L);
    }

    @Test
    void allocationIsObjectAllocationSampleWhereTheRecordingHasIt() throws IOException {
        // the recording has all three allocation events; jfr print: 373 ObjectAllocationSample, weights 175195696
        List<String> warnings = new ArrayList<>();
        Profile p = read("uint64-ref-id.jfr.gz", "alloc", warnings);
        assertThat(p.tree().totalSamples()).isEqualTo(175_195_696L);
        assertThat(warnings).anyMatch(w -> w.contains("601 TLAB allocation events not counted"));
    }

    @Test
    void tlabEventsStandForAllocationWhereThereIsNoSample() throws IOException {
        // async-profiler's recording: 16 in-TLAB + 1 outside-TLAB events, no ObjectAllocationSample
        List<String> warnings = new ArrayList<>();
        Profile p = read("async-profiler.jfr.gz", "alloc", warnings);
        assertThat(p.tree().totalSamples()).isPositive();
        assertThat(warnings).noneMatch(w -> w.contains("not counted"));
    }

    @Test
    void wallClockEventsWeighTheirSamplesField() throws IOException {
        // jfr print --events profiler.WallClockSample: 1780 events whose samples fields sum to 26246
        assertThat(read("wall.jfr.gz", "wall", new ArrayList<>()).tree().totalSamples()).isEqualTo(26246);
        assertThat(read("wall.jfr.gz", "profiler.WallClockSample", new ArrayList<>()).tree().totalSamples())
                .isEqualTo(26246);
    }

    @Test
    void nativeFramesAreTheirSymbol() throws IOException {
        // jfr print: "libpthread-2.17.so;649be141 (deleted).pthread_cond_wait()", a Native frame of that library
        Map<String, Long> stacks = RandomProfiles.stacks(read("async-profiler.jfr.gz", "cpu", new ArrayList<>()));
        assertThat(stacks.keySet()).anyMatch(s -> s.endsWith(";pthread_cond_wait") || s.contains(";pthread_cond_wait;"));
        assertThat(stacks.keySet()).noneMatch(s -> s.contains("(deleted).") || s.contains("libjvm.so."));
    }

    @Test
    void recordingsTheJdkParserRefusesAreNamedAsSuch() {
        assertThatThrownBy(() -> read("FastSlow_2024_01_16_180855.jfr.gz", "cpu", new ArrayList<>()))
                .isInstanceOf(InputException.class)
                .hasMessageContaining("FastSlow_2024_01_16_180855.jfr.gz")
                .hasMessageContaining("jdk.jfr.consumer")
                .hasMessageContaining("Pool jdk.types.StackTrace must contain at least one element")
                .hasMessageContaining("jfr-parser");
    }

    @Test
    void libraryNames() {
        assertThat(JfrReader.isLibrary("libc-2.17.so;649be141 (deleted)")).isTrue();
        assertThat(JfrReader.isLibrary("libz.so.1.2.11")).isTrue();
        assertThat(JfrReader.isLibrary("libjvm.so")).isTrue();
        assertThat(JfrReader.isLibrary("java.lang.String")).isFalse();
    }
}
