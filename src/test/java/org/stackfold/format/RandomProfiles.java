package org.stackfold.format;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.stackfold.io.Input;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameKind;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;
import org.stackfold.model.Timeline;

/** Seeded random profiles and a canonical view of a profile's stacks, for round-trip tests. */
public final class RandomProfiles {
    /** Name pieces: JSON and XML specials, non-ASCII, but nothing folded can't hold (no ';', no whitespace). */
    private static final String[] PIECES = {"main", "foo", "bar", "java.lang.Thread.run", "a<b>", "q\"uote",
        "back\\slash", "caf\u00e9", "\u65e5\u672c", "x$1", "[unknown]", "0x7f", "f::g", "n_[j]", "\u2192"};

    private RandomProfiles() {
    }

    /** A profile of up to {@code maxStacks} stacks, depth 1..maxDepth, counts 1..1000. */
    public static Profile plain(long seed, int maxStacks, int maxDepth, boolean locations) {
        SplittableRandom r = new SplittableRandom(seed);
        Profile p = new Profile();
        FrameTable ft = p.frames();
        int nFrames = 1 + r.nextInt(40);
        int[] pool = new int[nFrames];
        for (int i = 0; i < nFrames; i++) {
            String name = PIECES[r.nextInt(PIECES.length)] + (r.nextBoolean() ? "" : "_" + r.nextInt(100));
            if (locations && r.nextInt(3) == 0) {
                pool[i] = ft.frame(name, FrameKind.UNKNOWN, "src/" + r.nextInt(5) + ".c", 1 + r.nextInt(500),
                        FrameTable.NONE, r.nextBoolean() ? FrameTable.NONE : 1 + r.nextInt(80), FrameTable.NONE,
                        FrameTable.NONE);
            } else {
                pool[i] = ft.plain(name);
            }
        }
        int stacks = 1 + r.nextInt(maxStacks);
        int[] buf = new int[maxDepth];
        for (int s = 0; s < stacks; s++) {
            int depth = 1 + r.nextInt(maxDepth);
            for (int d = 0; d < depth; d++) {
                buf[d] = pool[r.nextInt(nFrames)];
            }
            p.addStack(buf, depth, 1 + r.nextInt(1000));
        }
        return p;
    }

    /** A differential profile: random counts (zero allowed on one side) in both columns. */
    public static Profile differential(long seed, int maxStacks, int maxDepth) {
        SplittableRandom r = new SplittableRandom(seed);
        Profile p = Profile.differential();
        FrameTable ft = p.frames();
        CallTree t = p.tree();
        int[] buf = new int[maxDepth];
        int stacks = 1 + r.nextInt(maxStacks);
        for (int s = 0; s < stacks; s++) {
            int depth = 1 + r.nextInt(maxDepth);
            for (int d = 0; d < depth; d++) {
                buf[d] = ft.plain(PIECES[r.nextInt(PIECES.length)] + r.nextInt(4));
            }
            int node = t.path(buf, 0, depth);
            int side = r.nextInt(3);
            t.addSelf(node, 0, side == 1 ? 0 : 1 + r.nextInt(100));
            t.addSelf(node, 1, side == 2 ? 0 : 1 + r.nextInt(100));
        }
        return p;
    }

    /** A profile with a timeline: samples on a few threads, in a random order, each counted once. */
    public static Profile timeline(long seed, int samples) {
        SplittableRandom r = new SplittableRandom(seed);
        Profile q = new Profile();
        FrameTable ft = q.frames();
        CallTree t = q.tree();
        Timeline tl = new Timeline("microseconds");
        int[] buf = new int[8];
        for (int i = 0; i < samples; i++) {
            int depth = 1 + r.nextInt(buf.length);
            for (int d = 0; d < depth; d++) {
                buf[d] = ft.plain(PIECES[r.nextInt(PIECES.length)] + d);
            }
            int node = t.path(buf, 0, depth);
            t.addSelf(node, 1);
            tl.add(1 + r.nextInt(3), 0, i * 100L, 0, node);
        }
        q.setTimeline(tl);
        return q;
    }

    /** Stack string (names joined by ';', root first) to count, per column; duplicates summed. */
    public static Map<String, Long> stacks(Profile p, int column) {
        Map<String, Long> out = new TreeMap<>();
        CallTree t = p.tree();
        for (int n = 1; n < t.size(); n++) {
            long v = t.self(n, column);
            if (v != 0) {
                StringBuilder sb = new StringBuilder();
                for (int f : t.stack(n)) {
                    if (!sb.isEmpty()) {
                        sb.append(';');
                    }
                    sb.append(p.frames().name(f));
                }
                out.merge(sb.toString(), v, Long::sum);
            }
        }
        return out;
    }

    public static Map<String, Long> stacks(Profile p) {
        return stacks(p, 0);
    }

    /** Stack string to count, where frames also show file and line: "name@file:line:col". */
    public static Map<String, Long> locatedStacks(Profile p) {
        Map<String, Long> out = new TreeMap<>();
        CallTree t = p.tree();
        FrameTable ft = p.frames();
        for (int n = 1; n < t.size(); n++) {
            long v = t.self(n);
            if (v != 0) {
                StringBuilder sb = new StringBuilder();
                for (int f : t.stack(n)) {
                    sb.append(';').append(ft.name(f)).append('@').append(ft.file(f)).append(':')
                            .append(ft.line(f)).append(':').append(ft.column(f));
                }
                out.merge(sb.toString(), v, Long::sum);
            }
        }
        return out;
    }

    public static byte[] write(ProfileFormat f, Profile p, FormatOptions o) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        f.write(p, out, o);
        return out.toByteArray();
    }

    public static Profile read(ProfileFormat f, byte[] data, FormatOptions o) throws IOException {
        try (Input in = Input.ofBytes("test." + f.extensions().getFirst(), data)) {
            return f.read(in, o);
        }
    }

    public static List<Long> seeds(int n) {
        return new SplittableRandom(20261123).longs(n).boxed().toList();
    }
}
