package org.stackfold.render.flamegraph;

import java.util.Locale;

/**
 * The colour palettes of flamegraph.pl and inferno. A basic palette maps three values in [0, 1)
 * to an RGB colour; a semantic ("multi") palette first picks a basic palette from the frame name
 * (Java frames green, C++ yellow, kernel orange, ...). The name rules differ slightly between the
 * two tools; {@link #resolve} takes which one to follow.
 */
public enum Palette {
    HOT, MEM, IO, RED, GREEN, BLUE, AQUA, YELLOW, PURPLE, ORANGE,
    JAVA, JS, PERL, PYTHON, RUST, WAKEUP, CHAIN;

    public static Palette parse(String s) {
        try {
            return valueOf(s.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown palette '" + s + "' (hot, mem, io, wakeup, chain, java, js, "
                    + "perl, python, rust, red, green, blue, aqua, yellow, purple, orange)");
        }
    }

    public boolean isBasic() {
        return ordinal() <= ORANGE.ordinal();
    }

    /** flamegraph.pl's default background for the palette. */
    String defaultBackground() {
        return switch (this) {
            case MEM -> "green";
            case IO, WAKEUP, CHAIN -> "blue";
            case RED, GREEN, BLUE, AQUA, YELLOW, PURPLE, ORANGE -> "grey";
            default -> "yellow";
        };
    }

    /**
     * The basic palette for a frame. {@code name} is the raw frame name, annotation suffix included;
     * {@code waker} marks frames below a {@code --} separator (the chain palette's waker stacks).
     */
    public Palette resolve(String name, boolean inferno, boolean waker) {
        return switch (this) {
            case JAVA -> inferno ? javaInferno(name) : javaPerl(name);
            case PERL -> inferno ? perlInferno(name) : perlPerl(name);
            case JS -> inferno ? jsInferno(name) : jsPerl(name);
            case PYTHON -> python(name);
            case RUST -> rust(name);
            case WAKEUP -> AQUA;
            case CHAIN -> waker || name.contains("_[w]") ? AQUA : BLUE;
            default -> this;
        };
    }

    /** RGB of a basic palette, perl style: double arithmetic, int() truncation. */
    public int rgb(double v1, double v2, double v3) {
        return switch (this) {
            case HOT -> pack(205 + (int) (50 * v3), (int) (230 * v1), (int) (55 * v2));
            case MEM -> pack(0, 190 + (int) (50 * v2), (int) (210 * v1));
            case IO -> pack(80 + (int) (60 * v1), 80 + (int) (60 * v1), 190 + (int) (55 * v2));
            case RED -> pack(200 + (int) (55 * v1), 50 + (int) (80 * v1), 50 + (int) (80 * v1));
            case GREEN -> pack(50 + (int) (60 * v1), 200 + (int) (55 * v1), 50 + (int) (60 * v1));
            case BLUE -> pack(80 + (int) (60 * v1), 80 + (int) (60 * v1), 205 + (int) (50 * v1));
            case YELLOW -> pack(175 + (int) (55 * v1), 175 + (int) (55 * v1), 50 + (int) (20 * v1));
            case PURPLE -> pack(190 + (int) (65 * v1), 80 + (int) (60 * v1), 190 + (int) (65 * v1));
            case AQUA -> pack(50 + (int) (60 * v1), 165 + (int) (55 * v1), 165 + (int) (55 * v1));
            case ORANGE -> pack(190 + (int) (65 * v1), 90 + (int) (65 * v1), 0);
            default -> 0; // a semantic palette that was not resolved: black, as flamegraph.pl draws unknown ones
        };
    }

    /** RGB of a basic palette, inferno style: single-precision products truncated to a byte. */
    public int rgbF32(float v1, float v2, float v3) {
        return switch (this) {
            case HOT -> pack(205 + t(50, v3), t(230, v1), t(55, v2));
            case MEM -> pack(0, 190 + t(50, v2), t(210, v1));
            case IO -> pack(80 + t(60, v1), 80 + t(60, v1), 190 + t(55, v2));
            case RED -> pack(200 + t(55, v1), 50 + t(80, v1), 50 + t(80, v1));
            case GREEN -> pack(50 + t(60, v1), 200 + t(55, v1), 50 + t(60, v1));
            case BLUE -> pack(80 + t(60, v1), 80 + t(60, v1), 205 + t(50, v1));
            case YELLOW -> pack(175 + t(55, v1), 175 + t(55, v1), 50 + t(20, v1));
            case PURPLE -> pack(190 + t(65, v1), 80 + t(60, v1), 190 + t(65, v1));
            case AQUA -> pack(50 + t(60, v1), 165 + t(55, v1), 165 + t(55, v1));
            case ORANGE -> pack(190 + t(65, v1), 90 + t(65, v1), 0);
            default -> 0;
        };
    }

    private static int t(float a, float x) {
        float p = a * x;
        return p <= 0 ? 0 : Math.min(255, (int) p);
    }

    static int pack(int r, int g, int b) {
        return (clamp(r) << 16) | (clamp(g) << 8) | clamp(b);
    }

    private static int clamp(int c) {
        return Math.max(0, Math.min(255, c));
    }

    private static boolean annotated(String name, char a) {
        int n = name.length();
        return n >= 4 && name.charAt(n - 4) == '_' && name.charAt(n - 3) == '[' && name.charAt(n - 2) == a
                && name.charAt(n - 1) == ']';
    }

    private static Palette javaPerl(String name) {
        if (annotated(name, 'j')) {
            return GREEN;
        }
        if (annotated(name, 'i')) {
            return AQUA;
        }
        if (name.matches("(?s)^L?(java|javax|jdk|net|org|com|io|sun)/.*")) {
            return GREEN;
        }
        if (name.contains(":::")) {
            return GREEN; // perf-map-agent's method separator
        }
        if (name.contains("::")) {
            return YELLOW;
        }
        if (annotated(name, 'k')) {
            return ORANGE;
        }
        return RED;
    }

    private static Palette javaInferno(String name) {
        if (annotated(name, 'k')) {
            return ORANGE;
        }
        if (annotated(name, 'i')) {
            return AQUA;
        }
        if (annotated(name, 'j')) {
            return GREEN;
        }
        String j = name.startsWith("L") ? name.substring(1) : name;
        if (name.contains("::") || name.startsWith("-[") || name.startsWith("+[")) {
            return YELLOW; // C++ or Objective-C
        }
        if (j.indexOf('/') >= 0 || (j.indexOf('.') >= 0 && !j.startsWith("["))
                || (!j.isEmpty() && j.charAt(0) >= 'A' && j.charAt(0) <= 'Z')) {
            return GREEN; // Java, async-profiler style names included
        }
        return RED;
    }

    private static Palette perlPerl(String name) {
        if (name.contains("::")) {
            return YELLOW;
        }
        if (name.contains("Perl") || name.contains(".pl")) {
            return GREEN;
        }
        if (annotated(name, 'k')) {
            return ORANGE;
        }
        return RED;
    }

    private static Palette perlInferno(String name) {
        if (annotated(name, 'k')) {
            return ORANGE;
        }
        if (name.contains("Perl") || name.contains(".pl")) {
            return GREEN;
        }
        if (name.contains("::")) {
            return YELLOW;
        }
        return RED;
    }

    private static Palette jsPerl(String name) {
        if (annotated(name, 'j')) {
            return name.indexOf('/') >= 0 ? GREEN : AQUA;
        }
        if (name.contains("::")) {
            return YELLOW;
        }
        if (name.matches("(?s).*/.*\\.js.*")) {
            return GREEN;
        }
        if (name.indexOf(':') >= 0) {
            return AQUA;
        }
        if (name.equals(" ")) {
            return GREEN;
        }
        if (name.contains("_[k]")) {
            return ORANGE;
        }
        return RED;
    }

    private static Palette jsInferno(String name) {
        if (!name.isEmpty() && name.isBlank()) {
            return GREEN;
        }
        if (annotated(name, 'k')) {
            return ORANGE;
        }
        if (annotated(name, 'j')) {
            return name.indexOf('/') >= 0 ? GREEN : AQUA;
        }
        if (name.contains("::")) {
            return YELLOW;
        }
        if (name.indexOf(':') >= 0) {
            return AQUA;
        }
        int slash = name.indexOf('/');
        if (slash >= 0) {
            String path = name.substring(slash);
            if (path.contains("node_modules/")) {
                return PURPLE;
            }
            if (path.contains(".js")) {
                return GREEN;
            }
        }
        return RED;
    }

    private static Palette python(String name) {
        boolean stdlib = false;
        for (String part : name.split("[/\\\\]", -1)) {
            if (part.equals("site-packages")) {
                return AQUA;
            }
            String v = part.startsWith("python") || part.startsWith("Python") ? part.substring(6) : null;
            if (v != null && v.chars().allMatch(c -> (c >= '0' && c <= '9') || c == '.')) {
                stdlib = true;
            }
        }
        if (stdlib || name.startsWith("<built-in") || name.startsWith("<method") || name.startsWith("<frozen")) {
            return YELLOW;
        }
        return RED;
    }

    private static Palette rust(String name) {
        int tick = name.indexOf('`');
        String n = tick >= 0 ? name.substring(tick + 1) : name;
        if (n.startsWith("core::") || n.startsWith("std::") || n.startsWith("alloc::")
                || (n.startsWith("<core::") && !n.startsWith("<core::future::from_generator::GenFuture<T>"))
                || n.startsWith("<std::") || n.startsWith("<alloc::")) {
            return ORANGE;
        }
        return n.contains("::") ? AQUA : YELLOW;
    }
}
