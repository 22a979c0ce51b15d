package org.stackfold.transform;

import java.util.Arrays;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameKind;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/**
 * A transformed profile with a frame table of the frames its tree still uses: writers that list
 * every frame (speedscope, pprof, the viewer) then show no hidden, dropped or renamed-away name. Node
 * ids stay as they are (a parent before its children, one new node per old one), so a timeline stays valid.
 */
final class UsedFrames {
    private UsedFrames() {
    }

    static Profile of(Profile p) {
        if (p.pendingStacks() != null) {
            return p;
        }
        CallTree t = p.tree();
        FrameTable src = p.frames();
        boolean[] used = new boolean[src.size()];
        int count = 0;
        for (int n = 1; n < t.size(); n++) {
            if (!used[t.frame(n)]) {
                used[t.frame(n)] = true;
                count++;
            }
        }
        if (count == src.size()) {
            return p;
        }
        FrameTable dst = new FrameTable();
        int[] map = new int[src.size()];
        Arrays.fill(map, -1);
        for (int f = 0; f < used.length; f++) {
            if (!used[f]) {
                continue;
            }
            if (src.hasLocation(f) || src.kind(f) != FrameKind.UNKNOWN) {
                map[f] = dst.frame(src.name(f), src.kind(f), src.file(f), src.line(f), src.endLine(f),
                        src.column(f), src.endColumn(f), src.opcode(f));
            } else {
                byte[] name = src.nameBytes(f);
                map[f] = dst.plain(name, 0, name.length);
            }
        }
        CallTree out = new CallTree(t.weights());
        for (int c = 0; c < t.weights(); c++) {
            long s = t.self(CallTree.ROOT, c);
            if (s != 0) {
                out.addSelf(CallTree.ROOT, c, s);
            }
        }
        for (int n = 1; n < t.size(); n++) {
            int m = out.newChild(t.parent(n), map[t.frame(n)]);
            if (m != n) {
                throw new IllegalStateException("node " + n + " became " + m);
            }
            for (int c = 0; c < t.weights(); c++) {
                long s = t.self(n, c);
                if (s != 0) {
                    out.addSelf(m, c, s);
                }
            }
        }
        Profile r = new Profile(dst, out, p.valueTypes());
        r.setTimeline(p.timeline());
        return r;
    }
}
