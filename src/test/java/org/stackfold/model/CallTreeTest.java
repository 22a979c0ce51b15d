package org.stackfold.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class CallTreeTest {
    @Test
    void childFindsOrCreates() {
        CallTree t = new CallTree();
        int a = t.child(CallTree.ROOT, 7);
        assertThat(t.child(CallTree.ROOT, 7)).isEqualTo(a);
        int b = t.child(a, 7);
        assertThat(b).isNotEqualTo(a);
        assertThat(t.parent(b)).isEqualTo(a);
        assertThat(t.frame(b)).isEqualTo(7);
        assertThat(t.find(a, 8)).isEqualTo(-1);
        assertThat(t.size()).isEqualTo(3);
    }

    @Test
    void manyChildrenAndManyNodesStayConsistent() {
        // Exercises list lookups, the switch to the hash index past 8 children, rehashing and paging.
        CallTree t = new CallTree();
        SplittableRandom r = new SplittableRandom(5);
        Map<Long, Integer> expected = new HashMap<>();
        List<Integer> nodes = new ArrayList<>(List.of(CallTree.ROOT));
        for (int i = 0; i < 1_500_000; i++) {
            int parent = nodes.get(r.nextInt(nodes.size()));
            int frame = r.nextInt(i < 1000 ? 3 : 50);
            long key = ((long) parent << 32) | frame;
            int n = t.child(parent, frame);
            Integer before = expected.putIfAbsent(key, n);
            if (before != null) {
                assertThat(n).isEqualTo(before);
            } else {
                nodes.add(n);
            }
        }
        assertThat(t.size()).isEqualTo(nodes.size());
        expected.forEach((key, n) -> assertThat(t.find((int) (key >>> 32), (int) (long) key)).isEqualTo(n));
    }

    @Test
    void totalsAndDepths() {
        CallTree t = new CallTree();
        int a = t.child(0, 1);
        int b = t.child(a, 2);
        int c = t.child(a, 3);
        t.addSelf(a, 1);
        t.addSelf(b, 2);
        t.addSelf(c, 4);
        long[] total = t.totals();
        assertThat(total[a]).isEqualTo(7);
        assertThat(total[CallTree.ROOT]).isEqualTo(7);
        assertThat(t.depths()[c]).isEqualTo(2);
        assertThat(t.stack(c)).containsExactly(1, 3);
    }

    @Test
    void countOverflowIsAnError() {
        CallTree t = new CallTree();
        int a = t.child(0, 1);
        t.addSelf(a, Long.MAX_VALUE);
        assertThatThrownBy(() -> t.addSelf(a, 1)).isInstanceOf(ArithmeticException.class);
    }

    @Test
    void walkVisitsDepthFirstInSortedOrder() {
        FrameTable f = new FrameTable();
        CallTree t = new CallTree();
        int m = t.child(0, f.plain("main"));
        t.child(m, f.plain("zeta"));
        int al = t.child(m, f.plain("alpha"));
        t.child(al, f.plain("inner"));
        t.child(0, f.plain("aaa"));
        t.sortChildren(f);
        List<String> seen = new ArrayList<>();
        t.walk(new CallTree.Visitor() {
            @Override
            public void enter(int node, int depth) {
                seen.add(depth + ":" + f.name(t.frame(node)));
            }

            @Override
            public void exit(int node, int depth) {
                seen.add("/" + f.name(t.frame(node)));
            }
        });
        assertThat(seen).containsExactly("1:aaa", "/aaa", "1:main", "2:alpha", "3:inner", "/inner", "/alpha",
                "2:zeta", "/zeta", "/main");
    }

    /**
     * Sibling lists short and long (the sort switches method past 24 siblings), in seeded random
     * orders with names repeated under several frame kinds: children end in name order, ties in
     * frame-id order (the folded writer's rank order is stable).
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(ints = {2, 3, 7, 24, 25, 26, 80, 300, 5000})
    void siblingsSortByNameThenFrameIdAtEverySize(int count) {
        java.util.SplittableRandom r = new java.util.SplittableRandom(count);
        FrameTable f = new FrameTable();
        CallTree t = new CallTree();
        int m = t.child(0, f.plain("main"));
        List<Integer> frames = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String name = "f" + r.nextInt(Math.max(2, count / 2));
            int frame = r.nextBoolean() ? f.plain(name) : f.frame(name, FrameKind.values()[1 + r.nextInt(FrameKind.values().length - 1)]);
            if (!frames.contains(frame)) {
                frames.add(frame);
                t.child(m, frame);
            }
        }
        t.sortChildren(f.ranks((a, b) -> f.names().compare(f.nameId(a), f.nameId(b))));
        List<Integer> seen = new ArrayList<>();
        for (int c = t.firstChild(m); c != 0; c = t.nextSibling(c)) {
            seen.add(t.frame(c));
        }
        List<Integer> expected = new ArrayList<>(frames);
        expected.sort(java.util.Comparator.comparing((Integer x) -> f.name(x)).thenComparing(x -> x));
        assertThat(seen).containsExactlyElementsOf(expected);
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(ints = {25, 100, 1001})
    void siblingsAddedInReverseOrNearlySortedOrderSort(int count) {
        FrameTable f = new FrameTable();
        CallTree reversed = new CallTree();
        CallTree nearly = new CallTree();
        for (int i = count - 1; i >= 0; i--) {
            reversed.child(0, f.plain(String.format("f%05d", i)));
        }
        for (int i = 0; i < count; i++) {
            nearly.child(0, f.plain(String.format("f%05d", i ^ 1))); // neighbours swapped
        }
        for (CallTree t : List.of(reversed, nearly)) {
            t.sortChildren(f);
            List<String> seen = new ArrayList<>();
            for (int c = t.firstChild(0); c != 0; c = t.nextSibling(c)) {
                seen.add(f.name(t.frame(c)));
            }
            assertThat(seen).hasSize(count).isSorted();
        }
    }

    @Test
    void differentialTreeHasTwoColumns() {
        CallTree t = new CallTree(2);
        int a = t.child(0, 1);
        t.addSelf(a, 0, 3);
        t.addSelf(a, 1, 5);
        assertThat(t.totalSamples(0)).isEqualTo(3);
        assertThat(t.totalSamples(1)).isEqualTo(5);
        assertThat(t.totals(1)[0]).isEqualTo(5);
    }

    @Test
    void framesInternByNameAndLocation() {
        FrameTable f = new FrameTable();
        int a = f.plain("x");
        assertThat(f.plain("x")).isEqualTo(a);
        int b = f.frame("x", FrameKind.PYTHON, "m.py", 3, 3, 1, 4, 100);
        assertThat(b).isNotEqualTo(a);
        assertThat(f.frame("x", FrameKind.PYTHON, "m.py", 3, 3, 1, 4, 100)).isEqualTo(b);
        assertThat(f.file(b)).isEqualTo("m.py");
        assertThat(f.line(b)).isEqualTo(3);
        assertThat(f.opcode(b)).isEqualTo(100);
        assertThat(f.kind(b)).isEqualTo(FrameKind.PYTHON);
        assertThat(f.hasLocation(a)).isFalse();
        assertThat(f.names().size()).isEqualTo(1);
    }
    @Test
    void appendDisjointEqualsANodeByNodeMergeInOrderAndLookups() {
        SplittableRandom r = new SplittableRandom(11);
        CallTree a = randomTree(r, 0, 20_000);
        CallTree b = randomTree(r, 100, 30_000); // root frames 100.. : none shared with a's 0..
        int[] frameMap = new int[200];
        for (int f = 0; f < frameMap.length; f++) {
            frameMap[f] = f + 1000;
        }
        // The reference: b's nodes entered one by one into a copy of a.
        CallTree expected = randomTree(new SplittableRandom(11), 0, 20_000);
        int[] nodeMap = new int[b.size()];
        for (int n = 1; n < b.size(); n++) {
            nodeMap[n] = expected.child(nodeMap[b.parent(n)], frameMap[b.frame(n)]);
            expected.addSelf(nodeMap[n], b.self(n));
        }
        int offset = a.appendDisjoint(b, frameMap);
        assertThat(offset).isEqualTo(a.size() - b.size());
        assertThat(walk(a)).isEqualTo(walk(expected));
        for (int n = 1; n < a.size(); n++) {
            assertThat(a.find(a.parent(n), a.frame(n))).isEqualTo(n);
        }
        assertThat(a.find(CallTree.ROOT, 999)).isEqualTo(-1);
    }

    @Test
    void appendDisjointOverSeveralPagesCopiesEveryColumnAndIndexesLargeFamilies() {
        // Over 2^21 nodes: the copy is split between two threads at a page of b's, and a's size
        // puts b's pages across a's page boundaries.
        SplittableRandom r = new SplittableRandom(5);
        CallTree a = randomTree(r, 0, 700_000);
        CallTree b = randomTree(r, 100, 3_300_000);
        int[] frameMap = new int[200];
        for (int f = 0; f < frameMap.length; f++) {
            frameMap[f] = f + 1000;
        }
        int nb = b.size();
        int[] parent = new int[nb], frame = new int[nb], first = new int[nb], next = new int[nb];
        long[] self = new long[nb];
        for (int n = 1; n < nb; n++) {
            parent[n] = b.parent(n);
            frame[n] = b.frame(n);
            first[n] = b.firstChild(n);
            next[n] = b.nextSibling(n);
            self[n] = b.self(n);
        }
        int aRoots = 0;
        for (int c = a.firstChild(CallTree.ROOT); c != 0; c = a.nextSibling(c)) {
            aRoots++;
        }
        int offset = a.appendDisjoint(b, frameMap);
        for (int n = 1; n < nb; n++) {
            int m = n + offset;
            assertThat(a.parent(m)).isEqualTo(parent[n] == 0 ? 0 : parent[n] + offset);
            assertThat(a.frame(m)).isEqualTo(frameMap[frame[n]]);
            assertThat(a.self(m)).isEqualTo(self[n]);
            assertThat(a.firstChild(m)).isEqualTo(first[n] == 0 ? 0 : first[n] + offset);
            if (parent[n] != 0) {
                assertThat(a.nextSibling(m)).isEqualTo(next[n] == 0 ? 0 : next[n] + offset);
            }
        }
        for (int n = 1; n < a.size(); n++) {
            assertThat(a.find(a.parent(n), a.frame(n))).isEqualTo(n);
        }
        int roots = 0;
        for (int c = a.firstChild(CallTree.ROOT); c != 0; c = a.nextSibling(c)) {
            roots++;
        }
        assertThat(roots).isEqualTo(aRoots + 12);
    }

    /** Depth-first (name path, self) of every node, in sibling-list order. */
    private static List<String> walk(CallTree t) {
        List<String> out = new ArrayList<>();
        t.walk((n, depth) -> out.add(depth + ":" + t.frame(n) + "=" + t.self(n)));
        return out;
    }

    /** A tree whose root frames are firstRoot..firstRoot+11 and deeper frames 0..199, some nodes with many children. */
    private static CallTree randomTree(SplittableRandom r, int firstRoot, int nodes) {
        CallTree t = new CallTree();
        int[] made = new int[nodes];
        for (int i = 0; i < nodes; i++) {
            int n = i == 0 || r.nextInt(10) == 0
                    ? t.child(CallTree.ROOT, firstRoot + r.nextInt(12))
                    : t.child(made[r.nextInt(i)], r.nextInt(200));
            t.addSelf(n, r.nextInt(5));
            made[i] = n;
        }
        return t;
    }
}
