package org.stackfold.format.pprof;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.Formats;
import org.stackfold.format.PeerTables;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * pprof files against what {@code go tool pprof} prints of them (issue 29): drop_frames/keep_frames
 * applied by default, all frames with {@code all-frames}; the legacy formats. See
 * src/test/resources/formats/README.md for each file's origin.
 */
class PprofRealFilesTest {
    @TempDir
    Path dir;

    Path resource(String name) throws IOException {
        Path p = dir.resolve(name.replace('/', '_'));
        try (InputStream in = PprofRealFilesTest.class.getResourceAsStream("/formats/" + name)) {
            Files.copy(in, p);
        }
        return p;
    }

    static Profile read(Path p, FormatOptions o) throws IOException {
        return PeerTables.read(p, o);
    }

    static Map<String, long[]> expected(String resource) throws IOException {
        return PeerTables.expected(resource, name -> name);
    }

    /** As {@code go tool pprof -top}: flat and cum a function, a function counted once per stack for cum. */
    static void assertTop(Profile p, Map<String, long[]> want) {
        want.values().removeIf(w -> w[1] == 0);
        PeerTables.assertWeights(p, want);
    }

    @Test
    void dropFramesAppliedByDefaultAsGoToolPprof() throws IOException {
        Path p = resource("go/go119-cpu-drop.pb.gz");
        assertTop(read(p, FormatOptions.none()), expected("go/go119-cpu-drop.expected.tsv"));
    }

    @Test
    void allFramesKeepsWhatDropFramesWouldRemove() throws IOException {
        Path p = resource("go/go119-cpu-drop.pb.gz");
        assertTop(read(p, FormatOptions.none().set("all-frames", true)), expected("go/go119-cpu-all-frames.expected.tsv"));
    }

    /**
     * pprof's legacy formats against pprof's own golden files ({@code profile/testdata/NAME.string}, its
     * Profile.String() of what it parsed): the stacks of addresses and the default (last) sample type's values.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"cppbench.cpu", "cppbench.heap", "cppbench.growth",
        "cppbench.contention", "cppbench.thread", "cppbench.thread.none", "gobench.cpu", "gobench.heap",
        "go.crc32.cpu", "go.godoc.thread"})
    void legacyProfilesAsPprofReadsThem(String name) throws IOException {
        Path p = resource("pprof-legacy/" + name);
        try (Input in = Input.open(p.toString())) {
            assertThat(Formats.forInput(in, null).name()).isEqualTo("pprof-legacy");
        }
        assertThat(org.stackfold.format.RandomProfiles.stacks(read(p, FormatOptions.none())))
                .containsExactlyInAnyOrderEntriesOf(golden("pprof-legacy/" + name + ".string", -1));
        if (name.equals("cppbench.cpu")) {
            assertThat(org.stackfold.format.RandomProfiles.stacks(read(p, FormatOptions.none().set("sample-type", "samples"))))
                    .containsExactlyInAnyOrderEntriesOf(golden("pprof-legacy/" + name + ".string", 0));
        }
    }

    @Test
    void legacyJavaProfilesAreNamedInTheError() throws IOException {
        Path p = resource("pprof-legacy/java.heap");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> read(p, FormatOptions.none()))
                .isInstanceOf(org.stackfold.io.InputException.class)
                .hasMessageContaining("java.heap").hasMessageContaining("legacy Java heap/contention profile");
    }

    /** pprof's Profile.String(): "Samples:", value columns, "V1 V2: LOC LOC ...", then "Locations" "ID: 0xADDR". */
    static Map<String, Long> golden(String resource, int column) throws IOException {
        String[] lines;
        try (InputStream in = PprofRealFilesTest.class.getResourceAsStream("/formats/" + resource)) {
            lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n");
        }
        java.util.List<String> l = java.util.Arrays.asList(lines);
        Map<String, String> address = new HashMap<>();
        for (int j = l.indexOf("Locations") + 1; j < lines.length && lines[j].matches("\\s+\\d+: 0x.*"); j++) {
            String[] f = lines[j].trim().split("[: ]+");
            address.put(f[0], f[1]);
        }
        Map<String, Long> out = new java.util.TreeMap<>();
        for (int i = l.indexOf("Samples:") + 2; i < lines.length && lines[i].startsWith(" "); i++) {
            if (!lines[i].trim().matches("-?\\d.*")) {
                continue;
            }
            String[] vl = lines[i].split(":", 2);
            String[] vals = vl[0].trim().split("\\s+");
            long v = Long.parseLong(vals[column < 0 ? vals.length - 1 : column]);
            String[] locs = vl[1].trim().isEmpty() ? new String[0] : vl[1].trim().split("\\s+");
            if (v == 0 || locs.length == 0) {
                continue; // Stackfold keeps no sample without frames
            }
            StringBuilder sb = new StringBuilder();
            for (int k = locs.length - 1; k >= 0; k--) {
                sb.append(address.get(locs[k])).append(k > 0 ? ";" : "");
            }
            out.merge(sb.toString(), v, Long::sum);
        }
        return out;
    }

    @Test
    void simplifiedNamesAsPprof() {
        assertThat(PrunedFrames.simplify("strings.(*Builder).WriteString")).isEqualTo("strings.");
        assertThat(PrunedFrames.simplify(".foo(int)")).isEqualTo("foo");
        assertThat(PrunedFrames.simplify("(anonymous namespace)::f(int)")).isEqualTo("(anonymous namespace)::f");
        assertThat(PrunedFrames.simplify("Foo::operator()(int)")).isEqualTo("Foo::operator()");
    }
}
