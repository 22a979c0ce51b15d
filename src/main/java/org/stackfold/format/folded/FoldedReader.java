package org.stackfold.format.folded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongToDoubleFunction;
import org.stackfold.io.ByteBlocks;
import org.stackfold.io.ByteView;
import org.stackfold.io.Input;
import org.stackfold.io.Parallel;
import org.stackfold.io.InputException;
import org.stackfold.io.Progress;
import org.stackfold.model.ByteWords;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;
import org.stackfold.model.WideNodes;

/**
 * Reads folded stacks ({@code main;foo;bar 42}) and differential folded stacks
 * ({@code main;foo 10 14}) into a {@link Profile}. The rules are in {@code docs/formats/folded.md}.
 *
 * <p>Speed: the input is cut into one range per core at line boundaries (found through a
 * {@link ByteView}, which maps nothing); each range is read in blocks by plain reads and parsed on bytes into its own frame table and tree, then the trees are merged. Within a
 * range a line shares its leading frames with the line before it (collapser output is sorted), so
 * only the frames after the first difference are hashed and looked up.
 */
public final class FoldedReader {
    /** Longest line accepted; longer is an error rather than an OutOfMemoryError. */
    public static final int MAX_LINE = 256 << 20;
    private static final long MIN_PARALLEL_BYTES = 16 << 20;
    private static final long SEMICOLONS = ByteWords.broadcast(';');

    /** Plain, differential, or decided by the first record (two trailing counts = differential). */
    public enum Mode { PLAIN, DIFFERENTIAL, AUTO }

    private final Mode mode;
    private final boolean lenient;
    private final int threads;
    private final Consumer<String> warnings;
    private final long minParallelBytes;

    /** What a read found besides the profile: the numbers {@code stackfold info} prints. */
    public record Stats(long lines, long records, long skipped, long fractional, int maxDepth, long depthSum,
                        long distinctStacks) {
        public double meanDepth() {
            return records == 0 ? 0 : (double) depthSum / records;
        }
    }

    public record Result(Profile profile, Stats stats) {
    }

    public FoldedReader(Mode mode, boolean lenient, int threads, Consumer<String> warnings) {
        this(mode, lenient, threads, warnings, MIN_PARALLEL_BYTES);
    }

    /** Inputs from {@code minParallelBytes} on are cut into ranges (tests cut small inputs). */
    FoldedReader(Mode mode, boolean lenient, int threads, Consumer<String> warnings, long minParallelBytes) {
        this.mode = mode;
        this.lenient = lenient;
        this.threads = Math.max(1, threads);
        this.warnings = warnings;
        this.minParallelBytes = minParallelBytes;
    }

    public static FoldedReader plain() {
        return new FoldedReader(Mode.PLAIN, false, Runtime.getRuntime().availableProcessors(), w -> { });
    }

    /**
     * What {@code stackfold info} prints, without building the one tree {@link #read} builds: where the
     * ranges share no root frame (the reader cut them where the root changes), the nodes are the sum of
     * the range trees', the frames the union of their names, the stacks and samples the ranges' sums.
     * Ranges that share a root are merged as {@link #read} merges them.
     */
    public record Summary(Stats stats, boolean differential, long[] samples, int distinctFrames, long nodes) {
    }

    public Result read(Input in) throws IOException {
        Parsed parsed = parse(in, false, null);
        List<Worker> workers = parsed.workers;
        Worker first = workers.getFirst();
        mergeAll(workers);
        warn(in, workers);
        Profile p = new Profile(first.frames, first.tree,
                parsed.mode == Mode.DIFFERENTIAL
                        ? List.of(Profile.ValueType.SAMPLES, Profile.ValueType.SAMPLES)
                        : List.of(Profile.ValueType.SAMPLES));
        return new Result(p, stats(workers, countRecordNodes(first.recordBits)));
    }

    public Summary summarize(Input in) throws IOException {
        Summary counted = countWithoutTrees(in);
        return counted != null ? counted : summarizeWithTrees(in);
    }

    /**
     * {@link #summarize} in one pass without any tree, for input whose stacks come in byte order (as
     * collapsers sort them): each line then shares its leading frames with the line before, a node is
     * a frame after that shared part, and no node left behind is entered again but one: a stack that
     * ends with frame F followed by stacks going on with F's name and a byte below {@code ;}
     * ({@code a;b 5}, {@code a;b2;x 1}, {@code a;b;c 3} is byte order, and {@code a;b} comes back
     * once); such frames are remembered until they do. Null where a range is out of byte order,
     * shares a root frame with another range, or its sums overflow: the caller then reads with trees.
     * Interning the names remains (distinct frames).
     */
    Summary countWithoutTrees(Input in) throws IOException {
        Parsed parsed = parse(in, true, null);
        List<Worker> workers = parsed.workers;
        Worker first = workers.getFirst();
        if (workers.stream().anyMatch(w -> w.notInOrder || w.samplesOverflow) || !rootsDisjoint(workers)) {
            return null;
        }
        warn(in, workers);
        boolean differential = parsed.mode == Mode.DIFFERENTIAL;
        long nodes = 0;
        long stacks = 0;
        long[] samples = new long[differential ? 2 : 1];
        for (Worker w : workers) {
            nodes += w.nodes;
            stacks += w.distinctStacks;
            for (int c = 0; c < samples.length; c++) {
                samples[c] = Math.addExact(samples[c], w.samples[c]);
            }
        }
        return new Summary(stats(workers, stacks), differential, samples, first.frames.names().size(), nodes);
    }

