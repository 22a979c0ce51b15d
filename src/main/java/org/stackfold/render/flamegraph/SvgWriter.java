package org.stackfold.render.flamegraph;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.stackfold.model.FrameTable;

/**
 * Writes the SVG: flamegraph.pl's structure (a gradient background, title, details/search/matched
 * texts, then {@code <g id="frames">} with one {@code <g>} per frame holding {@code <title>},
 * {@code <rect>} and {@code <text>}) and pixel geometry, plus inferno's {@code fg:x}/{@code fg:w}
 * attributes (start and width in samples) that the script zooms with exactly.
 *
 * <p>Every name and option text is escaped for XML; characters XML cannot carry (controls, lone
 * surrogates, invalid UTF-8, which arrives as U+FFFD) never reach the file. Output is buffered text
 * appended to a StringBuilder and flushed as UTF-8 in large chunks; numbers are formatted by hand.
 */
final class SvgWriter {
    static final int XPAD = 10;
    static final String FG_NS = "http://github.com/jonhoo/inferno";
    private static final int FLUSH_AT = 1 << 16;

    private final FlameGraphOptions o;
    private final OutputStream out;
    private final StringBuilder sb = new StringBuilder(FLUSH_AT + 4096);

    SvgWriter(FlameGraphOptions o, OutputStream out) {
        this.o = o;
        this.out = out;
    }

    /** Top padding: title, subtitle (flamegraph.pl forgets it in icicle mode and overlaps it; we don't). */
    private double ypad1() {
        double sub = o.subtitle != null ? o.fontSize * 2 : 0;
        if (o.inferno() && o.inverted) {
            return o.fontSize * 4 + sub + 4; // inferno puts the details line at the top of icicle graphs
        }
        return o.fontSize * 3 + sub;
    }

    private double ypad2() {
        return o.inferno() && o.inverted ? o.fontSize + 10 : o.fontSize * 2 + 10;
    }

    private double imageHeight(int maxDepth) {
        return (maxDepth + 1) * (double) o.frameHeight + ypad1() + ypad2();
    }

    /** The "no stack counts" SVG both tools write for empty input. */
    void writeEmpty() throws IOException {
        double h = o.fontSize * 5;
        header(h);
        sb.append("<text x=\"").append(o.width / 2).append(".00\" y=\"");
        num(o.fontSize * 2);
        sb.append("\">ERROR: No valid input provided to flamegraph.</text>\n</svg>\n");
        flush(true);
    }

    private void header(double height) {
        sb.append("<?xml version=\"1.0\"");
        if (o.encoding != null) {
            sb.append(" encoding=\"");
            attr(o.encoding);
            sb.append('"');
        }
        sb.append(" standalone=\"no\"?>\n");
        sb.append("<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n");
        sb.append("<svg version=\"1.1\" width=\"").append(o.width).append("\" height=\"");
        num(height);
        sb.append("\" onload=\"init(evt)\" viewBox=\"0 0 ").append(o.width).append(' ');
        num(height);
        sb.append("\" xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" xmlns:fg=\"")
                .append(FG_NS).append("\">\n");
        sb.append("<!-- Flame graph stack visualization. See https://github.com/brendangregg/FlameGraph for latest version,"
                + " and http://www.brendangregg.com/flamegraphs.html for examples. Drawn by stackfold. -->\n");
        sb.append("<!-- NOTES: ");
        // A comment may not contain "--"; escaping keeps <, > and & harmless too.
        text(o.notes == null ? "" : o.notes.replace("--", "- -"));
        sb.append(" -->\n");
    }

