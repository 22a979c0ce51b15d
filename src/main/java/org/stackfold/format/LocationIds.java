package org.stackfold.format;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The location ids a profile writer (pprof, OTLP) gives its frames: a group of frames (a caller and
 * the frames inlined into it, root first) becomes one location, made once by the writer's
 * {@link Maker}; a single frame's id is one array read after the first time, since most locations
 * have nothing inlined. Ids are positive.
 */
public final class LocationIds {
    /** Makes (writes) the location of a frame group and returns its id, above 0. */
    @FunctionalInterface
    public interface Maker {
        int make(int[] group);
    }

    private record Key(int[] frames) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && Arrays.equals(frames, k.frames);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(frames);
        }
    }

    private final Maker maker;
    private final Map<Key, Integer> groups = new HashMap<>();
    private int[] single = new int[1024];

    public LocationIds(Maker maker) {
        this.maker = maker;
    }

    /** The location of a frame with nothing inlined into it. */
    public int of(int frame) {
        if (frame >= single.length) {
            single = Arrays.copyOf(single, Math.max(frame + 1, single.length * 2));
        }
        int id = single[frame];
        if (id == 0) {
            id = of(new int[] {frame});
            single[frame] = id;
        }
        return id;
    }

    /** The location of a caller frame and the frames inlined into it (root first). */
    public int of(int[] group) {
        Key key = new Key(group);
        Integer id = groups.get(key);
        if (id == null) {
            id = maker.make(group);
            groups.put(key, id);
        }
        return id;
    }

    /** How many locations were made. */
    public int size() {
        return groups.size();
    }
}
