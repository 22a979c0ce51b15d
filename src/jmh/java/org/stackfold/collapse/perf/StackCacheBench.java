package org.stackfold.collapse.perf;

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
import org.stackfold.model.CallTree;

/**
 * The samples' stacks into a call tree, as the perf collapser's ranges end: counted in the
 * {@link StackCache} and built sorted at the end ({@link StackCache#addTo}, no lookups), against
 * each sample walked in with child lookups. 200K samples of 50K distinct stacks, 8-40 frames deep,
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
        CallTree tree = new CallTree();
        cache.addTo(tree);
        return tree;
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
