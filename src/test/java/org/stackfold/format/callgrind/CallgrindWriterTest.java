package org.stackfold.format.callgrind;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.SpeedscopeOracle;
import org.stackfold.io.Input;
import org.stackfold.model.CallTree;
import org.stackfold.model.Profile;

/** The callgrind writer: callgrind_annotate sees the profile's self and inclusive weights; our reader reads it back. */
class CallgrindWriterTest {
    @TempDir
    Path dir;

    /** Random stacks over a few names, recursion included; roots are names never called. */
    static Profile randomProfile(long seed, boolean uniqueNames) {
        Random r = new Random(seed);
        Profile p = new Profile();
        String[] names = {"a", "b", "c", "d", "e", "f", "g"};
        int unique = 0;
        for (int s = 0; s < 30; s++) {
            int depth = 1 + r.nextInt(6);
            int[] frames = new int[depth];
            frames[0] = p.frames().plain(uniqueNames ? "n" + unique++ : "root" + r.nextInt(3));
            for (int d = 1; d < depth; d++) {
                frames[d] = p.frames().plain(uniqueNames ? "n" + unique++ : names[r.nextInt(names.length)]);
            }
            p.addStack(frames, depth, 1 + r.nextInt(1000));
        }
        return p;
    }

    private Path write(Profile p, String name) throws IOException {
        Path f = dir.resolve(name);
        try (OutputStream out = Files.newOutputStream(f)) {
            new CallgrindFormat().write(p, out, FormatOptions.none());
        }
        return f;
    }

    /** Per function: self weight, and total weight counted once per stack. */
    static Map<String, long[]> selfAndInclusive(Profile p) {
        CallTree t = p.tree();
        long[] totals = t.totals();
        Map<String, long[]> out = new HashMap<>();
        for (int n = 1; n < t.size(); n++) {
            String name = p.frames().name(t.frame(n));
            out.computeIfAbsent(name, k -> new long[2])[0] += t.self(n);
            boolean outermost = true;
            for (int a = t.parent(n); a != CallTree.ROOT; a = t.parent(a)) {
                outermost &= t.frame(a) != t.frame(n);
            }
            if (outermost) {
                out.get(name)[1] += totals[n];
            }
        }
        return out;
    }

    @Test
    void callgrindAnnotateShowsTheProfilesSelfAndInclusiveWeights() throws Exception {
        assumeTrue(Annotate.installed("callgrind_annotate"), "callgrind_annotate (apt package valgrind) is not installed");
        for (long seed = 1; seed <= 5; seed++) {
            Profile p = randomProfile(seed, false);
            Path f = write(p, "callgrind.out." + seed);
            Map<String, Long> self = Annotate.costs(f, false);
            Map<String, Long> inclusive = Annotate.costs(f, true);
            Map<String, long[]> expected = selfAndInclusive(p);
            for (Map.Entry<String, long[]> e : expected.entrySet()) {
                assertThat(self.getOrDefault(e.getKey(), 0L)).as("seed %d self of %s", seed, e.getKey())
                        .isEqualTo(e.getValue()[0]);
                assertThat(inclusive.getOrDefault(e.getKey(), 0L)).as("seed %d inclusive of %s", seed, e.getKey())
                        .isEqualTo(e.getValue()[1]);
            }
        }
    }

    @Test
    void aTreeWhoseFunctionsEachHaveOnePlaceReadsBackExactly() throws IOException {
        for (long seed = 1; seed <= 20; seed++) {
            Profile p = randomProfile(seed, true);
            Path f = write(p, "x" + seed + ".callgrind");
            try (Input in = Input.open(f.toString())) {
                assertThat(SpeedscopeOracle.stacks(new CallgrindFormat().read(in, FormatOptions.none())))
                        .as("seed %d", seed).isEqualTo(SpeedscopeOracle.stacks(p));
            }
        }
    }

    @Test
    void everyReadFunctionKeepsItsSelfWeightThroughAWriteAndRead() throws IOException {
        // a call graph loses which caller a callee's time came from, so stacks may move; the self
        // weight of each function and the total stay (no recursion into the same root, no pruning here)
        Profile p = SpeedscopeOracle.read("callgrind/callgrind.example.log", FormatOptions.none());
        Path f = write(p, "callgrind.out.again");
        try (Input in = Input.open(f.toString())) {
            Profile back = new CallgrindFormat().read(in, FormatOptions.none());
            assertThat(SpeedscopeOracle.stacks(back)).isEqualTo(SpeedscopeOracle.stacks(p));
        }
    }

    @Test
    void namesWithLineBreaksStayOnOneLineAndFilesAreNamed() throws IOException {
        Profile p = new Profile();
        int main = p.frames().frame("main", org.stackfold.model.FrameKind.UNKNOWN, "src/a.c", 3, -1, -1, -1, -1);
        int odd = p.frames().plain("odd\nname");
        p.addStack(new int[] {main, odd}, 2, 5);
        Path f = write(p, "callgrind.out.names");
        String text = Files.readString(f);
        assertThat(text).contains("fl=(1) src/a.c\nfn=(1) main\n", "cfi=(2) ???\ncfn=(2) odd\\x0aname\n", "events: samples\n",
                "totals: 5\n");
        try (Input in = Input.open(f.toString())) {
            assertThat(SpeedscopeOracle.stacks(new CallgrindFormat().read(in, FormatOptions.none())))
                    .containsExactly(Map.entry("main;odd\\x0aname", 5L));
        }
    }

    @Test
    void eachWeightColumnIsAnEvent() throws IOException {
        Profile p = Profile.differential();
        int a = p.frames().plain("a");
        int n = p.tree().child(CallTree.ROOT, a);
        p.tree().addSelf(n, 0, 3);
        p.tree().addSelf(n, 1, 4);
        String text = Files.readString(write(p, "d.callgrind"));
        assertThat(text).contains("events: samples samples_2\n", "fn=(1) a\n0 3 4\n");
        Set<String> lines = new HashSet<>(java.util.List.of(text.split("\n")));
        assertThat(lines).contains("totals: 3 4");
    }
}
