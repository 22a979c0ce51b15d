package org.stackfold.render.flamegraph;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * flamegraph.pl's {@code --nameattr} file: one line per function, {@code name<TAB>key=value<TAB>...}.
 * Keys: {@code title} (replaces the tooltip), {@code id}, {@code class}, {@code href} (wraps the frame in
 * a link, {@code target} default {@code _top}), {@code target}, {@code g_extra}/{@code a_extra} (more
 * attributes, parsed as {@code name="value"} pairs so nothing unescaped reaches the SVG).
 */
public final class NameAttributes {
    /** A function's attributes; {@code attrs} in file order, {@code title} null when not replaced. */
    public record Attrs(String title, Map<String, String> attrs) {
        public boolean isLink() {
            return attrs.containsKey("xlink:href");
        }
    }

    private static final Pattern EXTRA = Pattern.compile("\\s*([^\\s=]+)\\s*=\\s*(\"([^\"]*)\"|'([^']*)'|(\\S+))");

    private NameAttributes() {
    }

    public static Map<String, Attrs> read(Path file, Consumer<String> warn) throws IOException {
        return parse(org.stackfold.io.TextFiles.readLines(file), warn);
    }

    static Map<String, Attrs> parse(List<String> lines, Consumer<String> warn) {
        Map<String, String> titles = new HashMap<>();
        Map<String, Map<String, String>> all = new LinkedHashMap<>();
        for (String raw : lines) {
            String line = raw.strip();
            int tab = line.indexOf('\t');
            String func = tab < 0 ? line : line.substring(0, tab);
            if (func.isEmpty()) {
                continue;
            }
            Map<String, String> attrs = all.computeIfAbsent(func, k -> new LinkedHashMap<>());
            if (tab < 0) {
                continue;
            }
            for (String nv : line.substring(tab + 1).split("\t")) {
                int eq = nv.indexOf('=');
                if (eq <= 0) {
                    continue;
                }
                String name = nv.substring(0, eq).strip();
                String value = nv.substring(eq + 1).strip();
                if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
                    value = value.substring(1, value.length() - 1);
                }
                switch (name) {
                    case "title" -> titles.put(func, value);
                    case "href" -> attrs.put("xlink:href", value);
                    case "id", "class", "target" -> attrs.put(name, value);
                    case "g_extra", "a_extra" -> {
                        Matcher m = EXTRA.matcher(value);
                        while (m.find()) {
                            String v = m.group(3) != null ? m.group(3) : m.group(4) != null ? m.group(4) : m.group(5);
                            attrs.put(m.group(1), v);
                        }
                    }
                    default -> warn.accept("nameattr: unknown attribute '" + name + "' for " + func);
                }
            }
            if (attrs.containsKey("xlink:href") && !attrs.containsKey("target")) {
                attrs.put("target", "_top");
            }
        }
        Map<String, Attrs> out = new HashMap<>();
        all.forEach((f, a) -> out.put(f, new Attrs(titles.get(f), a)));
        return out;
    }
}
