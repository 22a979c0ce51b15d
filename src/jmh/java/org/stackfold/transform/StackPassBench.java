package org.stackfold.transform;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
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
import org.stackfold.format.folded.FoldedReader;
import org.stackfold.io.Input;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/**
 * The transforms' one pass ({@code StackPass}) over a big profile: a hide, and a chain of four stack
 * rules (still one pass). Input: {@code -Dstackfold.bench.folded=...} (default {@code /tmp/folded-1m.txt},
 * from {@code ../shared/bench/gen_folded.py}); where it does not exist, 200,000 random stacks of depth
 * 10-50 over 5,000 names. Run: {@code scripts/jmh StackPassBench}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
@Fork(value = 1, jvmArgs = {"-Xmx4g", "-XX:+UseParallelGC"})
public class StackPassBench {
    @Param({"hide", "chain"})
    public String transforms;

    private Profile profile;
    private Transforms chain;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        Path given = Path.of(System.getProperty("stackfold.bench.folded", "/tmp/folded-1m.txt"));
        if (Files.isRegularFile(given)) {
            profile = new FoldedReader(FoldedReader.Mode.PLAIN, false, Runtime.getRuntime().availableProcessors(), w -> { })
                    .read(Input.open(given.toString())).profile();
        } else {
            profile = new Profile();
            FrameTable t = profile.frames();
            Random r = new Random(7);
            int[] ids = new int[64];
            for (int s = 0; s < 200_000; s++) {
                int d = 10 + r.nextInt(41);
                for (int i = 0; i < d; i++) {
                    ids[i] = t.plain("fn_" + (i < 3 ? i : r.nextInt(5000)));
                }
                profile.addStack(ids, d, 1 + r.nextInt(20));
            }
        }
        profile.tree();
        chain = new Transforms(transforms.equals("hide") ? List.of(new Hide(FramePattern.regex("^fn_1")))
                : List.of(new Ignore(FramePattern.regex("^fn_42$")), new Hide(FramePattern.regex("^fn_1")),
                        new CollapseRecursion(FramePattern.regex("^fn_7")), Rename.parse("_[0-9]+$=")));
    }

    @Benchmark
    public Profile apply() {
        return chain.apply(profile);
    }
}
