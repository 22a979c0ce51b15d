package org.stackfold.render.viewer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;
import org.junit.jupiter.api.Test;
import org.stackfold.format.folded.FoldedReader;
import org.stackfold.io.Input;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameKind;
import org.stackfold.model.Profile;
import org.stackfold.model.Timeline;

/** The encoding the page decodes: read back here with the same rules as data.mjs. */
class ViewerDataTest {
    /** A reader of the deflated varint stream, the Java twin of data.mjs's decoder. */
    static final class Decoded {
        final List<String> names = new ArrayList<>();
        final List<Integer> kinds = new ArrayList<>();
        final List<String> files = new ArrayList<>();
        final java.util.Map<Integer, java.util.Map<Integer, Long>> kindParts = new java.util.HashMap<>();
        int[] parent;
        int[] frame;
        long[] self;
        long[] before;
        int samples;
        List<String> threads = new ArrayList<>();
        int[] sampleNode;
        long[] sampleTime;
        long[] sampleWeight;
        private final InputStream in;

        Decoded(byte[] deflated, int columns) throws IOException {
            in = new InflaterInputStream(new ByteArrayInputStream(deflated), new Inflater(true));
            int nf = (int) next();
            for (int f = 0; f < nf; f++) {
                names.add(string());
                kinds.add((int) next());
                next();
                next();
            }
            int files = (int) next();
            for (int i = 0; i < files; i++) {
                this.files.add(string());
            }
            for (long k = next(); k > 0; k--) {
                int f = (int) next();
                java.util.Map<Integer, Long> parts = new java.util.TreeMap<>();
                for (long m = next(); m > 0; m--) {
                    parts.put((int) next(), next());
                }
                kindParts.put(f, parts);
            }
            int n = (int) next();
            parent = new int[n];
            frame = new int[n];
            self = new long[n];
            before = new long[n];
            parent[0] = -1;
            frame[0] = -1;
            if (columns == 2) {
                before[0] = next();
            }
            self[0] = next();
            int[] path = new int[4096];
            int depth = 0;
            for (int i = 1; i < n; i++) {
                depth = depth + 1 - (int) next();
                path[depth] = i;
                parent[i] = path[depth - 1];
                frame[i] = (int) next();
                if (columns == 2) {
                    before[i] = next();
                }
                self[i] = next();
            }
            samples = (int) next();
            if (samples > 0) {
                int nt = (int) next();
                for (int i = 0; i < nt; i++) {
                    threads.add(string());
                }
                boolean diff = next() == 1;
                sampleNode = new int[samples];
                sampleTime = new long[samples];
                sampleWeight = new long[samples];
                long t = 0;
                for (int i = 0; i < samples; i++) {
                    sampleNode[i] = (int) next();
                    next();
                    long z = next();
                    t += (z >>> 1) ^ -(z & 1);
                    sampleTime[i] = t;
                    next();
                    sampleWeight[i] = next();
                    if (diff) {
                        next();
                    }
                }
            }
        }

        long next() throws IOException {
            long v = 0;
            for (int shift = 0; ; shift += 7) {
                int b = in.read();
                v |= (long) (b & 0x7F) << shift;
                if (b < 0x80) {
                    return v;
                }
            }
        }

        String string() throws IOException {
            return new String(in.readNBytes((int) next()), StandardCharsets.UTF_8);
        }

        String stack(int node) {
            List<String> s = new ArrayList<>();
            for (int n = node; n > 0; n = parent[n]) {
                s.addFirst(names.get(frame[n]));
            }
            return String.join(";", s);
        }

        /** Folded lines of the decoded tree, in encoded (preorder) order. */
        List<String> folded() {
            List<String> out = new ArrayList<>();
            for (int i = 1; i < parent.length; i++) {
                if (self[i] != 0 || before[i] != 0) {
                    out.add(stack(i) + " " + (before[i] != 0 || self[i] != 0 && before != null ? before[i] + " " : "") + self[i]);
                }
            }
            return out;
        }
    }

    static Profile folded(String text) throws IOException {
        return new FoldedReader(FoldedReader.Mode.AUTO, true, 1, w -> { })
                .read(Input.ofBytes("t.folded", text.getBytes(StandardCharsets.UTF_8))).profile();
    }

    @Test
    void preorderWithHeaviestChildFirstAndParentsFromClimbCounts() throws IOException {
        Profile p = folded("main;a;b 10\nmain;c 30\nmain;a;d 15\nother 1\n");
        Decoded d = new Decoded(ViewerData.of(p).deflated(), 1);
        List<String> stacks = new ArrayList<>();
        for (int i = 1; i < d.parent.length; i++) {
            stacks.add(d.stack(i));
            assertThat(d.parent[i]).isLessThan(i);
        }
        assertThat(stacks).containsExactly("main", "main;c", "main;a", "main;a;d", "main;a;b", "other");
        assertThat(d.names).containsExactly("main", "c", "a", "d", "b", "other");
        assertThat(d.self).containsExactly(0, 0, 30, 0, 15, 10, 1);
    }

