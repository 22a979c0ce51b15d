package org.stackfold.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;
import org.stackfold.model.Timeline;

/**
 * What speedscope's own importers made of a file ({@code *.speedscope.tsv}, written once by
 * {@code src/test/resources/formats/speedscope-dump.ts}): per profile its name and unit, then each
 * distinct stack ({@code name@file:line:col} frames) with its summed weight. Compared with a profile
 * read here, thread by thread through its timeline.
 */
public final class SpeedscopeGolden {
    public record Golden(String name, String unit, Map<String, Double> stacks) {
    }

    private SpeedscopeGolden() {
    }

    public static List<Golden> load(Path tsv) throws IOException {
        List<Golden> out = new ArrayList<>();
        Golden current = null;
        for (String line : Files.readAllLines(tsv)) {
            if (line.startsWith("# profile\t")) {
                String[] p = line.split("\t", -1);
                current = new Golden(p[1], p[2], new TreeMap<>());
                out.add(current);
            } else if (!line.isEmpty()) {
                int tab = line.lastIndexOf('\t');
                current.stacks().merge(line.substring(0, tab), Double.parseDouble(line.substring(tab + 1)), Double::sum);
            }
        }
        return out;
    }

    /** Per timeline thread (in order of first sample), its stacks keyed as speedscope's golden keys them. */
    public static Map<Long, Map<String, Double>> byThread(Profile p) {
        Timeline tl = p.timeline();
        FrameTable f = p.frames();
        Map<Long, Map<String, Double>> out = new LinkedHashMap<>();
        for (int i = 0; i < tl.size(); i++) {
            StringBuilder key = new StringBuilder();
            for (int frame : p.tree().stack(tl.node(i))) {
                if (!key.isEmpty()) {
                    key.append('\t');
                }
                key.append(f.name(frame)).append('@').append(f.file(frame) == null ? "" : f.file(frame)).append(':')
                        .append(f.line(frame) == FrameTable.NONE ? "" : f.line(frame)).append(':')
                        .append(f.column(frame) == FrameTable.NONE ? "" : f.column(frame));
            }
            out.computeIfAbsent(tl.threadId(i), t -> new TreeMap<>()).merge(key.toString(), (double) tl.weight(i), Double::sum);
        }
        return out;
    }

    /** Same stacks; weights equal within {@code tolerance} (in the golden's unit times {@code scale}). */
    public static void assertSame(Map<String, Double> ours, Golden golden, double scale, double tolerance) {
        assertThat(ours.keySet()).as(golden.name()).containsExactlyInAnyOrderElementsOf(golden.stacks().keySet());
        golden.stacks().forEach((stack, w) ->
                assertThat(ours.get(stack)).as(golden.name() + ": " + stack).isCloseTo(w * scale, within(tolerance)));
    }
}
