package org.stackfold.render.viewer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.stackfold.model.FrameKind;
import org.stackfold.model.Profile;

/**
 * Writes the viewer: one HTML file holding the page, its style, its JavaScript (the ES modules under
 * this package's resources, inlined in dependency order) and the profile ({@link ViewerData}, base64).
 * Nothing is fetched: a Content-Security-Policy forbids every request, and only scripts carrying
 * this file's random nonce run, so a frame name can never become code. Names travel inside the
 * base64 data and are shown with {@code textContent}; the title and other text go through
 * {@link #json} (no {@code <} survives) or {@link #html}.
 */
public final class ViewerPage {
    private static final String RESOURCES = "/org/stackfold/render/viewer/";
    private static final Pattern IMPORT = Pattern.compile("^import\\s+[^;]*?from\\s+'\\./([\\w-]+\\.mjs)';\\s*$",
            Pattern.MULTILINE);
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{(NONCE|TITLE|STYLE|META|SCRIPT)}}");

    /** The status bits of Tachyon samples the page can filter on, by bit. */
    private static final String[][] STATUS_FLAGS = {
            {"1", "GIL held"}, {"2", "on CPU"}, {"4", "unknown"}, {"8", "waiting for the GIL"},
            {"16", "exception"}, {"32", "main thread"}};

    private ViewerPage() {
    }

    /**
     * What the page shows besides the data: a title, where the profile came from, and the value type
     * of its weights where the profile's own says less (a diff's columns are "samples" whatever they
     * summed; null: the profile's).
     */
    public record Options(String title, List<String> inputs, Profile.ValueType valueType) {
        public Options(String title, List<String> inputs) {
            this(title, inputs, null);
        }
    }

    public static void write(ViewerData data, Options options, OutputStream out) throws IOException {
        write(List.of(data), List.of(), options, out);
    }

    /**
     * A comparison page: several profiles, each labelled (their file names), switched, diffed either way
     * and shown side by side inside the page; the first is shown first.
     */
    public static void write(List<ViewerData> profiles, List<String> labels, Options options, OutputStream out)
            throws IOException {
        ViewerData data = profiles.getFirst();
        StringBuilder meta = new StringBuilder(meta(data.profile(), options));
        if (profiles.size() > 1) {
            meta.setLength(meta.length() - 1);
            meta.append(",\"profiles\":[");
            for (int i = 0; i < profiles.size(); i++) {
                Profile p = profiles.get(i).profile();
                Profile.ValueType vt = p.valueTypes().getLast();
                meta.append(i == 0 ? "" : ",").append("{\"label\":").append(json(labels.get(i)))
                        .append(",\"columns\":").append(p.tree().weights())
                        .append(",\"valueType\":").append(json(vt.type())).append(",\"unit\":").append(json(unit(vt)))
                        .append(",\"timeUnit\":").append(p.timeline() == null ? "null" : json(p.timeline().timeUnit()))
                        .append(",\"interval\":").append(p.timeline() == null ? 0 : p.timeline().sampleInterval())
                        .append('}');
            }
            meta.append("]}");
        }
        java.util.Map<String, String> values = java.util.Map.of(
                "NONCE", HexFormat.of().formatHex(randomBytes()),
                "TITLE", html(options.title()),
                "STYLE", resource("viewer.css"),
                "META", meta.toString(),
                "SCRIPT", script());
        String[] parts = resource("viewer.html").split("\\{\\{DATA}}", -1);
        if (parts.length != 2) {
            throw new IllegalStateException("viewer.html must hold one {{DATA}} marker");
        }
        // One pass over the template, so a placeholder inside a value (a title) is never expanded.
        String head = PLACEHOLDER.matcher(parts[0]).replaceAll(r -> Matcher.quoteReplacement(values.get(r.group(1))));
        out.write(head.getBytes(StandardCharsets.UTF_8));
        // The data goes out in slices: a 30 MB base64 string never needs to exist at once.
        base64(data.deflated(), out);
        String tail = parts[1];
        int close = tail.indexOf("</script>") + "</script>".length();
        out.write(tail.substring(0, close).getBytes(StandardCharsets.UTF_8));
        for (int k = 1; k < profiles.size(); k++) {
            out.write(("\n<script type=\"application/octet-stream\" id=\"sf-data-" + k + "\">").getBytes(StandardCharsets.UTF_8));
            base64(profiles.get(k).deflated(), out);
            out.write("</script>".getBytes(StandardCharsets.UTF_8));
        }
        out.write(tail.substring(close).getBytes(StandardCharsets.UTF_8));
    }

    private static void base64(byte[] raw, OutputStream out) throws IOException {
        Base64.Encoder b64 = Base64.getEncoder();
        int slice = 3 * (1 << 18);
        for (int i = 0; i < raw.length; i += slice) {
            int n = Math.min(slice, raw.length - i);
            out.write(b64.encode(java.util.Arrays.copyOfRange(raw, i, i + n)));
        }
    }

    private static byte[] randomBytes() {
        byte[] b = new byte[16];
        new SecureRandom().nextBytes(b);
        return b;
    }

    private static String meta(Profile p, Options o) {
        StringBuilder b = new StringBuilder("{");
        b.append("\"title\":").append(json(o.title()));
        b.append(",\"inputs\":[");
        for (int i = 0; i < o.inputs().size(); i++) {
            b.append(i == 0 ? "" : ",").append(json(o.inputs().get(i)));
        }
        b.append("],\"columns\":").append(p.tree().weights());
        Profile.ValueType vt = o.valueType() != null ? o.valueType() : p.valueTypes().getLast();
        b.append(",\"valueType\":").append(json(vt.type())).append(",\"unit\":").append(json(unit(vt)));
        b.append(",\"timeUnit\":").append(p.timeline() == null ? "null" : json(p.timeline().timeUnit()));
        b.append(",\"interval\":").append(p.timeline() == null ? 0 : p.timeline().sampleInterval());
        b.append(",\"kinds\":[");
        FrameKind[] kinds = FrameKind.values();
        for (int i = 0; i < kinds.length; i++) {
            b.append(i == 0 ? "" : ",").append(json(kinds[i].name().toLowerCase(java.util.Locale.ROOT)));
        }
        b.append("],\"statusFlags\":[");
        for (int i = 0; i < STATUS_FLAGS.length; i++) {
            b.append(i == 0 ? "" : ",").append("[").append(STATUS_FLAGS[i][0]).append(",")
                    .append(json(STATUS_FLAGS[i][1])).append("]");
        }
        return b.append("]}").toString();
    }

    /**
     * The unit the page formats weights in: perf's software clock events (cpu-clock, task-clock) count
     * nanoseconds in their periods, so their sums are shown as time, not as a count of "events".
     */
    static String unit(Profile.ValueType vt) {
        String type = vt.type().toLowerCase(java.util.Locale.ROOT);
        if (vt.unit().equals("events") && (type.startsWith("cpu-clock") || type.startsWith("task-clock"))) {
            return "nanoseconds";
        }
        return vt.unit();
    }

    /** The modules reachable from main.mjs, dependencies first, with import lines and export keywords removed. */
    static String script() {
        Set<String> ordered = new LinkedHashSet<>();
        visit("main.mjs", ordered, new java.util.HashSet<>());
        StringBuilder b = new StringBuilder();
        for (String m : ordered) {
            String src = IMPORT.matcher(resource(m)).replaceAll("");
            src = src.replaceAll("(?m)^export\\s+", "");
            b.append("// ---- ").append(m).append('\n').append(src).append('\n');
        }
        return b.toString().replace("</script", "<\\/script");
    }

    private static void visit(String module, Set<String> done, Set<String> visiting) {
        if (done.contains(module)) {
            return;
        }
        if (!visiting.add(module)) {
            throw new IllegalStateException("import cycle through " + module);
        }
        List<String> deps = new ArrayList<>();
        Matcher m = IMPORT.matcher(resource(module));
        while (m.find()) {
            deps.add(m.group(1));
        }
        for (String d : deps) {
            visit(d, done, visiting);
        }
        done.add(module);
    }

    static String resource(String name) {
        try (InputStream in = ViewerPage.class.getResourceAsStream(RESOURCES + name)) {
            if (in == null) {
                throw new IllegalStateException("missing viewer resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A JSON string literal safe inside a script element: no {@code <}, {@code >}, {@code &} or line separators survive. */
    static String json(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x2028 || c == 0x2029) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    /** Text for HTML element content. */
    static String html(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