    private Summary summarizeWithTrees(Input in) throws IOException {
        Parsed parsed = parse(in, false, null);
        List<Worker> workers = parsed.workers;
        Worker first = workers.getFirst();
        boolean differential = parsed.mode == Mode.DIFFERENTIAL;
        int weights = differential ? 2 : 1;
        if (!rootsDisjoint(workers)) {
            mergeAll(workers);
            warn(in, workers);
            long[] samples = new long[weights];
            for (int c = 0; c < weights; c++) {
                samples[c] = first.tree.totalSamples(c);
            }
            return new Summary(stats(workers, countRecordNodes(first.recordBits)), differential, samples,
                    first.frames.names().size(), first.tree.size() - 1L);
        }
        warn(in, workers);
        long nodes = 0;
        long stacks = 0;
        long[] samples = new long[weights];
        for (Worker w : workers) {
            nodes += w.tree.size() - 1;
            stacks += countRecordNodes(w.recordBits);
            if (w.samplesOverflow) {
                throw new ArithmeticException("long overflow"); // as CallTree.totalSamples would
            }
            for (int c = 0; c < weights; c++) {
                samples[c] = Math.addExact(samples[c], w.samples[c]);
            }
        }
        return new Summary(stats(workers, stacks), differential, samples, first.frames.names().size(), nodes);
    }

    /**
     * The input as one tree per reader range, for a consumer that can take them apart (a flame graph's
     * layout): range {@code i}'s tree, whose frame ids map to {@code frames} through
     * {@code frameMaps.get(i)}. Where the ranges share no root frame the trees are left as read (no
     * append); otherwise they are merged into one, as {@link #read} merges them.
     */
    public record Ranges(FrameTable frames, List<CallTree> trees, List<int[]> frameMaps, boolean differential,
                         Stats stats) {
    }

    public Ranges readRanges(Input in) throws IOException {
        Parsed parsed = parse(in, false, null);
        List<Worker> workers = parsed.workers;
        Worker first = workers.getFirst();
        boolean differential = parsed.mode == Mode.DIFFERENTIAL;
        if (!rootsDisjoint(workers)) {
            mergeAll(workers);
            warn(in, workers);
            return new Ranges(first.frames, List.of(first.tree), List.of(identity(first.frames.size())),
                    differential, stats(workers, countRecordNodes(first.recordBits)));
        }
        warn(in, workers);
        List<CallTree> trees = new ArrayList<>();
        List<int[]> maps = new ArrayList<>();
        long stacks = 0;
        for (Worker w : workers) {
            trees.add(w.tree);
            maps.add(w == first ? identity(w.frames.size()) : frameMap(first, w)); // interned already: lookups
            stacks += countRecordNodes(w.recordBits);
        }
        return new Ranges(first.frames, trees, maps, differential, stats(workers, stacks));
    }

    /**
     * The input's flame graph nodes that are at least {@code minWidth.applyAsDouble(sum)} wide, for the
     * sum of the drawn column (a lower bound of the final minimum width, taken on the running sum),
     * placed as a flame graph of the whole input places them, in one pass without any tree (see
     * {@link WidePass}). Null where the input does not allow it (see {@link #sharedAcross} for
     * where ranges meet): stacks out of byte order, ranges that share a root frame other than across
     * a cut, sums past 2^63-1; the caller then reads with trees ({@link #readRanges}).
     */
    public WideNodes readWide(Input in, LongToDoubleFunction minWidth) throws IOException {
        WideNodes fast = scanWide(in, minWidth);
        if (fast != null) {
            return fast;
        }
        Parsed parsed = parse(in, false, minWidth);
        List<Worker> workers = parsed.workers;
        if (workers.stream().anyMatch(w -> w.notInOrder || w.samplesOverflow || w.wide.tooManyNodes())) {
            return null;
        }
        List<WideRange> ranges = new ArrayList<>();
        for (Worker w : workers) {
            ranges.add(new WideRange(w.frames, w.wide.rootFrames(), w.firstStack,
                    w.firstStack == null ? null : Arrays.copyOf(w.prev, w.prevLen), w.wide));
        }
        Join join = joined(ranges);
        if (join == null) {
            return null;
        }
        warn(in, workers);
        return wideNodes(ranges, join, parsed.mode == Mode.DIFFERENTIAL);
    }

    /**
     * {@link #readWide} by {@link WideScan}s: plain input of the plain shape only (see there); null
     * where any range gives up, and the general line loop reads it.
     */
    WideNodes scanWide(Input in, LongToDoubleFunction minWidth) throws IOException {
        List<WideScan> scans = scan(in, minWidth);
        if (scans == null) {
            return null;
        }
        List<WideRange> ranges = scans.stream().map(WideScan::range).toList();
        Join join = joined(ranges);
        return join == null ? null : wideNodes(ranges, join, false);
    }

    /** The ranges' scans, or null where the input is differential or a range gave up. */
    private List<WideScan> scan(Input in, LongToDoubleFunction minWidth) throws IOException {
        ByteView data = in.view();
        long size = data.size();
        long[] cuts = rangeCuts(data);
        if (decide(data, cuts[0]) == Mode.DIFFERENTIAL) {
            return null;
        }
        List<WideScan> scans = new ArrayList<>();
        try (Progress progress = Progress.start("reading " + in.name(), size)) {
            long[] done = new long[cuts.length - 1];
            for (int i = 0; i + 1 < cuts.length; i++) {
                scans.add(new WideScan(in, cuts[i], cuts[i + 1], minWidth, partProgress(progress, cuts, done, i)));
            }
            Parallel.runAll(scans);
        }
        return scans.stream().anyMatch(s -> s.gaveUp || s.wide.tooManyNodes()) ? null : scans;
    }

