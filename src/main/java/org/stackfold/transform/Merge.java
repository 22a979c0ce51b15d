package org.stackfold.transform;

import java.util.function.UnaryOperator;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameKind;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/** Adds one profile's counts into another's, stack by stack. */
public final class Merge {
    private Merge() {
    }

    /** Adds every column of {@code src} into {@code dst}; they must have the same number of columns. */
    public static void into(Profile dst, Profile src) {
        int[] frameMap = frameMap(src.frames(), dst.frames(), null);
        for (int c = 0; c < src.tree().weights(); c++) {
            addColumn(src.tree(), c, dst.tree(), c, frameMap);
        }
    }

    /**
     * Ids in {@code dst} of every frame of {@code src}. With a {@code rename}, frames are matched by
     * their renamed names alone (kinds and locations dropped), which is how stacks from two runs are
     * matched after, say, stripping addresses.
     */
    public static int[] frameMap(FrameTable src, FrameTable dst, UnaryOperator<String> rename) {
        int[] map = new int[src.size()];
        for (int f = 0; f < map.length; f++) {
            if (rename != null) {
                map[f] = dst.plain(rename.apply(src.name(f)));
            } else if (src.hasLocation(f) || src.kind(f) != FrameKind.UNKNOWN) {
                map[f] = dst.frame(src.name(f), src.kind(f), src.file(f), src.line(f), src.endLine(f),
                        src.column(f), src.endColumn(f), src.opcode(f));
            } else {
                byte[] name = src.nameBytes(f);
                map[f] = dst.plain(name, 0, name.length);
            }
        }
        return map;
    }

    /**
     * Adds column {@code sc} of {@code src} into column {@code dc} of {@code dst}, frames mapped
     * through {@code frameMap}. Returns the node of {@code dst} each node of {@code src} went to.
     */
    public static int[] addColumn(CallTree src, int sc, CallTree dst, int dc, int[] frameMap) {
        int[] map = new int[src.size()];
        for (int n = 1; n < src.size(); n++) {
            map[n] = dst.child(map[src.parent(n)], frameMap[src.frame(n)]);
            long s = src.self(n, sc);
            if (s != 0) {
                dst.addSelf(map[n], dc, s);
            }
        }
        return map;
    }
}
