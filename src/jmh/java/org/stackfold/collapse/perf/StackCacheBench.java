package org.stackfold.collapse.perf;

import java.io.OutputStream;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.stackfold.format.folded.FoldedWriter;
import org.stackfold.model.CallTree;
import org.stackfold.model.DistinctStacks;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/**
 * The samples' stacks into a call tree, as the perf collapser's ranges end: counted in the
 * {@link StackCache} and built sorted at the end ({@link StackCache#addTo}, no lookups), against
 * each sample walked in with child lookups; and the counted stacks written as folded text straight
 * from their sorted order, against through the tree. 200K samples of 50K distinct stacks, 8-40 frames deep,
 * grown from a few thousand frames under 20 root frames so that they share long prefixes as a
 * recording's do. Run (C1 only, as the launcher runs {@code collapse perf}):
 * <pre>
 *   scripts/jmh StackCacheBench -jvmArgsAppend -XX:TieredStopAtLevel=1
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgs = {"-Xmx1g", "-XX:+UseParallelGC"})
public class StackCacheBench {
    private int[] roots;
    private int[][] stacks; // leaf first, as the parser collects them
    private FrameTable names; // a name for each frame id

    @Setup
    public void setUp() {
        SplittableRandom r = new SplittableRandom(42);
        int distinct = 50_000;
        int[] distinctRoots = new int[distinct];
        int[][] distinctStacks = new int[distinct][];
        for (int s = 0; s < distinct; s++) {
            // A variation of an earlier stack (its outer frames kept), or a new one.
            int depth = 8 + r.nextInt(33);
            int[] stack = new int[depth];
            int kept = 0;
            if (s > 0 && r.nextInt(10) > 0) {
                int[] earlier = distinctStacks[r.nextInt(s)];
                distinctRoots[s] = distinctRoots[s - 1 - r.nextInt(Math.min(s, 8))];
                kept = Math.min(depth, r.nextInt(earlier.length + 1));
                System.arraycopy(earlier, earlier.length - kept, stack, depth - kept, kept);
            } else {
                distinctRoots[s] = r.nextInt(20);
            }
            for (int d = 0; d < depth - kept; d++) {
                stack[d] = 20 + r.nextInt(4000);
            }
            distinctStacks[s] = stack;
        }
        names = new FrameTable();
        for (int f = 0; f < 4020; f++) {
            names.plain((f < 20 ? "process-" : "org/example/Class" + (f % 97) + ".method") + f);
        }
        int n = 200_000;
        roots = new int[n];
        stacks = new int[n][];
        for (int i = 0; i < n; i++) {
            int s = i < distinct ? i : r.nextInt(distinct);
            roots[i] = distinctRoots[s];
            stacks[i] = distinctStacks[s];
        }
    }

    @Benchmark
    public CallTree countedThenBuiltSorted() {
        CallTree tree = new CallTree();
        counted().addTo(tree);
        return tree;
    }

    /** The counted stacks, as the collapser hands them on. */
    private DistinctStacks counted() {
        StackCache cache = new StackCache(StackCache.MAX_INTS);
        for (int i = 0; i < stacks.length; i++) {
            int[] stack = stacks[i];
            int h = StackCache.hash(roots[i], stack, stack.length);
            int at = cache.find(h, roots[i], stack, stack.length);
            if (at >= 0) {
                cache.add(at, 1000);
            } else {
                cache.put(h, roots[i], stack, stack.length, 1000);
            }
        }
        return cache.stacks();
    }

    /** Folded output of the counted stacks straight from their sorted order, no tree (what collapse perf does). */
    @Benchmark
    public void countedThenWrittenFolded() throws java.io.IOException {
        new FoldedWriter(false).write(Profile.ofStacks(names, counted(), List.of(Profile.ValueType.SAMPLES)),
                OutputStream.nullOutputStream());
    }

    /** The same output through the call tree: built sorted, its sibling lists sorted by name, walked. */
    @Benchmark
    public void countedThenWrittenThroughTree() throws java.io.IOException {
        Profile p = Profile.ofStacks(names, counted(), List.of(Profile.ValueType.SAMPLES));
        p.tree();
        new FoldedWriter(false).write(p, OutputStream.nullOutputStream());
    }

    @Benchmark
    public CallTree walkedInOneByOne() {
        CallTree tree = new CallTree();
        for (int i = 0; i < stacks.length; i++) {
            int[] stack = stacks[i];
            int node = tree.child(CallTree.ROOT, roots[i]);
            for (int d = stack.length - 1; d >= 0; d--) {
                node = tree.child(node, stack[d]);
            }
            tree.addSelf(node, 1000);
        }
        return tree;
    }
}