    /** One range read for {@link #readWide}: its names, root frames, first and last stacks, and pass. */
    record WideRange(FrameTable frames, int[] roots, byte[] firstStack, byte[] lastStack, WidePass pass) {
    }

    /**
     * How the ranges of {@link #readWide} join: each one's frame map into the first range's frame
     * table (null for the first), and how many frames its first stack shares with the last stack of
     * the range before (those are one node each, summed where they meet).
     */
    private record Join(List<int[]> maps, int[] shared) {
    }

    /** The ranges' {@link Join}, or null where they cannot be joined without a tree. */
    private static Join joined(List<WideRange> ranges) {
        int[] shared = sharedAcross(ranges);
        if (shared == null) {
            return null;
        }
        FrameTable first = ranges.getFirst().frames;
        List<int[]> maps = new ArrayList<>();
        java.util.BitSet roots = new java.util.BitSet();
        for (int ri = 0; ri < ranges.size(); ri++) {
            WideRange r = ranges.get(ri);
            int[] map = r.frames == first ? null : frameMap(first, r.frames);
            maps.add(map);
            for (int j = shared[ri] > 0 ? 1 : 0; j < r.roots.length; j++) { // not the root going on from before
                int g = map == null ? r.roots[j] : map[r.roots[j]];
                if (roots.get(g)) {
                    return null;
                }
                roots.set(g);
            }
        }
        return new Join(maps, shared);
    }

    /**
     * Per range, the number of frames its first stack shares with the last stack of the range with
     * records before it. Null where the ranges cannot be joined: out of byte order, the same stack on
     * both sides, a first stack going on from the last one's last frame with a byte below ';', or a
     * node still deferred at a range's end whose parent goes on into the next range (see
     * {@link WidePass}: its place depends on what comes after).
     */
    private static int[] sharedAcross(List<WideRange> ranges) {
        int[] shared = new int[ranges.size()];
        WideRange before = null;
        for (int ri = 0; ri < ranges.size(); ri++) {
            WideRange r = ranges.get(ri);
            if (r.firstStack == null) {
                continue; // no record in this range
            }
            if (before != null) {
                byte[] a = before.lastStack;
                byte[] b = r.firstStack;
                int m = Arrays.mismatch(a, b);
                if (m < 0 || FoldedSyntax.follows(a, 0, a.length, b, 0, b.length, m) != FoldedSyntax.AFTER) {
                    return null;
                }
                int frames = 0;
                for (int i = 0; i < m; i++) {
                    frames += b[i] == ';' ? 1 : 0;
                }
                if (m == a.length && b[m] == ';') {
                    frames++; // b goes on from a's whole last stack
                }
                if (frames >= before.pass.deferredAtEnd) {
                    return null;
                }
                shared[ri] = frames;
            }
            before = r;
        }
        return shared;
    }

    /**
     * The ranges' kept nodes as one list, in preorder, each range's placed after the ones before it;
     * a range's first nodes that go on from the range before are summed into the nodes they go on from.
     */
    private static WideNodes wideNodes(List<WideRange> ranges, Join join, boolean differential) {
        FrameTable first = ranges.getFirst().frames;
        int count = 0;
        for (WideRange r : ranges) {
            count = Math.addExact(count, r.pass.count);
        }
        int[] frame = new int[count];
        int[] depth = new int[count];
        long[] start = new long[count];
        long[] total = new long[count];
        long[] before = differential ? new long[count] : null;
        long[] delta = differential ? new long[count] : null;
        long[] samples = new long[differential ? 2 : 1];
        long maxDelta = 1;
        long offset = 0;
        int k = 0;
        int[] path = new int[0]; // the list index of each node open at the end of the ranges so far
        for (int ri = 0; ri < ranges.size(); ri++) {
            WidePass p = ranges.get(ri).pass;
            int[] frameMap = join.maps.get(ri);
            int shared = join.shared[ri];
            int[] at = new int[p.count];
            for (int i : p.preorder()) {
                int d = p.depth[i] - 1;
                if (d < shared && p.startKept[d] == i) {
                    int t = path[d];
                    at[i] = t;
                    total[t] = Math.addExact(total[t], p.total[i]);
                    if (differential) {
                        before[t] = Math.addExact(before[t], p.before[i]);
                        delta[t] = Math.addExact(delta[t], p.delta[i]);
                        maxDelta = Math.max(maxDelta, Math.abs(delta[t]));
                    }
                    continue;
                }
                at[i] = k;
                frame[k] = frameMap == null ? p.frame[i] : frameMap[p.frame[i]];
                depth[k] = p.depth[i];
                start[k] = offset + p.start[i];
                total[k] = p.total[i];
                if (differential) {
                    before[k] = p.before[i];
                    delta[k] = p.delta[i];
                }
                k++;
            }
            if (ranges.get(ri).firstStack != null) {
                path = new int[p.endKept.length];
                for (int d = 0; d < path.length; d++) {
                    path[d] = at[p.endKept[d]];
                }
            }
            offset = Math.addExact(offset, p.drawnSum());
            samples[0] = Math.addExact(samples[0], p.cum0);
            if (differential) {
                samples[1] = Math.addExact(samples[1], p.cum1);
            }
            maxDelta = Math.max(maxDelta, p.maxDelta);
        }
        return new WideNodes(first, k, frame, depth, start, total, before, delta, samples, maxDelta);
    }