    void write(FrameLayout l, FrameTable frames, FrameColors colors, PaletteMap paletteMap) throws IOException {
        double height = imageHeight(l.maxDepth);
        header(height);
        String[] bg = o.background();
        sb.append("<defs>\n\t<linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\" >\n\t\t<stop stop-color=\"")
                .append(bg[0]).append("\" offset=\"5%\" />\n\t\t<stop stop-color=\"").append(bg[1])
                .append("\" offset=\"95%\" />\n\t</linearGradient>\n</defs>\n");
        String font = o.effectiveFontType();
        sb.append("<style type=\"text/css\">\n\ttext { font-family:");
        text(cssFont(font));
        sb.append("; font-size:");
        num(o.fontSize);
        sb.append("px; fill:").append(o.uiColor).append("; }\n");
        sb.append("\t#search, #ignorecase { opacity:0.1; cursor:pointer; }\n");
        sb.append("\t#search:hover, #search.show, #ignorecase:hover, #ignorecase.show { opacity:1; }\n");
        sb.append("\t#subtitle { text-anchor:middle; font-color:rgb(160,160,160); }\n");
        sb.append("\t#title { text-anchor:middle; font-size:");
        num(o.fontSize + 5);
        sb.append("px}\n\t#unzoom { cursor:pointer; }\n");
        sb.append("\t#frames > *:hover { stroke:black; stroke-width:0.5; cursor:pointer; }\n");
        if (o.strokeColor != null) {
            sb.append("\t#frames rect { stroke:").append(o.strokeColor).append("; stroke-width:1; }\n");
        }
        sb.append("\t.hide { display:none; }\n\t.parent { opacity:0.5; }\n</style>\n");
        sb.append("<script type=\"text/ecmascript\">\n<![CDATA[\n");
        config(l);
        if (!o.noJavascript) {
            sb.append(FlamegraphScript.JS);
        }
        sb.append("\n]]>\n</script>\n");
        sb.append("<rect x=\"0.0\" y=\"0\" width=\"").append(o.width).append(".0\" height=\"");
        num(height);
        sb.append("\" fill=\"url(#background)\"  />\n");
        int mid = o.width / 2;
        double detailsY = o.inferno() && o.inverted ? o.fontSize * 2 + (o.subtitle != null ? o.fontSize * 2 : 0) + 4 + o.fontSize
                : height - ypad2() / 2;
        textElem("title", mid, o.fontSize * 2, o.effectiveTitle(), null);
        if (o.subtitle != null) {
            textElem("subtitle", mid, o.fontSize * 4, o.subtitle, null);
        }
        textElem("details", XPAD, detailsY, " ", null);
        textElem("unzoom", XPAD, o.fontSize * 2, "Reset Zoom", "class=\"hide\"");
        textElem("search", o.width - XPAD - 100, o.fontSize * 2, "Search", null);
        textElem("ignorecase", o.width - XPAD - 16, o.fontSize * 2, "ic", null);
        textElem("matched", o.width - XPAD - 100, detailsY, " ", null);
        sb.append("<g id=\"frames\" total_samples=\"").append(l.timeMax).append("\">\n");
        frames(l, frames, colors, paletteMap, height);
        sb.append("</g>\n</svg>\n");
        flush(true);
    }

    private void frames(FrameLayout l, FrameTable frames, FrameColors colors, PaletteMap paletteMap, double height)
            throws IOException {
        double widthPerTime = (o.width - 2.0 * XPAD) / l.timeMax;
        double glyph = o.fontSize * o.fontWidth;
        double ypad1 = ypad1();
        double ypad2 = ypad2();
        boolean diff = l.differential;
        boolean indent = o.prettyXml;
        int[] order = o.inferno() ? l.infernoOrder() : null;
        String[] nameCache = new String[frames.size()];
        String[] escapedCache = new String[frames.size()]; // the label name, XML-escaped, once per frame id
        Map<String, NameAttributes.Attrs> attrs = o.nameAttributes;
        for (int k = 0; k < l.count; k++) {
            int i = order == null ? k : order[k];
            int f = l.frame[i];
            String raw = f < 0 ? "" : nameCache[f] != null ? nameCache[f] : (nameCache[f] = xmlSafe(frames.name(f)));
            String name = deannotate(raw);
            String escaped = f < 0 ? "" : escapedCache[f] != null ? escapedCache[f] : (escapedCache[f] = escape(name));
            int d = l.depth[i];
            long startS = l.start[i];
            long widthS = l.width[i];
            double x1 = XPAD + startS * widthPerTime;
            double x2 = XPAD + (startS + widthS) * widthPerTime;
            double y1, y2;
            if (o.inverted) {
                y1 = ypad1 + d * (double) o.frameHeight;
                y2 = ypad1 + (d + 1) * (double) o.frameHeight - 1;
            } else {
                y1 = height - ypad2 - (d + 1) * (double) o.frameHeight + 1;
                y2 = height - ypad2 - d * (double) o.frameHeight;
            }
            NameAttributes.Attrs a = attrs.isEmpty() || f < 0 ? null : attrs.get(raw);
            boolean link = a != null && a.isLink();
            sb.append(link ? "<a" : "<g");
            if (a != null) {
                for (Map.Entry<String, String> e : a.attrs().entrySet()) {
                    sb.append(' ').append(attrName(e.getKey())).append("=\"");
                    attr(e.getValue());
                    sb.append('"');
                }
            }
            if (a != null && a.title() != null) {
                // the tooltip is replaced: keep the name for the script's labels and search
                sb.append(" data-name=\"");
                attr(name);
                sb.append('"');
            }
            sb.append(">\n");
            if (indent) {
                sb.append("    ");
            }
            sb.append("<title>");
            if (a != null && a.title() != null) {
                text(a.title());
            } else {
                title(l, i, f < 0, escaped);
            }
            sb.append("</title>");
            if (indent) {
                sb.append("\n    ");
            }
            // colour
            int rgb;
            if (raw.equals("--")) {
                rgb = FrameColors.DARK_GREY;
            } else if (raw.equals("-")) {
                rgb = FrameColors.GREY;
            } else if (o.colorDiffusion) {
                double pct = (double) widthS / l.timeMax;
                rgb = FrameColors.diffScale((long) (Math.sqrt(pct) * 2000), 2000, true);
            } else if (diff) {
                rgb = FrameColors.diffScale(o.negate ? -l.delta[i] : l.delta[i], l.maxDelta, o.inferno());
            } else {
                String colorName = l.waker[i] ? raw + "_[w]" : raw;
                if (paletteMap != null) {
                    Integer c = paletteMap.get(colorName);
                    if (c == null) {
                        c = colors.color(f, colorName, l.waker[i]);
                        paletteMap.put(colorName, c);
                    }
                    rgb = c;
                } else {
                    rgb = colors.color(f, colorName, l.waker[i]);
                }
            }
            long rx1 = round1(x1);
            long rx2 = round1(x2);
            sb.append("<rect x=\"");
            tenths(rx1);
            sb.append("\" y=\"");
            num(y1);
            sb.append("\" width=\"");
            tenths(rx2 - rx1);
            sb.append("\" height=\"");
            num1(y2 - y1);
            sb.append("\" fill=\"rgb(").append(rgb >> 16).append(',').append((rgb >> 8) & 0xFF).append(',')
                    .append(rgb & 0xFF).append(")\" rx=\"2\" ry=\"2\" fg:x=\"").append(startS).append("\" fg:w=\"")
                    .append(widthS).append("\"/>\n");
            if (indent) {
                sb.append("    ");
            }
            sb.append("<text x=\"");
            fixed(x1 + 3, 2);
            sb.append("\" y=\"");
            num(3 + (y1 + y2) / 2);
            sb.append("\">");
            // inferno measures the label room against the full image width, not the frames' width.
            double room = o.inferno() ? (double) widthS / l.timeMax * o.width / glyph : (x2 - x1) / glyph;
            label(name, escaped, f < 0, room);
            sb.append("</text>\n").append(link ? "</a>\n" : "</g>\n");
            if (sb.length() > FLUSH_AT) {
                flush(false);
            }
        }
    }

