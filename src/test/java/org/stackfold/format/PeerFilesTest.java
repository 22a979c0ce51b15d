package org.stackfold.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.Profile;

/**
 * Files other tools wrote (speedscope's sample profiles: a Go pprof CPU profile, a JDK JFR recording,
 * speedscope JSON), read through format detection, against the self and total weights speedscope's
 * own importers record in its snapshot tests. See src/test/resources/formats/README.md.
 */
class PeerFilesTest {
    @TempDir
    Path dir;

    private Path resource(String name) throws IOException {
        Path p = dir.resolve(name.replace('/', '_'));
        try (InputStream in = PeerFilesTest.class.getResourceAsStream("/formats/" + name)) {
            Files.copy(in, p);
        }
        return p;
    }

    private static Profile read(Path p, FormatOptions o) throws IOException {
        return PeerTables.read(p, o);
    }

    private static String format(Path p) throws IOException {
        try (Input in = Input.open(p.toString())) {
            return Formats.forInput(in, null).name();
        }
    }

    /** The expected table, names in Stackfold's form (speedscope writes Java frames as Class:method). */
    private static Map<String, long[]> expected(String resource, boolean java) throws IOException {
        return PeerTables.expected(resource, name -> {
            if (!java) {
                return name;
            }
            int c = name.lastIndexOf(':');
            return name.substring(0, c) + "." + name.substring(c + 1);
        });
    }

    private static void assertWeights(Profile p, Map<String, long[]> want) {
        PeerTables.assertWeights(p, want);
    }

    @Test
    void goPprofCpuProfile() throws IOException {
        Path p = resource("pprof-go-simple.prof");
        assertThat(format(p)).isEqualTo("pprof"); // Go writes time_nanos first; sniffed anyway
        Profile profile = read(p, FormatOptions.none());
        assertThat(profile.valueTypes()).containsExactly(new Profile.ValueType("cpu", "nanoseconds"));
        assertWeights(profile, expected("pprof-go-simple.expected.tsv", false));
        Profile samples = read(p, FormatOptions.none().set("sample-type", "samples"));
        assertThat(samples.tree().totalSamples()).isEqualTo(150);
        int alpha = -1;
        for (int f = 0; f < profile.frames().size(); f++) {
            if (profile.frames().name(f).equals("main.alpha")) {
                alpha = f;
            }
        }
        assertThat(profile.frames().file(alpha)).endsWith("sample/programs/go/simple.go");
    }

    /** Profiles Go 1.19 wrote (mappings, addresses, inlined lines), against `go tool pprof -top`. */
    @ParameterizedTest
    @CsvSource({"go/go119-cpu.pb.gz, '', go/go119-cpu.expected.tsv",
        "go/go119-heap.pb.gz, alloc_space, go/go119-heap.alloc_space.expected.tsv",
        "go/go119-heap.pb.gz, '', go/go119-heap.inuse_space.expected.tsv"})
    void goProfilesMatchGoToolPprof(String file, String sampleType, String table) throws IOException {
        Path p = resource(file);
        assertThat(format(p)).isEqualTo("pprof");
        FormatOptions o = FormatOptions.none();
        if (!sampleType.isEmpty()) {
            o.set("sample-type", sampleType);
        }
        Map<String, long[]> want = new LinkedHashMap<>(expected(table, false));
        want.values().removeIf(w -> w[1] == 0); // go lists functions of other sample types with 0
        assertWeights(read(p, o), want);
    }

    @ParameterizedTest
    @CsvSource({"cpu, jfr-heavy.cpu.expected.tsv", "'cpu,native', jfr-heavy.cpu+native.expected.tsv"})
    void jdkRecordingMatchesSpeedscopesJfrImporter(String event, String table) throws IOException {
        Path p = resource("jfr-heavy.jfr");
        assertThat(format(p)).isEqualTo("jfr");
        assertWeights(read(p, FormatOptions.none().set("event", event)), expected(table, true));
    }

    @Test
    void speedscopeSampleFiles() throws IOException {
        Profile evented = read(resource("speedscope/0.0.1_simple.speedscope.json"), FormatOptions.none());
        assertThat(RandomProfiles.stacks(evented)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "a;b;c", 5L, "a;b;d", 4L, "a;b", 5L));
        Profile sampled = read(resource("speedscope/0.1.2_simple-sampled.speedscope.json"), FormatOptions.none());
        assertThat(sampled.valueTypes()).containsExactly(new Profile.ValueType("time", "nanoseconds"));
        assertThat(RandomProfiles.stacks(sampled)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "a;b;c", 5_000_000_000L, "a;b;d", 4_000_000_000L, "a;b", 5_000_000_000L));
        Path two = resource("speedscope/0.6.0_two-sampled.speedscope.json");
        assertThat(RandomProfiles.stacks(read(two, FormatOptions.none()))).containsExactlyInAnyOrderEntriesOf(Map.of(
                "a;b;c", 10_000_000_000L, "a;b;d", 8_000_000_000L, "a;b", 10_000_000_000L));
        assertThat(RandomProfiles.stacks(read(two, FormatOptions.none().set("profile", "two"))))
                .isEqualTo(RandomProfiles.stacks(sampled));
        assertThat(RandomProfiles.stacks(read(two, FormatOptions.none().set("thread-frames", true))))
                .containsEntry("one;a;b;c", 5_000_000_000L).containsEntry("two;a;b", 5_000_000_000L);
    }

    @Test
    void speedscopesInvalidSamplesAreRejected() throws IOException {
        Path ooo = resource("speedscope/invalid_out-of-order-events.json");
        assertThatThrownBy(() -> read(ooo, FormatOptions.none())).isInstanceOf(InputException.class)
                .hasMessageContaining("at byte offset").hasMessageContaining("not the innermost open frame");
        Path incomplete = resource("speedscope/invalid_incomplete-trace.json");
        assertThatThrownBy(() -> read(incomplete, FormatOptions.none())).isInstanceOf(InputException.class)
                .hasMessageContaining("still open");
        assertThat(RandomProfiles.stacks(read(incomplete, FormatOptions.none().set("lenient", true))))
                .containsExactlyEntriesOf(Map.of("A", 100L));
    }
}
