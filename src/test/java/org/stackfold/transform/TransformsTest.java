package org.stackfold.transform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.stackfold.format.folded.FoldedWriter;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;
import org.stackfold.model.Timeline;

/** Each rule on small profiles: the folded stacks it gives, recursion and empty results included. */
class TransformsTest {
    static final String SAMPLE = """
            main;a;f;b;f;c 3
            main;a;g 2
            main;log;x 4
            main;f;f;f 1
            thr;work 5
            """;

    static Profile profile(String folded) {
        Profile p = new Profile();
        FrameTable t = p.frames();
        for (String line : folded.strip().split("\n")) {
            int sp = line.lastIndexOf(' ');
            String[] names = line.substring(0, sp).split(";");
            int[] ids = new int[names.length];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = t.plain(names[i]);
            }
            p.addStack(ids, ids.length, Long.parseLong(line.substring(sp + 1)));
        }
        return p;
    }

    static String folded(Profile p) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            new FoldedWriter(p.tree().isDifferential()).write(p, out);
            return out.toString(StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static String apply(String folded, Transform... steps) {
        return folded(new Transforms(List.of(steps)).apply(profile(folded)));
    }

    static FramePattern re(String s) {
        return FramePattern.regex(s);
    }

    @Test
    void focusKeepsWholeStacksThroughAMatch() {
        assertThat(apply(SAMPLE, new Focus(re("^f$")))).isEqualTo("main;a;f;b;f;c 3\nmain;f;f;f 1\n");
    }

    @Test
    void ignoreDropsStacksWithAMatch() {
        assertThat(apply(SAMPLE, new Ignore(re("^f$|log")))).isEqualTo("main;a;g 2\nthr;work 5\n");
    }

    @Test
    void hideRemovesFramesAndKeepsTheirCountsWithTheCaller() {
        assertThat(apply(SAMPLE, new Hide(re("^(f|log)$"))))
                .isEqualTo("main 1\nmain;a;b;c 3\nmain;a;g 2\nmain;x 4\nthr;work 5\n");
    }

    @Test
    void showKeepsOnlyMatchingFrames() {
        assertThat(apply(SAMPLE, new Show(re("^(main|f)$")))).isEqualTo("main 6\nmain;f;f 3\nmain;f;f;f 1\n");
    }

    @Test
    void showFromCutsAboveTheOutermostMatchAndDropsTheRest() {
        assertThat(apply(SAMPLE, new ShowFrom(re("^f$")))).isEqualTo("f;b;f;c 3\nf;f;f 1\n");
    }

    @Test
    void pruneFromCutsBelowTheInnermostMatch() {
        assertThat(apply(SAMPLE, new PruneFrom(re("^f$")))).isEqualTo("main;a;f;b;f 3\nmain;a;g 2\nmain;f;f;f 1\nmain;log;x 4\nthr;work 5\n");
    }

    @Test
    void collapseRecursionDirectAndIndirect() {
        assertThat(apply(SAMPLE, new CollapseRecursion(re("^f$"))))
                .isEqualTo("main;a;f;c 3\nmain;a;g 2\nmain;f 1\nmain;log;x 4\nthr;work 5\n");
        // Two recursive functions: the outermost decides first; what lies between goes.
        assertThat(apply("r;f;g;f;g;x 1\nr;g;g 2\n", new CollapseRecursion(re("^[fg]$")))).isEqualTo("r;f;g;x 1\nr;g 2\n");
    }

    @Test
    void mapRenamesAndMergesStacks() {
        String in = "main;vec<int>::push 2\nmain;vec<long>::push 3\nmain;Foo$$Lambda$12/0x1234 1\n";
        assertThat(apply(in, Rename.parse("<[^>]*>="), Rename.parse("\\$\\$Lambda\\$[0-9]+/0x[0-9a-f]+=\\$\\$Lambda")))
                .isEqualTo("main;Foo$$Lambda 1\nmain;vec::push 5\n");
        assertThat(apply("a(b);c 1\n", Rename.parse("^(\\w+)\\(.*\\)=$1"))).isEqualTo("a;c 1\n");
        assertThatThrownBy(() -> Rename.parse("noequals")).hasMessageContaining("RE=NAME");
    }

    @Test
    void focusPathKeepsTheSubtreeOfANode() {
        assertThat(apply(SAMPLE, new FocusPath(List.of("main", "a")))).isEqualTo("a;f;b;f;c 3\na;g 2\n");
        assertThat(apply(SAMPLE, new FocusPath(List.of("a")))).isEmpty();
    }

    @Test
    void rootFilterKeepsAThread() {
        assertThat(apply(SAMPLE, new RootFilter(re("^thr$")))).isEqualTo("thr;work 5\n");
    }

    @Test
    void topStacksKeepsTheHeaviest() {
        assertThat(apply(SAMPLE, new TopStacks(2))).isEqualTo("main;log;x 4\nthr;work 5\n");
        assertThat(apply(SAMPLE, new TopStacks(0))).isEmpty();
        assertThat(apply(SAMPLE, new TopStacks(10))).isEqualTo(folded(profile(SAMPLE)));
    }

    @Test
    void rulesApplyInTheOrderGiven() {
        // hide then focus: f is gone before focus looks for it; focus then hide: the stacks stay, without f.
        assertThat(apply(SAMPLE, new Hide(re("^f$")), new Focus(re("^f$")))).isEmpty();
        assertThat(apply(SAMPLE, new Focus(re("^f$")), new Hide(re("^f$")))).isEqualTo("main 1\nmain;a;b;c 3\n");
    }

    @Test
    void emptyResultsAndEmptyProfiles() {
        assertThat(apply(SAMPLE, new Focus(re("nothing")))).isEmpty();
        assertThat(apply(SAMPLE, new ShowFrom(re("nothing")))).isEmpty();
        assertThat(folded(new Transforms(List.of(new Hide(re(".")))).apply(new Profile()))).isEmpty();
        assertThat(Transforms.none().isEmpty()).isTrue();
        Profile p = profile(SAMPLE);
        assertThat(Transforms.none().apply(p)).isSameAs(p); // no pass at all
    }

    @Test
    void usedFramesLeavesOutWhatTransformsRemoved() {
        Profile p = new Transforms(List.of(new Hide(re("^log$")), Rename.parse("^thr$=thread"))).apply(profile(SAMPLE));
        Profile used = Transforms.withUsedFrames(p);
        List<String> names = new java.util.ArrayList<>();
        for (int f = 0; f < used.frames().size(); f++) {
            names.add(used.frames().name(f));
        }
        assertThat(names).doesNotContain("log", "thr").contains("thread", "main");
        assertThat(folded(used)).isEqualTo(folded(p));
    }

    @Test
    void badRegexIsOneLine() {
        assertThatThrownBy(() -> FramePattern.regex("(")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("bad regular expression '('");
    }

    @Test
    void differentialProfilesKeepBothColumns() {
        Profile d = Profile.differential();
        int m = d.frames().plain("main");
        int f = d.frames().plain("f");
        int g = d.frames().plain("g");
        int n1 = d.tree().path(new int[] {m, f, g}, 0, 3);
        d.tree().addSelf(n1, 0, 2);
        d.tree().addSelf(n1, 1, 5);
        assertThat(folded(new Hide(re("^f$")).apply(d))).isEqualTo("main;g 2 5\n");
    }

    @Test
    void timelineFollowsItsStacksAndTimeRangeRecounts() {
        Profile p = profile("main;a 1\nmain;b 1\n");
        int a = p.tree().path(new int[] {p.frames().plain("main"), p.frames().plain("a")}, 0, 2);
        int b = p.tree().path(new int[] {p.frames().plain("main"), p.frames().plain("b")}, 0, 2);
        Timeline tl = new Timeline("microseconds");
        tl.add(1, 0, 1_000_000, 0, a);
        tl.add(1, 0, 3_500_000, 0, b);
        p.setTimeline(tl);
        Profile hidden = new Ignore(re("^a$")).apply(p);
        assertThat(hidden.timeline().size()).isEqualTo(1);
        assertThat(hidden.tree().frame(hidden.timeline().node(0))).isEqualTo(p.frames().plain("b"));
        assertThat(folded(TimeRange.parse("2:").apply(p))).isEqualTo("main;b 1\n");
        assertThat(folded(TimeRange.parse(":1").apply(p))).isEqualTo("main;a 1\n");
        assertThat(folded(TimeRange.parse("5:9").apply(p))).isEmpty();
        assertThatThrownBy(() -> TimeRange.parse("2:1")).hasMessageContaining("FROM before TO");
        assertThatThrownBy(() -> TimeRange.parse("0:1").apply(profile("a 1\n"))).hasMessageContaining("no timeline");
    }

    @Test
    void pendingStacksAreRewrittenWithoutATree() {
        FrameTable t = new FrameTable();
        int main = t.plain("main");
        int f = t.plain("f");
        // Two stacks innermost first in one arena: (weight hi, lo, inner..outer).
        int[] arena = {0, 3, f, f, main, 0, 2, f, main};
        long[] paths = {((long) 4 << 32) | 2, ((long) 8 << 32) | 7};
        Profile p = Profile.ofStacks(t, new org.stackfold.model.DistinctStacks(arena, paths), List.of(Profile.ValueType.SAMPLES));
        assertThat(folded(new CollapseRecursion(re("^f$")).apply(p))).isEqualTo("main;f 5\n");
        assertThat(p.pendingStacks()).isNotNull(); // the input's tree was never built
    }
}
