package org.stackfold.render.flamegraph;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.stackfold.io.AtomicOutput;

/**
 * The consistent palette ({@code --cp}): {@code name->rgb(r,g,b)} lines. Stored colours are reused,
 * new names get the palette's colour and are added; the file is rewritten sorted by name.
 */
final class PaletteMap {
    private static final Pattern LINE = Pattern.compile("(.*)->rgb\\((\\d+),\\s*(\\d+),\\s*(\\d+)\\)\\s*");
    private final Map<String, Integer> colors = new TreeMap<>();
    private boolean changed;

    static PaletteMap load(Path file, Consumer<String> warn) throws IOException {
        PaletteMap m = new PaletteMap();
        if (Files.exists(file)) {
            int ignored = 0;
            for (String line : org.stackfold.io.TextFiles.readLines(file)) {
                Matcher x = LINE.matcher(line);
                if (x.matches()) {
                    m.colors.put(x.group(1), Palette.pack(Integer.parseInt(x.group(2)), Integer.parseInt(x.group(3)),
                            Integer.parseInt(x.group(4))));
                } else if (!line.isBlank()) {
                    ignored++;
                }
            }
            if (ignored > 0) {
                warn.accept(file + ": ignored " + ignored + " lines with invalid format");
            }
        }
        return m;
    }

    Integer get(String name) {
        return colors.get(name);
    }

    void put(String name, int rgb) {
        colors.put(name, rgb);
        changed = true;
    }

    void save(Path file) throws IOException {
        if (!changed && Files.exists(file)) {
            return;
        }
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, Integer> e : colors.entrySet()) {
            int c = e.getValue();
            sb.append(e.getKey()).append("->rgb(").append(c >> 16).append(',').append((c >> 8) & 0xFF).append(',')
                    .append(c & 0xFF).append(")\n");
        }
        byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
        if (Files.exists(file) && !Files.isRegularFile(file)) {
            Files.write(file, bytes); // a device or pipe: never rename a file over it
            return;
        }
        try (AtomicOutput out = AtomicOutput.open(file.toString())) {
            OutputStream s = out.stream();
            s.write(bytes);
            out.commit();
        }
    }
}
