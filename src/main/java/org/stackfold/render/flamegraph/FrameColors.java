package org.stackfold.render.flamegraph;

import java.util.SplittableRandom;

/**
 * Picks each frame's fill colour (packed 0xRRGGBB) the way flamegraph.pl or inferno does.
 *
 * <p>Name-keyed modes (perl's default, {@code --hash}, {@code --deterministic}) are cached per frame
 * id, so a name is coloured once however many frames carry it. inferno's default draws three values
 * per frame from a XorShift64 generator seeded with 1234, in drawing order, so it must be called in
 * that order and is not cached.
 */
final class FrameColors {
    static final int GREY = Palette.pack(200, 200, 200);       // frame "-"
    static final int DARK_GREY = Palette.pack(160, 160, 160);  // frame "--"

    private final FlameGraphOptions options;
    private final boolean inferno;
    private int[] cache = new int[256]; // colour + 1 per frame id; 0 = not computed
    private long xorshift = 1234;
    private final SplittableRandom random = new SplittableRandom();

    FrameColors(FlameGraphOptions options) {
        this.options = options;
        this.inferno = options.inferno();
    }

    /** The palette colour of a frame (no differential, no palette map). */
    int color(int frameId, String rawName, boolean waker) {
        FlameGraphOptions.ColorMode mode = options.colorMode;
        boolean cacheable = (mode == FlameGraphOptions.ColorMode.HASH || mode == FlameGraphOptions.ColorMode.DETERMINISTIC
                || (mode == FlameGraphOptions.ColorMode.DEFAULT && !inferno)) && !waker;
        if (cacheable && frameId >= 0) {
            if (frameId >= cache.length) {
                cache = java.util.Arrays.copyOf(cache, Math.max(frameId + 1, cache.length * 2));
            }
            int c = cache[frameId];
            if (c != 0) {
                return c - 1;
            }
            c = compute(rawName, waker);
            cache[frameId] = c + 1;
            return c;
        }
        return compute(rawName, waker);
    }

    private int compute(String name, boolean waker) {
        Palette basic = options.palette.resolve(name, inferno, waker);
        if (inferno) {
            float v1, v2, v3;
            switch (options.colorMode) {
                case HASH -> {
                    byte[] b = name.getBytes(java.nio.charset.StandardCharsets.UTF_8);
                    v1 = namehashInferno(b, false);
                    v2 = v3 = namehashInferno(b, true);
                }
                case DETERMINISTIC -> {
                    float[] v = fnv(name);
                    v1 = v[0];
                    v2 = v[1];
                    v3 = v[2];
                }
                case RANDOM -> {
                    v1 = (float) random.nextDouble();
                    v2 = (float) random.nextDouble();
                    v3 = (float) random.nextDouble();
                }
                default -> {
                    v1 = nextXorShift();
                    v2 = nextXorShift();
                    v3 = nextXorShift();
                }
            }
            return basic.rgbF32(v1, v2, v3);
        }
        double v1, v2, v3;
        switch (options.colorMode) {
            case HASH -> {
                v1 = namehashPerl(name);
                v2 = v3 = namehashPerl(new StringBuilder(name).reverse().toString());
            }
            case DETERMINISTIC -> {
                float[] v = fnv(name);
                v1 = v[0];
                v2 = v[1];
                v3 = v[2];
            }
            case RANDOM -> {
                v1 = random.nextDouble();
                v2 = random.nextDouble();
                v3 = random.nextDouble();
            }
            default -> v1 = v2 = v3 = perlSeededRand(name);
        }
        return basic.rgb(v1, v2, v3);
    }