    /** The text shown inside a frame: the name cut to what fits, ".." marking the cut. */
    private void label(String name, String escaped, boolean root, double fit) {
        int chars = (int) fit;
        if (chars < 3 || root) {
            return;
        }
        int len = name.codePointCount(0, name.length());
        boolean fits = o.inferno() ? name.getBytes(StandardCharsets.UTF_8).length < chars : chars >= len;
        if (fits) {
            sb.append(escaped);
            return;
        }
        int keep = chars - 2;
        int end = name.offsetByCodePoints(0, Math.min(keep, len));
        text(name.substring(0, end));
        sb.append("..");
    }

    /** {@code escapedName}: already XML-escaped. */
    private void title(FrameLayout l, int i, boolean root, String escapedName) {
        long samples = roundCount(l.width[i] * o.factor);
        if (root) {
            sb.append("all (");
            grouped(samples);
            sb.append(' ');
            text(o.countName);
            sb.append(", 100%)");
            return;
        }
        sb.append(escapedName);
        sb.append(" (");
        grouped(samples);
        sb.append(' ');
        text(o.countName);
        sb.append(", ");
        fixed(100.0 * samples / (l.timeMax * o.factor), 2);
        sb.append('%');
        if (l.differential) {
            long d = o.negate ? -l.delta[i] : l.delta[i];
            sb.append("; ");
            if (d > 0) {
                sb.append('+');
            }
            fixed(100.0 * d / (l.timeMax * o.factor), 2);
            sb.append('%');
            if (!o.inferno()) {
                // Both profiles' counts, which neither peer shows (FlameGraph PR #176).
                long before = roundCount(l.before[i] * o.factor);
                sb.append("; before ");
                grouped(o.negate ? samples : before);
                sb.append(", after ");
                grouped(o.negate ? before : samples);
            }
        }
        sb.append(')');
    }

    private long roundCount(double v) {
        return o.inferno() ? Math.round(v) : (long) Math.rint(v);
    }

    private void config(FrameLayout l) {
        sb.append("var stackfold = {");
        sb.append("nametype: ");
        jsString(o.nameType);
        sb.append(", countname: ");
        jsString(o.countName);
        sb.append(", fontsize: ");
        num(o.fontSize);
        sb.append(", fontwidth: ");
        num(o.fontWidth);
        sb.append(", xpad: ").append(XPAD);
        sb.append(", inverted: ").append(o.inverted);
        sb.append(", searchcolor: ");
        jsString(o.searchColor);
        sb.append(", truncateRight: ").append(o.truncateTextRight);
        sb.append(", relativePercent: ").append(o.zoomRelativePercent);
        sb.append(", total: ").append(l.timeMax);
        sb.append(", factor: ");
        num(o.factor);
        sb.append(", differential: ").append(l.differential);
        sb.append(", fluid: ").append(o.fluid);
        sb.append("};\n");
    }

