package org.stackfold.analysis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/**
 * Functions by self and total samples. Functions are frame names (two frames with the same name
 * but different locations are one function). Total counts a sample once per function even when the
 * function is on its stack several times (recursion), as every profiler's "total" column does.
 */
public final class TopFunctions {
    public enum Sort { SELF, TOTAL }

    public record Row(String name, long self, long total) {
    }

    public record Table(List<Row> rows, long samples) {
    }

    private TopFunctions() {
    }

    public static Table of(Profile p, int column) {
        CallTree t = p.tree();
        FrameTable frames = p.frames();
        int names = frames.names().size();
        long[] self = new long[names];
        long[] total = new long[names];
        // onStack[name] = how many times the name is on the path from the root to the current node;
        // a node adds its subtree total to a name only where it is the name's outermost occurrence.
        long[] totals = t.totals(column);
        int[] onStack = new int[names];
        t.walk(new CallTree.Visitor() {
            @Override
            public void enter(int node, int depth) {
                int name = frames.nameId(t.frame(node));
                self[name] += t.self(node, column);
                if (onStack[name]++ == 0) {
                    total[name] += totals[node];
                }
            }

            @Override
            public void exit(int node, int depth) {
                onStack[frames.nameId(t.frame(node))]--;
            }
        });
        List<Row> rows = new ArrayList<>();
        for (int n = 0; n < names; n++) {
            if (self[n] != 0 || total[n] != 0) {
                rows.add(new Row(frames.names().string(n), self[n], total[n]));
            }
        }
        return new Table(rows, totals[CallTree.ROOT]);
    }

    public static List<Row> sorted(Table table, Sort sort, int limit) {
        Comparator<Row> bySelf = Comparator.comparingLong(Row::self).reversed();
        Comparator<Row> byTotal = Comparator.comparingLong(Row::total).reversed();
        Comparator<Row> c = sort == Sort.SELF ? bySelf.thenComparing(byTotal) : byTotal.thenComparing(bySelf);
        return table.rows().stream().sorted(c.thenComparing(Row::name)).limit(limit).toList();
    }
}