    /**
     * flamegraph.pl's default since 2023: {@code srand(sum of the name's characters); rand()}. Perl's
     * rand is its own drand48: a 48-bit LCG seeded as {@code seed << 16 | 0x330E}.
     */
    static double perlSeededRand(String name) {
        long sum = 0;
        for (int i = 0; i < name.length(); ) {
            int cp = name.codePointAt(i);
            sum += cp;
            i += Character.charCount(cp);
        }
        long x = ((sum & 0xFFFFFFFFL) << 16) | 0x330E;
        x = (x * 0x5DEECE66DL + 0xB) & 0xFFFFFFFFFFFFL;
        return x / (double) (1L << 48);
    }

    /** flamegraph.pl's namehash: the first three characters after any "module`" prefix, weighted. */
    static double namehashPerl(String name) {
        int tick = name.indexOf('`', 1);
        if (tick > 0) {
            name = name.substring(tick + 1);
        }
        double vector = 0, weight = 1, max = 1;
        int mod = 10;
        for (int i = 0; i < name.length(); ) {
            int c = name.codePointAt(i);
            i += Character.charCount(c);
            int v = c % mod;
            vector += (v / (double) (mod++ - 1)) * weight;
            max += weight;
            weight *= 0.70;
            if (mod > 12) {
                break;
            }
        }
        return 1 - vector / max;
    }

    /**
     * inferno's namehash: bytes, single precision. The first three bytes are weighted; when a
     * backtick follows the first byte anywhere (a "module`" prefix), the three bytes after it instead.
     */
    static float namehashInferno(byte[] name, boolean reversed) {
        int n = name.length;
        int from = 0;
        for (int k = 1; k < n; k++) {
            if (at(name, k, reversed) == '`') {
                from = k + 1;
                break;
            }
        }
        float vector = 0f, weight = 1f, max = 1f, modulo = 10f;
        for (int k = from; k < Math.min(n, from + 3); k++) {
            float i = (float) (at(name, k, reversed) % (int) modulo);
            vector += (i / (modulo - 1)) * weight;
            modulo += 1;
            max += weight;
            weight *= 0.70f;
        }
        return 1f - vector / max;
    }

    private static int at(byte[] b, int k, boolean reversed) {
        return b[reversed ? b.length - 1 - k : k] & 0xFF;
    }

    /** inferno's --deterministic: FNV-1a 64 of the name, then two more multiply steps. */
    static float[] fnv(String name) {
        long h = 0xcbf29ce484222325L;
        for (byte b : name.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            h ^= b & 0xFF;
            h *= 0x100000001b3L;
        }
        float[] v = new float[3];
        v[0] = unitOf(h);
        h *= 0x100000001b3L;
        v[1] = unitOf(h);
        h *= 0x100000001b3L;
        v[2] = unitOf(h);
        return v;
    }

    private static float unitOf(long h) {
        double u = unsignedToDouble(h) / unsignedToDouble(-1L);
        return (float) u;
    }

    /** u64 to f64 with correct rounding (the low bit is kept as a sticky bit). */
    private static double unsignedToDouble(long v) {
        return v >= 0 ? (double) v : (double) ((v >>> 1) | (v & 1)) * 2.0;
    }

    private float nextXorShift() {
        long x = xorshift;
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        xorshift = x;
        return (float) ((x >>> 11) * 0x1.0p-53);
    }

    /** Differential colour: red where the frame grew, blue where it shrank, by |delta| / max. */
    static int diffScale(long delta, long max, boolean inferno) {
        if (inferno) {
            if (delta == 0) {
                return Palette.pack(250, 250, 250);
            }
            if (delta > 0) {
                int c = 100 + (int) (150 * (max - delta) / max);
                return Palette.pack(255, c, c);
            }
            int c = 100 + (int) (150 * (max + delta) / max);
            return Palette.pack(c, c, 255);
        }
        if (delta > 0) {
            int c = (int) (210 * (max - delta) / (double) max);
            return Palette.pack(255, c, c);
        }
        if (delta < 0) {
            int c = (int) (210 * (max + delta) / (double) max);
            return Palette.pack(c, c, 255);
        }
        return Palette.pack(255, 255, 255);
    }
}
