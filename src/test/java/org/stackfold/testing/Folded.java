package org.stackfold.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.stackfold.format.folded.FoldedReader;
import org.stackfold.format.folded.FoldedWriter;
import org.stackfold.io.Input;
import org.stackfold.model.CallTree;
import org.stackfold.model.Profile;

/** Test helpers: read folded text, write it, and see a profile as a map of stack to counts. */
public final class Folded {
    private Folded() {
    }

    public static FoldedReader.Result read(String text) {
        return read(text.getBytes(StandardCharsets.UTF_8), FoldedReader.Mode.PLAIN, false, 1, new ArrayList<>());
    }

    public static FoldedReader.Result read(byte[] data, FoldedReader.Mode mode, boolean lenient, int threads,
                                           List<String> warnings) {
        try (Input in = Input.ofBytes("test.folded", data)) {
            return new FoldedReader(mode, lenient, threads, warnings::add).read(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String write(Profile p) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            new FoldedWriter(p.tree().isDifferential()).write(p, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /** Every stack with a non-zero count, as "a;b;c" → counts (one per column). */
    public static Map<String, List<Long>> stacks(Profile p) {
        CallTree t = p.tree();
        Map<String, List<Long>> m = new TreeMap<>();
        for (int n = 1; n < t.size(); n++) {
            List<Long> counts = new ArrayList<>();
            boolean any = false;
            for (int c = 0; c < t.weights(); c++) {
                counts.add(t.self(n, c));
                any |= t.self(n, c) != 0;
            }
            if (any) {
                StringBuilder sb = new StringBuilder();
                for (int f : t.stack(n)) {
                    if (!sb.isEmpty()) {
                        sb.append(';');
                    }
                    sb.append(p.frames().name(f));
                }
                m.merge(sb.toString(), counts, (a, b) -> {
                    List<Long> sum = new ArrayList<>();
                    for (int i = 0; i < a.size(); i++) {
                        sum.add(a.get(i) + b.get(i));
                    }
                    return sum;
                });
            }
        }
        return m;
    }

    /** Stacks with a single count each. */
    public static Map<String, Long> counts(Profile p) {
        Map<String, Long> m = new TreeMap<>();
        stacks(p).forEach((k, v) -> m.put(k, v.getFirst()));
        return m;
    }
}