    @Test
    void differentialKeepsBothColumnsAndVanishedFramesLast() throws IOException {
        Profile p = folded("main;gone 10 0\nmain;grew 5 20\nmain;same 3 3\n");
        Decoded d = new Decoded(ViewerData.of(p).deflated(), 2);
        assertThat(d.stack(d.parent.length - 1)).isEqualTo("main;gone");
        assertThat(d.before[d.parent.length - 1]).isEqualTo(10);
        assertThat(d.self[d.parent.length - 1]).isZero();
    }

    @Test
    void namesAndKindsTravelAsBytes() throws IOException {
        Profile p = new Profile();
        int f = p.frames().frame("</script><img src=x onerror=alert(1)>", FrameKind.KERNEL);
        p.addStack(new int[] {f}, 1, 4);
        Decoded d = new Decoded(ViewerData.of(p).deflated(), 1);
        assertThat(d.names).containsExactly("</script><img src=x onerror=alert(1)>");
        assertThat(d.kinds).containsExactly(FrameKind.KERNEL.ordinal());
    }

    @Test
    void framesOfOneFunctionAreOnePageFrameWithTheirKindsAsABreakdown() throws IOException {
        Profile p = new Profile();
        int main = p.frames().frame("main", FrameKind.JIT);
        int interpreted = p.frames().frame("Work.sort", FrameKind.INTERPRETED);
        int compiled = p.frames().frame("Work.sort", FrameKind.JIT);
        CallTree t = p.tree();
        int m = t.child(CallTree.ROOT, main);
        t.addSelf(t.child(m, interpreted), 1);
        t.addSelf(t.child(m, compiled), 3);
        Timeline tl = new Timeline("nanoseconds");
        tl.add(7, 0, 10, 0, t.child(m, interpreted));
        tl.nameThread(7, "worker-1");
        p.setTimeline(tl);
        Decoded d = new Decoded(ViewerData.of(p).deflated(), 1);
        assertThat(d.names).containsExactly("main", "Work.sort");
        assertThat(d.parent).containsExactly(-1, 0, 1); // the two sibling variants are one node
        assertThat(d.self[2]).isEqualTo(4);
        assertThat(d.kinds.get(1)).isEqualTo(FrameKind.JIT.ordinal()); // its heaviest kind
        assertThat(d.kindParts).containsOnlyKeys(1);
        assertThat(d.kindParts.get(1)).containsExactly(
                java.util.Map.entry(FrameKind.JIT.ordinal(), 3L), java.util.Map.entry(FrameKind.INTERPRETED.ordinal(), 1L));
        assertThat(d.stack(d.sampleNode[0])).isEqualTo("main;Work.sort"); // the timeline follows the merge
        assertThat(d.threads).containsExactly("worker-1 (7)");
    }

    @Test
    void timelineSamplesPointAtEncodedNodes() throws IOException {
        Profile p = new Profile();
        int a = p.frames().plain("a");
        int b = p.frames().plain("b");
        CallTree t = p.tree();
        int na = t.child(CallTree.ROOT, a);
        int nb = t.child(na, b);
        Timeline tl = new Timeline("microseconds");
        tl.add(7, 0, 1000, 2, nb);
        tl.add(7, 0, 990, 2, na, 5);
        t.addSelf(nb, 1);
        t.addSelf(na, 5);
        p.setTimeline(tl);
        Decoded d = new Decoded(ViewerData.of(p).deflated(), 1);
        assertThat(d.samples).isEqualTo(2);
        assertThat(d.threads).containsExactly("7");
        assertThat(d.stack(d.sampleNode[0])).isEqualTo("a;b");
        assertThat(d.stack(d.sampleNode[1])).isEqualTo("a");
        assertThat(d.sampleTime).containsExactly(1000, 990);
        assertThat(d.sampleWeight).containsExactly(1, 5);
    }

    /** Property: for random profiles, the decoded tree holds exactly the profile's stacks and counts. */
    @Test
    void randomProfilesRoundTrip() throws IOException {
        SplittableRandom r = new SplittableRandom(11);
        for (int round = 0; round < 30; round++) {
            StringBuilder text = new StringBuilder();
            java.util.Map<String, Long> expected = new java.util.TreeMap<>();
            int lines = 1 + r.nextInt(60);
            for (int l = 0; l < lines; l++) {
                int depth = 1 + r.nextInt(12);
                StringBuilder s = new StringBuilder();
                for (int k = 0; k < depth; k++) {
                    s.append(k == 0 ? "" : ";").append("f").append(r.nextInt(6));
                }
                long c = 1 + r.nextInt(1000);
                text.append(s).append(' ').append(c).append('\n');
                expected.merge(s.toString(), c, Long::sum);
            }
            Decoded d = new Decoded(ViewerData.of(folded(text.toString())).deflated(), 1);
            java.util.Map<String, Long> got = new java.util.TreeMap<>();
            for (int i = 1; i < d.parent.length; i++) {
                if (d.self[i] != 0) {
                    got.merge(d.stack(i), d.self[i], Long::sum);
                }
            }
            assertThat(got).isEqualTo(expected);
        }
    }
}
