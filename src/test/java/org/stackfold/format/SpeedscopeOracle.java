package org.stackfold.format;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.zip.GZIPInputStream;
import org.stackfold.format.folded.FoldedWriter;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * What speedscope's own importer made of a test file, stored beside it as {@code NAME.speedscope.txt}
 * (see src/test/resources/formats/README.md): a {@code # profile} line, then each stack with its
 * summed weight. Names are compared as Stackfold's folded text writes them (trimmed).
 */
public final class SpeedscopeOracle {
    private SpeedscopeOracle() {
    }

    public static Path resource(String rel) {
        try {
            return Path.of(SpeedscopeOracle.class.getResource("/formats/" + rel).toURI());
        } catch (Exception e) {
            throw new IllegalStateException(rel, e);
        }
    }

    /** The stacks of profile number {@code which} (1-based) of an oracle file. */
    public static Map<String, Long> expected(String rel, int which) throws IOException {
        Path p = resource(rel);
        byte[] bytes = Files.readAllBytes(p);
        if (rel.endsWith(".gz")) {
            try (InputStream in = new GZIPInputStream(new java.io.ByteArrayInputStream(bytes))) {
                bytes = in.readAllBytes();
            }
        }
        Map<String, Long> out = new TreeMap<>();
        int profile = 0;
        for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
            if (line.startsWith("# profile")) {
                profile++;
                continue;
            }
            if (profile != which || line.isEmpty()) {
                continue;
            }
            int sp = line.lastIndexOf(' ');
            String stack = Arrays.stream(line.substring(0, sp).split(";", -1)).map(String::strip)
                    .collect(Collectors.joining(";"));
            out.merge(stack, Long.parseLong(line.substring(sp + 1)), Long::sum);
        }
        return out;
    }

    /** The profile's stacks as folded text writes them. */
    public static Map<String, Long> stacks(Profile profile) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new FoldedWriter(false).write(profile, bytes);
        Map<String, Long> out = new TreeMap<>();
        for (String line : bytes.toString(StandardCharsets.UTF_8).split("\n")) {
            if (!line.isEmpty()) {
                int sp = line.lastIndexOf(' ');
                out.merge(line.substring(0, sp), Long.parseLong(line.substring(sp + 1)), Long::sum);
            }
        }
        return out;
    }

    /** Reads a test resource with the format its content shows. */
    public static Profile read(String rel, FormatOptions options) throws IOException {
        try (Input in = Input.open(resource(rel).toString())) {
            return Formats.forInput(in, null).read(in, options);
        }
    }

    public static String detected(String rel) throws IOException {
        try (Input in = Input.open(resource(rel).toString())) {
            return Formats.sniffed(in) == null ? null : Formats.sniffed(in).name();
        }
    }
}
