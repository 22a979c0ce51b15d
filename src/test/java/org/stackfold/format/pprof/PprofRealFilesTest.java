package org.stackfold.format.pprof;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.Formats;
import org.stackfold.io.Input;
import org.stackfold.model.CallTree;
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
        try (Input in = Input.open(p.toString())) {
            return Formats.forInput(in, null).read(in, o);
        }
    }

    /** name -> {flat, cum}, a function counted once per stack for cum (as pprof's -top). */
    static Map<String, long[]> top(Profile p) {
        Map<String, long[]> out = new HashMap<>();
        CallTree t = p.tree();
        for (int n = 1; n < t.size(); n++) {
            long v = t.self(n);
            if (v == 0) {
                continue;
            }
            int[] s = t.stack(n);
            out.computeIfAbsent(p.frames().name(s[s.length - 1]), k -> new long[2])[0] += v;
            Set<String> seen = new HashSet<>();
            for (int f : s) {
                if (seen.add(p.frames().name(f))) {
                    out.computeIfAbsent(p.frames().name(f), k -> new long[2])[1] += v;
                }
            }
        }
        return out;
    }

    static Map<String, long[]> expected(String resource) throws IOException {
        Map<String, long[]> out = new LinkedHashMap<>();
        try (InputStream in = PprofRealFilesTest.class.getResourceAsStream("/formats/" + resource)) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split("\t");
                out.put(f[0], new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])});
            }
        }
        return out;
    }

    static void assertTop(Profile p, Map<String, long[]> want) {
        Map<String, long[]> got = top(p);
        want.values().removeIf(w -> w[1] == 0);
        assertThat(got.keySet()).containsExactlyInAnyOrderElementsOf(want.keySet());
        want.forEach((name, w) -> assertThat(got.get(name)).as(name).containsExactly(w));
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

    @Test
    void simplifiedNamesAsPprof() {
        assertThat(PrunedFrames.simplify("strings.(*Builder).WriteString")).isEqualTo("strings.");
        assertThat(PrunedFrames.simplify(".foo(int)")).isEqualTo("foo");
        assertThat(PrunedFrames.simplify("(anonymous namespace)::f(int)")).isEqualTo("(anonymous namespace)::f");
        assertThat(PrunedFrames.simplify("Foo::operator()(int)")).isEqualTo("Foo::operator()");
    }
}
