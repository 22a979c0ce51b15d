package org.stackfold.collapse;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.folded.FoldedWriter;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/** Shared helpers of the collapser tests: resources, running a collapser, folded lines. */
final class CollapseTesting {
    private CollapseTesting() {
    }

    /** A test resource under {@code collapse/}. */
    static Path resource(String rel) {
        URL url = CollapseTesting.class.getResource("/collapse/" + rel);
        if (url == null) {
            throw new IllegalArgumentException("no test resource collapse/" + rel);
        }
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static FormatOptions options(Map<String, Object> values) {
        FormatOptions o = FormatOptions.none();
        values.forEach(o::set);
        return o;
    }

    /** Collapses a file; returns its folded lines, sorted. */
    static List<String> collapse(String format, Path file, FormatOptions options, List<String> warnings)
            throws IOException {
        try (Input in = Input.open(file.toString())) {
            return folded(Collapsers.byName(format).collapse(in, options, warnings::add));
        }
    }

    static List<String> collapse(String format, String text, FormatOptions options, List<String> warnings)
            throws IOException {
        try (Input in = Input.ofBytes("test.txt", text.getBytes(StandardCharsets.UTF_8))) {
            return folded(Collapsers.byName(format).collapse(in, options, warnings::add));
        }
    }

    static List<String> collapse(String format, String text) throws IOException {
        return collapse(format, text, FormatOptions.none(), new ArrayList<>());
    }

    static List<String> folded(Profile p) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            new FoldedWriter(false).write(p, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return sortedLines(out.toString(StandardCharsets.UTF_8));
    }

    /** An expected file as sorted lines, without blank and zero-count lines, without CRs. */
    static List<String> expected(Path file) throws IOException {
        byte[] data = Files.readAllBytes(file);
        if (file.toString().endsWith(".gz")) {
            try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(data))) {
                data = in.readAllBytes();
            }
        }
        List<String> lines = new ArrayList<>();
        for (String l : new String(data, StandardCharsets.UTF_8).replace("\r", "").split("\n")) {
            if (!l.isBlank() && !l.endsWith(" 0")) {
                lines.add(l);
            }
        }
        return sortedByBytes(lines);
    }

    static List<String> sortedLines(String text) {
        List<String> lines = new ArrayList<>();
        for (String l : text.split("\n")) {
            if (!l.isEmpty()) {
                lines.add(l);
            }
        }
        return sortedByBytes(lines);
    }

    private static List<String> sortedByBytes(List<String> lines) {
        lines.sort((a, b) -> Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8),
                b.getBytes(StandardCharsets.UTF_8)));
        return lines;
    }
}
