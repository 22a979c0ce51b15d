package org.stackfold.model;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Joining the trees of a parallel read ({@link CallTree#appendDisjoint}): the second range's tree,
 * here a random tree of {@code nodes} nodes, appended whole. The append consumes that tree, so it is
 * built again before each call (outside the measured time). Run with {@code scripts/jmh CallTreeAppend}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgs = {"-Xmx2g"})
@Warmup(iterations = 3)
@Measurement(iterations = 5)
public class CallTreeAppendBenchmark {
    @Param({"5000000"})
    int nodes;

    private CallTree other;
    private int[] frameMap;

    @Setup(Level.Invocation)
    public void setup() {
        SplittableRandom r = new SplittableRandom(3);
        other = new CallTree();
        int[] path = new int[64];
        int depth = 0;
        for (int i = 0; i < nodes; i++) {
            // Sorted-collapser shape: keep a prefix of the last path, grow a new node under it.
            depth = r.nextInt(Math.min(depth, 40) + 1);
            int parent = depth == 0 ? CallTree.ROOT : path[depth - 1];
            path[depth] = other.child(parent, r.nextInt(5000));
            other.addSelf(path[depth], 1);
            depth++;
        }
        frameMap = new int[5000];
        for (int f = 0; f < frameMap.length; f++) {
            frameMap[f] = f;
        }
    }

    @Benchmark
    public int appendDisjoint() {
        CallTree t = new CallTree();
        t.appendDisjoint(other, frameMap);
        return t.size();
    }
}