    private static int[] identity(int n) {
        int[] map = new int[n];
        for (int i = 0; i < n; i++) {
            map[i] = i;
        }
        return map;
    }

    /**
     * True where no two ranges share a root frame. Interns every range's names into the first range's
     * frame table, in the order {@link #merge} would (so a merge after this one finds the same ids).
     */
    private static boolean rootsDisjoint(List<Worker> workers) {
        Worker first = workers.getFirst();
        java.util.BitSet roots = new java.util.BitSet();
        for (Worker w : workers) {
            int[] frameMap = w == first ? null : frameMap(first, w);
            for (int r : w.rootFrames()) {
                int f = frameMap == null ? r : frameMap[r];
                if (roots.get(f)) {
                    return false;
                }
                roots.set(f);
            }
        }
        return true;
    }

    /** The readers' ranges parsed, errors thrown (the first in file order). */
    private record Parsed(List<Worker> workers, Mode mode) {
    }

    /**
     * {@code countOnly}: no trees, see {@link #countWithoutTrees}; {@code wideMinWidth} (or null): no
     * trees either, the wide nodes instead, see {@link #readWide}.
     */
    private Parsed parse(Input in, boolean countOnly, LongToDoubleFunction wideMinWidth) throws IOException {
        ByteView data = in.view();
        long size = data.size();
        long[] cuts = rangeCuts(data);
        Mode decided = decide(data, cuts[0]);
        List<Worker> workers = new ArrayList<>();
        try (Progress progress = Progress.start("reading " + in.name(), size)) {
            long[] done = new long[cuts.length - 1];
            for (int i = 0; i + 1 < cuts.length; i++) {
                workers.add(new Worker(in, cuts[i], cuts[i + 1], decided, lenient, countOnly, wideMinWidth,
                        partProgress(progress, cuts, done, i)));
            }
            Parallel.runAll(workers);
        }
        if ((countOnly || wideMinWidth != null) && workers.stream().anyMatch(w -> w.notInOrder || w.samplesOverflow)) {
            // Given up (a range stopped early): the reading with trees says which error comes first.
            return new Parsed(workers, decided);
        }
        // Errors: the first in file order, with its line number counted from the start of the file.
        long linesBefore = 0;
        for (Worker w : workers) {
            if (w.error != null) {
                throw InputException.atLine(in.name(), linesBefore + w.errorLine, w.error);
            }
            linesBefore += w.lines;
        }
        return new Parsed(workers, decided);
    }

    /** Where the readers' ranges start and end; the first starts after a UTF-8 byte-order mark (not part of the first frame). */
    private long[] rangeCuts(ByteView data) {
        long[] cuts = cutAtLines(data, data.size() >= minParallelBytes ? threads : 1);
        cuts[0] = FoldedSyntax.bomLength(data);
        return cuts;
    }

    /** The mode asked for, or in AUTO the one the first record shows (two trailing counts: differential). */
    private Mode decide(ByteView data, long start) {
        return mode != Mode.AUTO ? mode : FoldedKind.isDifferential(data, start, true) ? Mode.DIFFERENTIAL : Mode.PLAIN;
    }

    /** Range {@code part}'s reader reports where it got to: the progress shown is the sum over ranges. */
    private static java.util.function.LongConsumer partProgress(Progress progress, long[] cuts, long[] done, int part) {
        return pos -> {
            synchronized (done) {
                done[part] = pos - cuts[part];
                progress.update(Arrays.stream(done).sum());
            }
        };
    }

    private static Stats stats(List<Worker> workers, long distinctStacks) {
        long lines = 0, records = 0, skipped = 0, fractional = 0, depthSum = 0;
        int maxDepth = 0;
        for (Worker w : workers) {
            lines += w.lines;
            records += w.records;
            skipped += w.skipped;
            fractional += w.fractional;
            depthSum += w.depthSum;
            maxDepth = Math.max(maxDepth, w.maxDepth);
        }
        return new Stats(lines, records, skipped, fractional, maxDepth, depthSum, distinctStacks);
    }

    private void warn(Input in, List<Worker> workers) {
        long skipped = 0, fractional = 0;
        for (Worker w : workers) {
            skipped += w.skipped;
            fractional += w.fractional;
        }
        if (skipped > 0) {
            warnings.accept(in.name() + ": skipped " + skipped + " bad line" + (skipped == 1 ? "" : "s")
                    + " (first at line " + firstSkippedLine(workers) + ": " + firstSkippedReason(workers) + ")");
        }
        if (fractional > 0) {
            warnings.accept(in.name() + ": " + fractional + " fractional sample count"
                    + (fractional == 1 ? " was" : "s were") + " truncated to integers"
                    + " (scale the counts up and use --factor to keep the precision)");
        }
    }

    private static long firstSkippedLine(List<Worker> workers) {
        long before = 0;
        for (Worker w : workers) {
            if (w.firstSkipLine > 0) {
                return before + w.firstSkipLine;
            }
            before += w.lines;
        }
        return 0;
    }

    private static String firstSkippedReason(List<Worker> workers) {
        for (Worker w : workers) {
            if (w.firstSkipReason != null) {
                return w.firstSkipReason;
            }
        }
        return "";
    }

