package org.stackfold.render.flamegraph;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Everything that shapes a flame graph, with flamegraph.pl's defaults (and inferno's for the options
 * only inferno has). {@link Compat#INFERNO} switches the defaults and the few behaviours where the two
 * differ to inferno's, so both tools' outputs can be reproduced; see {@code docs/flamegraph.md}.
 *
 * <p>A plain mutable bag: the CLI fills it, {@link FlameGraph} reads it.
 */
public final class FlameGraphOptions {
    /** Whose defaults and quirks to follow where flamegraph.pl and inferno differ. */
    public enum Compat { PERL, INFERNO }

    /** How colours are chosen when no differential or palette-map colour applies. */
    public enum ColorMode {
        /** perl (since 2023): a pseudo-random value seeded by the name's byte sum; inferno: XorShift in frame order. */
        DEFAULT,
        /** Weighted hash of the first characters: similar names get similar colours. */
        HASH,
        /** Truly random per frame. */
        RANDOM,
        /** inferno's FNV-1a hash of the whole name. */
        DETERMINISTIC
    }

    public Compat compat = Compat.PERL;
    public String title;                 // null = "Flame Graph" / "Icicle Graph" / "Flame Chart"
    public String subtitle;              // null = none
    public int width = 1200;
    public int frameHeight = 16;
    /** Pixels, or percent of the total with a trailing '%'; null = 0.1 px (perl) / 0.01% (inferno). */
    public String minWidth;
    public String fontType;              // null = Verdana (perl) / monospace (inferno)
    public double fontSize = 12;
    public double fontWidth = 0.59;
    public String countName = "samples";
    public String nameType = "Function:";
    public Palette palette = Palette.HOT;
    /** yellow, blue, green, grey or #rrggbb; null = the palette's default. */
    public String bgColors;
    public ColorMode colorMode = ColorMode.DEFAULT;
    /** Consistent palette file (flamegraph.pl's --cp reads/writes palette.map in the working directory). */
    public String paletteFile;
    public boolean reverse;
    public boolean inverted;
    public boolean flameChart;
    public boolean negate;
    public double factor = 1;
    /** Pretend the total is this (for graphs drawn on one scale); 0 = the real total. */
    public long total;
    public String notes = "";
    public String encoding;
    /** Per-function SVG attributes, from a --nameattr file. */
    public Map<String, NameAttributes.Attrs> nameAttributes = Map.of();
    public String searchColor = "rgb(230,0,230)";
    public String strokeColor;           // null = none
    public String uiColor = "rgb(0,0,0)";
    public boolean truncateTextRight;
    public List<String> base = new ArrayList<>();
    public boolean colorDiffusion;
    public boolean noJavascript;
    public boolean prettyXml;
    /** Siblings ordered by weight (heaviest first) instead of by name. */
    public boolean sortByWeight;
    /** The script widens the graph to the window and lays it out again on resize (inferno's "fluid" drawing). */
    public boolean fluid;
    /** The tooltip/details line also shows the percentage relative to the zoomed frame. */
    public boolean zoomRelativePercent;

    public boolean inferno() {
        return compat == Compat.INFERNO;
    }

    public String effectiveTitle() {
        if (title != null) {
            return title;
        }
        if (flameChart) {
            return "Flame Chart";
        }
        return inverted ? "Icicle Graph" : "Flame Graph";
    }

    public String effectiveFontType() {
        return fontType != null ? fontType : inferno() ? "monospace" : "Verdana";
    }

    public String effectiveMinWidth() {
        return minWidth != null ? minWidth : inferno() ? "0.01%" : "0.1";
    }

    /** The background gradient's two stops. */
    public String[] background() {
        String bg = bgColors != null ? bgColors : palette.defaultBackground();
        return switch (bg) {
            case "yellow" -> new String[] {"#eeeeee", "#eeeeb0"};
            case "blue" -> new String[] {"#eeeeee", "#e0e0ff"};
            case "green" -> new String[] {"#eef2ee", "#e0ffe0"};
            case "grey", "gray" -> new String[] {"#f8f8f8", "#e8e8e8"};
            default -> {
                if (bg.matches("#[0-9a-fA-F]{6}")) {
                    yield new String[] {bg, bg};
                }
                throw new IllegalArgumentException("unrecognized background colour \"" + bg
                        + "\" (yellow, blue, green, grey or #rrggbb)");
            }
        };
    }

    /** Checks values that would otherwise fail late or produce a broken SVG. */
    public void validate() {
        if (encoding != null) {
            checkEncoding(encoding);
        }
        if (width < 20) {
            throw new IllegalArgumentException("--width must be at least 20");
        }
        if (frameHeight < 2) {
            throw new IllegalArgumentException("--height must be at least 2");
        }
        if (!(fontSize > 0) || !(fontWidth > 0)) {
            throw new IllegalArgumentException("--fontsize and --fontwidth must be positive");
        }
        if (!effectiveMinWidth().matches("[0-9]*\\.?[0-9]+%?|[0-9]+\\.%?")) {
            throw new IllegalArgumentException("--minwidth '" + minWidth + "' is not a number of pixels or a percentage");
        }
        if (!(factor > 0) || Double.isInfinite(factor)) {
            throw new IllegalArgumentException("--factor must be a positive number");
        }
        // Notes with < or > are escaped (inferno) rather than refused (flamegraph.pl).
        background();
    }

    /**
     * The SVG's bytes are the profile's bytes (UTF-8, or whatever the names were), as flamegraph.pl
     * writes them; the declaration only names them. So only encodings in which those bytes stay a
     * well-formed document are taken: UTF-8, and single-byte encodings that extend ASCII
     * (ISO-8859-1 for names recorded in Latin-1). UTF-16 and the like would make every byte wrong.
     */
    static void checkEncoding(String name) {
        if (!name.matches("[A-Za-z][A-Za-z0-9._-]*")) {
            throw new IllegalArgumentException("--encoding: '" + name + "' is not an encoding name");
        }
        java.nio.charset.Charset cs;
        try {
            cs = java.nio.charset.Charset.forName(name);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--encoding: unknown encoding '" + name + "'");
        }
        boolean asciiCompatible = cs.canEncode() && java.util.Arrays.equals(
                "<?xml".getBytes(cs), "<?xml".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        boolean singleByte = cs.canEncode() && cs.newEncoder().maxBytesPerChar() == 1.0f;
        if (!cs.equals(java.nio.charset.StandardCharsets.UTF_8) && !(asciiCompatible && singleByte)) {
            throw new IllegalArgumentException("--encoding: " + name + " would not describe the SVG's bytes; use UTF-8"
                    + " (the default) or a single-byte encoding such as ISO-8859-1");
        }
    }
}
