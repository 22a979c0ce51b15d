package org.stackfold.collapse.perf;

import org.stackfold.perf.PerfOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.folded.FoldedWriter;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/** Runs the perf collapser on bytes and returns folded lines sorted in byte order. */
final class PerfTestSupport {
    private PerfTestSupport() {
    }

    /** Options as the CLI spells them ("--pid --all --event-filter=cycles"), plus test knobs. */
    static PerfOptions options(String cli, int threads, long chunkBytes) {
        FormatOptions o = FormatOptions.none();
        List<String> skip = new ArrayList<>();
        for (String a : cli.trim().split("\\s+")) {
            if (a.isEmpty() || a.equals("-")) {
                continue;
            }
            String name = a.replaceFirst("^--", "");
            int eq = name.indexOf('=');
            if (eq >= 0) {
                if (name.startsWith("skip-after")) {
                    skip.add(name.substring(eq + 1));
                } else {
                    o.set(name.substring(0, eq), name.substring(eq + 1));
                }
            } else {
                o.set(name, true);
            }
        }
        o.set("skip-after", String.join("\n", skip));
        o.set("threads", threads).set("chunk-bytes", chunkBytes);
        return PerfOptions.from(o);
    }

    static PerfOptions options(String cli) {
        return options(cli, 1, PerfOptions.DEFAULT_CHUNK_BYTES);
    }

    /**
     * One thread: the input is streamed (as from a pipe). More threads: it is written to a file
     * named test.txt and memory-mapped, and cut into ranges of {@code chunkBytes}.
     */
    static Profile profile(byte[] input, PerfOptions opt, List<String> warnings) {
        try {
            if (opt.threads() == 1) {
                try (Input in = Input.ofBytes("test.txt", input)) {
                    return new PerfCollapser().collapse(in, opt, warnings::add);
                }
            }
            java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("perf-test");
            java.nio.file.Path file = dir.resolve("test.txt");
            java.nio.file.Files.write(file, input);
            try (Input in = Input.open(file.toString())) {
                return new PerfCollapser().collapse(in, opt, warnings::add);
            } finally {
                java.nio.file.Files.deleteIfExists(file);
                java.nio.file.Files.deleteIfExists(dir);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<String> collapse(byte[] input, PerfOptions opt, List<String> warnings) {
        Profile p = profile(input, opt, warnings);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            new FoldedWriter(false, !opt.perlCompat()).write(p, out); // as the CLI writes it
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return sortedLines(out.toString(StandardCharsets.UTF_8));
    }

    static List<String> collapse(String input, String cli) {
        return collapse(input.getBytes(StandardCharsets.UTF_8), options(cli), new ArrayList<>());
    }

    static List<String> sortedLines(String text) {
        List<String> lines = new ArrayList<>();
        for (String l : text.split("\n")) {
            if (!l.isEmpty()) {
                lines.add(l);
            }
        }
        lines.sort((a, b) -> Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8)));
        return lines;
    }

    /** "stack count" lines as a map. */
    static Map<String, Long> counts(List<String> lines) {
        Map<String, Long> m = new LinkedHashMap<>();
        for (String l : lines) {
            int sp = l.lastIndexOf(' ');
            m.merge(l.substring(0, sp), Long.parseLong(l.substring(sp + 1)), Long::sum);
        }
        return m;
    }
}