    private static long countRecordNodes(long[] bits) {
        long n = 0;
        for (long b : bits) {
            n += Long.bitCount(b);
        }
        return n;
    }

    /**
     * Cut points: 0, a line start near each k/parts of the size, then the size. Where the input is
     * sorted a cut is moved to the nearest place where the root frame changes (within an eighth of a
     * part's bytes either way), so the ranges share no nodes and merging them is an append rather
     * than a lookup per node. The change is found by bisection over lines: in sorted input that is
     * the first line of the next root; elsewhere it is some line with another root, and the merge
     * then looks nodes up.
     */
    static long[] cutAtLines(ByteView data, int parts) {
        long size = data.size();
        long[] cuts = new long[parts + 1];
        cuts[parts] = size;
        long reach = size / parts / 8;
        for (int k = 1; k < parts; k++) {
            long p = nextLineStart(data, Math.max(cuts[k - 1], size * k / parts));
            byte[] root = rootFrame(data, p);
            long best = p;
            long after = nextLineStart(data, Math.min(size, p + reach));
            if (after < size && !Arrays.equals(root, rootFrame(data, after))) {
                best = firstChange(data, p, after, root);
            }
            long before = nextLineStart(data, Math.max(cuts[k - 1], p - reach));
            if (before < p && !Arrays.equals(root, rootFrame(data, before))) {
                long b = firstChange(data, before, p, root);
                if (best == p || p - b < best - p) {
                    best = b;
                }
            }
            cuts[k] = best;
        }
        long[] distinct = Arrays.stream(cuts).distinct().toArray();
        return distinct.length >= 2 ? distinct : new long[] {0, size};
    }