    private void textElem(String id, double x, double y, String s, String extra) {
        sb.append("<text id=\"").append(id).append("\" x=\"");
        fixed(x, 2);
        sb.append("\" y=\"");
        num(y);
        sb.append('"');
        if (extra != null) {
            sb.append(' ').append(extra);
        }
        sb.append(" >");
        text(s);
        sb.append("</text>\n");
    }

    static String deannotate(String f) {
        int n = f.length();
        if (n >= 4 && f.charAt(n - 1) == ']' && f.charAt(n - 3) == '[' && f.charAt(n - 4) == '_'
                && "kwij".indexOf(f.charAt(n - 2)) >= 0) {
            return f.substring(0, n - 4);
        }
        return f;
    }

    /** Single-word families (generic ones included) as they are; anything else as a CSS string (as inferno). */
    private static String cssFont(String font) {
        if (font.matches("[A-Za-z][A-Za-z0-9-]*")) {
            return font;
        }
        return "\"" + font.replace("\\", "\\\\").replace("\"", "\\\"").replace("<", "\\3C ")
                .replace("}", "\\7D ") + "\"";
    }

    /** Replaces characters XML 1.0 cannot carry by U+FFFD. */
    static String xmlSafe(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c >= 0xD800) {
                return xmlSafeSlow(s);
            }
        }
        return s;
    }

    private static String xmlSafeSlow(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                b.append(c).append(s.charAt(++i));
            } else if ((c < 0x20 && c != '\t') || Character.isSurrogate(c) || c == 0xFFFE || c == 0xFFFF) {
                b.append('\uFFFD');
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static String attrName(String k) {
        return k.matches("[A-Za-z_][A-Za-z0-9_.:-]*") ? k : "data-invalid";
    }

    private String escape(String s) {
        int start = sb.length();
        text(s);
        String e = sb.substring(start);
        sb.setLength(start);
        return e;
    }

    private void text(String s) {
        s = xmlSafe(s);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> sb.append("&amp;");
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '"' -> sb.append("&quot;");
                default -> sb.append(c);
            }
        }
    }

    private void attr(String s) {
        s = xmlSafe(s);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> sb.append("&amp;");
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '"' -> sb.append("&quot;");
                case '\t' -> sb.append("&#9;");
                default -> sb.append(c);
            }
        }
    }

    private void jsString(String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == ']' || c >= 0x7F) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        sb.append('"');
    }

    private void grouped(long v) {
        if (v < 0) {
            sb.append('-');
            v = -v;
        }
        String s = Long.toString(v);
        int n = s.length();
        for (int i = 0; i < n; i++) {
            if (i > 0 && (n - i) % 3 == 0) {
                sb.append(',');
            }
            sb.append(s.charAt(i));
        }
    }

    private static long round1(double v) {
        return Math.round(v * 10);
    }

    private void tenths(long t) {
        if (t < 0) {
            sb.append('-');
            t = -t;
        }
        sb.append(t / 10).append('.').append(t % 10);
    }

    private void num1(double v) {
        tenths(round1(v));
    }

    /** Fixed-point with {@code decimals} digits, half away from zero. */
    private void fixed(double v, int decimals) {
        long scale = decimals == 2 ? 100 : decimals == 4 ? 10000 : (long) Math.pow(10, decimals);
        long t = Math.round(Math.abs(v) * scale);
        if (v < 0) {
            sb.append('-'); // printf prints -0.00 too
        }
        sb.append(t / scale).append('.');
        String frac = Long.toString(t % scale);
        for (int k = frac.length(); k < decimals; k++) {
            sb.append('0');
        }
        sb.append(frac);
    }

    /** A number as perl prints it: integers without a fraction, else up to 4 decimals. */
    private void num(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            sb.append((long) v);
            return;
        }
        double t = v * 10;
        if (t == Math.rint(t) && Math.abs(t) < 1e15) {
            tenths((long) t); // the common 207.5
            return;
        }
        String s = org.stackfold.io.PlainFormat.of("%.4f", v);
        int e = s.length();
        while (s.charAt(e - 1) == '0') {
            e--;
        }
        if (s.charAt(e - 1) == '.') {
            e--;
        }
        sb.append(s, 0, e);
    }

    private void flush(boolean end) throws IOException {
        out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
        sb.setLength(0);
        if (end) {
            out.flush();
        }
    }
}
