package org.stackfold.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.stackfold.io.Input;
import org.stackfold.model.CallTree;
import org.stackfold.model.Profile;

/**
 * The golden comparison of the peer-file tests: a profile's per-function self and total weights
 * (a function counted once per stack for its total, as {@code go tool pprof -top}'s flat/cum and
 * speedscope's self/total) against a peer tool's table under {@code src/test/resources/formats}.
 */
public final class PeerTables {
    private PeerTables() {
    }

    /** Reads a file in the format its bytes name. */
    public static Profile read(Path p, FormatOptions o) throws IOException {
        try (Input in = Input.open(p.toString())) {
            return Formats.forInput(in, null).read(in, o);
        }
    }

    /** name -> {self, total}, a name counted once per stack for its total. */
    public static Map<String, long[]> weights(Profile p) {
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

    /** A peer's table: lines {@code name<TAB>self<TAB>total}, blank and {@code #} lines skipped, names mapped by {@code name}. */
    public static Map<String, long[]> expected(String resource, UnaryOperator<String> name) throws IOException {
        Map<String, long[]> out = new LinkedHashMap<>();
        try (InputStream in = PeerTables.class.getResourceAsStream("/formats/" + resource)) {
            if (in == null) {
                throw new IOException("no test resource /formats/" + resource);
            }
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split("\t");
                out.put(name.apply(f[0]), new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])});
            }
        }
        return out;
    }

    /** The profile's table is exactly {@code want}: the same names, each with the same two weights. */
    public static void assertWeights(Profile p, Map<String, long[]> want) {
        Map<String, long[]> got = weights(p);
        assertThat(got.keySet()).containsExactlyInAnyOrderElementsOf(want.keySet());
        want.forEach((name, w) -> assertThat(got.get(name)).as(name).containsExactly(w));
    }
}
