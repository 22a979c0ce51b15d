package org.stackfold.transform;

import java.util.Arrays;
import java.util.BitSet;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.stackfold.model.FrameTable;

/**
 * Which frames a transform acts on: a Java regular expression found anywhere in a frame's name (as
 * pprof's and the viewer's searches: unanchored), or a set of frame ids (a viewer URL's transforms
 * replayed). Bound to a frame table, each frame id is tested once.
 */
public final class FramePattern {
    private final Pattern regex;
    private final BitSet ids;
    private final String text;

    private FramePattern(Pattern regex, BitSet ids, String text) {
        this.regex = regex;
        this.ids = ids;
        this.text = text;
    }

    /** A regular expression; a bad one is an {@link IllegalArgumentException} naming it. */
    public static FramePattern regex(String re) {
        try {
            return new FramePattern(Pattern.compile(re), null, re);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("bad regular expression '" + re + "': " + e.getDescription());
        }
    }

    /** Exactly these frame ids of the profile the transform is applied to ({@code text} names them in messages). */
    public static FramePattern ids(BitSet ids, String text) {
        return new FramePattern(null, (BitSet) ids.clone(), text);
    }

    /** Exactly the frames whose whole name is {@code name}. */
    public static FramePattern name(String name) {
        return new FramePattern(Pattern.compile("^" + Pattern.quote(name) + "$"), null, name);
    }

    public Pattern regex() {
        return regex;
    }

    @Override
    public String toString() {
        return text;
    }

    /** This pattern over {@code frames}. */
    public Bound bind(FrameTable frames) {
        return new Bound(frames);
    }

    /** A pattern bound to one frame table: each frame's answer cached. */
    public final class Bound {
        private final FrameTable frames;
        private byte[] state = new byte[0]; // 0 not tested yet, 1 no, 2 yes

        private Bound(FrameTable frames) {
            this.frames = frames;
        }

        public boolean test(int f) {
            if (ids != null) {
                return ids.get(f);
            }
            if (f >= state.length) {
                state = Arrays.copyOf(state, Math.max(f + 1, frames.size()));
            }
            byte s = state[f];
            if (s == 0) {
                s = (byte) (regex.matcher(frames.name(f)).find() ? 2 : 1);
                state[f] = s;
            }
            return s == 2;
        }

        /** The index of the first (outermost) matching frame of {@code stack[0..n)}, or -1. */
        public int first(int[] stack, int n) {
            for (int i = 0; i < n; i++) {
                if (test(stack[i])) {
                    return i;
                }
            }
            return -1;
        }
    }
}