    /**
     * The first line start in (lo, hi] where "the root frame is {@code root}" differs from lo's,
     * given that it differs at hi: bisection, exact where the roots are sorted.
     */
    private static long firstChange(ByteView data, long lo, long hi, byte[] root) {
        boolean atLo = Arrays.equals(root, rootFrame(data, lo));
        while (true) {
            long mid = nextLineStart(data, lo + (hi - lo) / 2);
            if (mid >= hi) {
                mid = nextLineStart(data, lo); // one long line spans the middle
                if (mid >= hi) {
                    return hi; // hi is the line after lo
                }
            }
            if (Arrays.equals(root, rootFrame(data, mid)) == atLo) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
    }

    private static long nextLineStart(ByteView data, long p) {
        long size = data.size();
        while (p < size && data.get(p) != '\n') {
            p++;
        }
        return Math.min(size, p + 1);
    }

    private static byte[] rootFrame(ByteView data, long lineStart) {
        long size = data.size();
        long e = lineStart;
        while (e < size && e - lineStart < 4096) {
            byte c = data.get(e);
            if (c == ';' || c == '\n' || c == '\r' || c == ' ') {
                break;
            }
            e++;
        }
        byte[] b = new byte[(int) (e - lineStart)];
        data.copy(lineStart, b, 0, b.length);
        return b;
    }

    /** Adds every range's tree into the first's, in file order. */
    private static void mergeAll(List<Worker> workers) {
        for (int i = 1; i < workers.size(); i++) {
            merge(workers.getFirst(), workers.get(i));
        }
    }

    /** Adds b's tree into a's: frames re-interned, nodes re-parented, counts summed. */
    private static void merge(Worker a, Worker b) {
        int[] frameMap = frameMap(a, b);
        CallTree ta = a.tree;
        CallTree tb = b.tree;
        if (sharesNoRoot(ta, tb, frameMap)) {
            int offset = ta.appendDisjoint(tb, frameMap);
            a.markRecords(b.recordBits, offset);
            return;
        }
        int weights = ta.weights();
        int[] nodeMap = new int[tb.size()];
        int createdFrom = ta.size(); // nodes made by this merge have only children made by it
        for (int n = 1; n < tb.size(); n++) {
            int parent = nodeMap[tb.parent(n)];
            int m = parent >= createdFrom ? ta.newChild(parent, frameMap[tb.frame(n)])
                    : ta.child(parent, frameMap[tb.frame(n)]);
            nodeMap[n] = m;
            for (int c = 0; c < weights; c++) {
                long s = tb.self(n, c);
                if (s != 0) {
                    ta.addSelf(m, c, s);
                }
            }
            if (b.hasRecord(n)) {
                a.markRecord(m);
            }
        }
    }

    /** b's frame ids in a's table, b's names interned there (idempotent: a second call finds them). */
    private static int[] frameMap(Worker a, Worker b) {
        return frameMap(a.frames, b.frames);
    }

    private static int[] frameMap(FrameTable a, FrameTable b) {
        int[] frameMap = new int[b.size()];
        for (int f = 0; f < frameMap.length; f++) {
            byte[] name = b.nameBytes(f);
            frameMap[f] = a.plain(name, 0, name.length);
        }
        return frameMap;
    }

    private static boolean sharesNoRoot(CallTree ta, CallTree tb, int[] frameMap) {
        for (int r = tb.firstChild(CallTree.ROOT); r != 0; r = tb.nextSibling(r)) {
            if (ta.find(CallTree.ROOT, frameMap[tb.frame(r)]) >= 0) {
                return false;
            }
        }
        return true;
    }

    /** Parses one byte range into its own frames and tree. */
    private static final class Worker implements Runnable {
        private final Input in;
        private final long from;
        private final long to;
        private final Mode mode;
        private final boolean lenient;
        private final java.util.function.LongConsumer progress;
        final FrameTable frames = new FrameTable();
        final CallTree tree;
        long[] recordBits = new long[1024];

        long lines;
        long records;
        long skipped;
        long fractional;
        long depthSum;
        int maxDepth;
        // Sums of the counts per column, for info; sticky once past 2^63-1 (counts are never negative).
        final long[] samples = new long[2];
        boolean samplesOverflow;
        String error;
        long errorLine;
        long firstSkipLine;
        String firstSkipReason;
        private boolean afterCr; // the last line ended with '\r': a '\n' right after it ends nothing

        // The previous record's stack: its bytes, where each frame ends, and each depth's node.
        private byte[] prev = new byte[4096];
        private int prevLen;
        private int prevDepth;
        private int[] prevEnds = new int[256];
        private int[] prevNodes = new int[257];

        // Counting without a tree (countOnly): what the tree would have, and whether the input allowed it.
        private final boolean countOnly;
        long nodes;
        long distinctStacks;
        int[] roots = new int[16];
        int rootCount;
        boolean notInOrder;
        // Frames whose node may be entered again (see countOnlyCheck): their stacks' bytes, and depth.
        private byte[][] pending = new byte[4][];
        private int[] pendingDepths = new int[4];
        private int pendingCount;

        // The pass for wide nodes (readWide), and the range's first stack (checked against the range before).
        final WidePass wide;
        byte[] firstStack;

        Worker(Input in, long from, long to, Mode mode, boolean lenient, boolean countOnly,
               LongToDoubleFunction wideMinWidth, java.util.function.LongConsumer progress) {
            this.in = in;
            this.from = from;
            this.to = to;
            this.mode = mode;
            this.lenient = lenient;
            this.countOnly = countOnly;
            this.progress = progress;
            this.tree = new CallTree(mode == Mode.DIFFERENTIAL ? 2 : 1);
            this.wide = wideMinWidth == null ? null : new WidePass(mode == Mode.DIFFERENTIAL, wideMinWidth, frames);
        }

        boolean hasRecord(int node) {
            int w = node >>> 6;
            return w < recordBits.length && (recordBits[w] & (1L << node)) != 0;
        }

        /** Marks node {@code n + offset} for every node n marked in {@code bits}: a word at a time. */
        void markRecords(long[] bits, int offset) {
            int used = bits.length;
            while (used > 0 && bits[used - 1] == 0) {
                used--;
            }
            if (used == 0) {
                return;
            }
            int lastWord = (int) ((((long) used << 6) + offset) >>> 6) + 1;
            if (lastWord >= recordBits.length) {
                recordBits = Arrays.copyOf(recordBits, Math.max(lastWord + 1, recordBits.length * 2));
            }
            int shift = offset & 63;
            for (int w = 0; w < used; w++) {
                long x = bits[w];
                if (x != 0) {
                    int to = (int) ((((long) w << 6) + offset) >>> 6);
                    recordBits[to] |= x << shift;
                    if (shift != 0) {
                        recordBits[to + 1] |= x >>> (64 - shift);
                    }
                }
            }
        }

        void markRecord(int node) {
            int w = node >>> 6;
            if (w >= recordBits.length) {
                recordBits = Arrays.copyOf(recordBits, Math.max(w + 1, recordBits.length * 2));
            }
            recordBits[w] |= 1L << node;
        }

        @Override
        public void run() {
            ByteBlocks.Stop stop;
            try (ByteBlocks.Source bytes = in.range(from, to)) {
                stop = ByteBlocks.read(bytes, to - from, MAX_LINE, this::lines, done -> progress.accept(from + done));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (stop != null && error == null && !notInOrder) {
                fail(lines + 1, stop.reason());
            }
            if (wide != null && error == null && !notInOrder) {
                wide.endRange(prev, 0, prevEnds, prevDepth);
            }
        }

        /** Parses the whole lines of a block; see {@link ByteBlocks.Consumer}. */
        private int lines(byte[] buf, int start, int filled, boolean last) {
            while (true) {
                int nl = FoldedSyntax.indexOfLineEnd(buf, start, filled);
                if (nl < 0) {
                    break;
                }
                boolean crlf = afterCr && nl == start && buf[nl] == '\n';
                if (!crlf) {
                    lines++;
                    if (!line(buf, start, nl)) {
                        return -1;
                    }
                }
                afterCr = buf[nl] == '\r';
                start = nl + 1;
            }
            if (last && start < filled) {
                lines++;
                if (!line(buf, start, filled)) {
                    return -1;
                }
                start = filled;
            }
            return start;
        }

        private void fail(long line, String what) {
            error = what;
            errorLine = line;
        }

        /** Returns false to stop (a strict error). */
        private boolean bad(String what) {
            if (!lenient) {
                fail(lines, what);
                return false;
            }
            if (skipped++ == 0) {
                firstSkipLine = lines;
                firstSkipReason = what;
            }
            return true;
        }

        private boolean line(byte[] b, int s, int e) {
            while (e > s && FoldedSyntax.isSpace(b[e - 1])) {
                e--;
            }
            while (s < e && FoldedSyntax.isSpace(b[s])) {
                s++;
            }
            if (s == e) {
                return true; // blank line
            }
            if (b[s] == '#' && (s + 1 == e || b[s + 1] == ' ')) {
                return true; // "# key: value" header, as austin writes
            }
            long count2 = 0;
            int stackEnd;
            int c = FoldedSyntax.numberStart(b, s, e);
            if (c == e || c == s || !FoldedSyntax.isSpace(b[c - 1])) {
                return bad(c == s && c < e ? "no stack before the count" : "no count at the end of the line");
            }
            long count = parseCount(b, c, e);
            if (count < 0) {
                return bad(count == FoldedSyntax.TOO_LARGE ? "count does not fit in 64 bits" : "bad count");
            }
            stackEnd = c - 1;
            while (stackEnd > s && FoldedSyntax.isSpace(b[stackEnd - 1])) {
                stackEnd--;
            }
            if (mode == Mode.DIFFERENTIAL) {
                int c1 = FoldedSyntax.numberStart(b, s, stackEnd);
                if (c1 == stackEnd || c1 == s || !FoldedSyntax.isSpace(b[c1 - 1])) {
                    return bad("differential record needs two counts");
                }
                count2 = count;
                count = parseCount(b, c1, stackEnd);
                if (count < 0) {
                    return bad(count == FoldedSyntax.TOO_LARGE ? "count does not fit in 64 bits" : "bad count");
                }
                stackEnd = c1 - 1;
                while (stackEnd > s && FoldedSyntax.isSpace(b[stackEnd - 1])) {
                    stackEnd--;
                }
            }
            if (stackEnd == s) {
                return bad("empty stack");
            }
            if (wide != null) {
                wideStack(b, s, stackEnd);
                if (!notInOrder) {
                    wide.add(count, count2, prevDepth - 1);
                }
                records++;
                samplesOverflow |= (samples[0] += count) < 0 | (samples[1] += count2) < 0;
                return !notInOrder;
            }
            int node = stackNode(b, s, stackEnd);
            if (countOnly) {
                records++;
                samplesOverflow |= (samples[0] += count) < 0 | (samples[1] += count2) < 0;
                return !notInOrder; // out of order: the count is given up, so the range need not be read on
            }
            try {
                tree.addSelf(node, 0, count);
                if (mode == Mode.DIFFERENTIAL) {
                    tree.addSelf(node, 1, count2);
                }
            } catch (ArithmeticException overflow) {
                fail(lines, "the counts of this stack add up to more than 2^63-1");
                return false;
            }
            markRecord(node);
            records++;
            samplesOverflow |= (samples[0] += count) < 0 | (samples[1] += count2) < 0;
            return true;
        }

        /**
         * For {@link FoldedReader#countWithoutTrees}: the stack b[s, s+len) against the previous one,
         * which differ first at {@code m} (-1: the same stack). Notes a new distinct stack, and
         * whether the pass may go on: the stack must not come before the previous one in byte order,
         * and where the previous stack's frame ends at {@code m} without being shared, the new frame
         * there must not go on with a byte below ';' (the previous frame's node could come back).
         */
        private void countOnlyCheck(byte[] b, int s, int len, int m) {
            if (m < 0) {
                return; // the same stack again
            }
            distinctStacks++;
            if (prevLen == 0 && prevDepth == 0) {
                return; // the range's first stack
            }
            int order = FoldedSyntax.follows(prev, 0, prevLen, b, s, len, m);
            if (order == FoldedSyntax.BEFORE) {
                notInOrder = true;
                return;
            }
            if (order == FoldedSyntax.GOES_ON) {
                // The previous stack ended with frame F and this one goes on with F's name and a byte
                // below ';' (F+0x5d after F): F's children, if any, come after this run of lines.
                if (pendingCount == pending.length) {
                    pending = Arrays.copyOf(pending, pendingCount * 2);
                    pendingDepths = Arrays.copyOf(pendingDepths, pendingCount * 2);
                }
                pending[pendingCount] = Arrays.copyOf(prev, prevLen);
                pendingDepths[pendingCount++] = prevDepth - 1;
            }
        }

        /**
         * True where the first new frame of the stack b[s, e), at depth {@code depth}, is a frame left
         * behind as in {@link #countOnlyCheck} (its node exists already); forgets it then.
         */
        private boolean comesBack(byte[] b, int s, int e, int depth) {
            for (int i = 0; i < pendingCount; i++) {
                byte[] path = pending[i];
                int end = s + path.length;
                if (pendingDepths[i] == depth && end < e && b[end] == ';'
                        && Arrays.equals(b, s, end, path, 0, path.length)) {
                    pending[i] = pending[--pendingCount];
                    pendingDepths[i] = pendingDepths[pendingCount];
                    return true;
                }
            }
            return false;
        }

        /**
         * For {@link FoldedReader#readWide}: the stack b[s, e) against the previous one. The previous
         * stack's frames after the shared ones close (its last one is deferred where this stack goes
         * on with its name and a byte below ';', see {@link WidePass}), this stack's new frames open.
         * Out of byte order: the pass gives up ({@code notInOrder}).
         */
        private void wideStack(byte[] b, int s, int e) {
            int len = e - s;
            int m = Arrays.mismatch(b, s, e, prev, 0, prevLen);
            if (m < 0) {
                return; // the same stack again: the same leaf
            }
            boolean first = prevLen == 0;
            int order = first ? FoldedSyntax.AFTER : FoldedSyntax.follows(prev, 0, prevLen, b, s, len, m);
            if (order == FoldedSyntax.BEFORE) {
                notInOrder = true;
                return;
            }
            if (first) {
                firstStack = Arrays.copyOfRange(b, s, e);
            }
            int k = FoldedSyntax.framesBefore(prevEnds, prevDepth, m);
            if (k < prevDepth && prevEnds[k] == m && b[s + m] == ';') {
                k++;
            }
            boolean comesBack = wide.leave(k, order == FoldedSyntax.GOES_ON, prev, 0, prevLen, prevEnds, prevDepth, b, s, len);
            // This stack's frames from k on: each ends at the next ';' or the stack's end.
            int depth = k;
            int j = depth == 0 ? s : s + prevEnds[depth - 1] + 1;
            while (true) {
                while (true) {
                    int left = e - j;
                    long w = left >= 8 ? ByteWords.word(b, j) : ByteWords.partialWord(b, j, left);
                    int at = Math.min(ByteWords.firstIndex(ByteWords.matches(w, SEMICOLONS)), left);
                    j += at;
                    if (at < 8) {
                        break;
                    }
                }
                if (depth == prevEnds.length) {
                    prevEnds = Arrays.copyOf(prevEnds, depth * 2);
                    prevNodes = Arrays.copyOf(prevNodes, depth * 2 + 1);
                }
                prevEnds[depth++] = j - s;
                if (j >= e) {
                    break;
                }
                j++;
            }
            wide.enter(k, depth, comesBack, b, s, prevEnds, first);
            prevDepth = depth;
            if (len > prev.length) {
                prev = new byte[Math.max(len, prev.length * 2)];
            }
            System.arraycopy(b, s, prev, 0, len);
            prevLen = len;
        }

        /** The root frames of this range (its own frame ids): the tree's, or those counted without one. */
        int[] rootFrames() {
            if (countOnly) {
                return Arrays.copyOf(roots, rootCount);
            }
            int[] out = new int[16];
            int n = 0;
            for (int r = tree.firstChild(CallTree.ROOT); r != 0; r = tree.nextSibling(r)) {
                if (n == out.length) {
                    out = Arrays.copyOf(out, n * 2);
                }
                out[n++] = tree.frame(r);
            }
            return Arrays.copyOf(out, n);
        }

        private void addRoot(int frame) {
            if (rootCount == roots.length) {
                roots = Arrays.copyOf(roots, rootCount * 2);
            }
            roots[rootCount++] = frame;
        }

        /** The count in b[s, e): truncated where fractional (and counted), or {@link FoldedSyntax#TOO_LARGE}. */
        private long parseCount(byte[] b, int s, int e) {
            if (FoldedSyntax.losesFraction(b, s, e)) {
                fractional++;
            }
            return FoldedSyntax.parseCount(b, s, e);
        }

        /** The node of the stack in b[s, e), sharing the leading frames with the previous record. */
        private int stackNode(byte[] b, int s, int e) {
            int len = e - s;
            int m = Arrays.mismatch(b, s, e, prev, 0, prevLen);
            if (countOnly) {
                countOnlyCheck(b, s, len, m);
            }
            if (m < 0) {
                m = len;
            }
            // Shared frames: those of the previous stack that end before the mismatch, plus the one
            // ending at it if both stacks have a frame boundary there.
            int k = FoldedSyntax.framesBefore(prevEnds, prevDepth, m);
            if (k < prevDepth && prevEnds[k] == m && (m == len || b[s + m] == ';')) {
                k++;
            }
            int node = prevNodes[k];
            int depth = k;
            if (countOnly && pendingCount > 0 && comesBack(b, s, e, depth)) {
                nodes--; // counted below as new, though its node was made before
            }
            int createdFrom = tree.size(); // nodes from here on are new: they have no children yet
            if (!(depth > 0 && prevEnds[depth - 1] == len)) {
                int i = depth == 0 ? 0 : prevEnds[depth - 1] + 1;
                while (true) {
                    // The name runs to the next ';' or the stack's end; it is hashed word by word on the way.
                    int startOfName = s + i;
                    int j = startOfName;
                    long h = ByteWords.HASH_START;
                    while (true) {
                        int left = e - j;
                        long w = left >= 8 ? ByteWords.word(b, j) : ByteWords.partialWord(b, j, left);
                        int at = Math.min(ByteWords.firstIndex(ByteWords.matches(w, SEMICOLONS)), left);
                        if (at < 8) {
                            if (at > 0) {
                                h = ByteWords.mix(h, w & ByteWords.lowBytes(at));
                            }
                            j += at;
                            break;
                        }
                        h = ByteWords.mix(h, w);
                        j += 8;
                    }
                    int nameLen = j - startOfName;
                    int frame = frames.plain(b, startOfName, nameLen, ByteWords.finish(h, nameLen));
                    if (countOnly) {
                        nodes++;
                        if (depth == 0) {
                            addRoot(frame);
                        }
                    } else {
                        node = node >= createdFrom ? tree.newChild(node, frame) : tree.child(node, frame);
                    }
                    if (depth == prevEnds.length) {
                        prevEnds = Arrays.copyOf(prevEnds, depth * 2);
                        prevNodes = Arrays.copyOf(prevNodes, depth * 2 + 1);
                    }
                    prevEnds[depth] = j - s;
                    prevNodes[depth + 1] = node;
                    depth++;
                    if (j >= e) {
                        break;
                    }
                    i = j - s + 1;
                }
            }
            prevDepth = depth;
            if (len > prev.length) {
                prev = new byte[Math.max(len, prev.length * 2)];
            }
            System.arraycopy(b, s, prev, 0, len);
            prevLen = len;
            depthSum += depth;
            if (depth > maxDepth) {
                maxDepth = depth;
            }
            return node;
        }
    }
}
