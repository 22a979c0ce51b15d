package org.stackfold.format.folded;

import java.util.Arrays;
import java.util.function.LongToDoubleFunction;
import org.stackfold.model.FrameTable;

/**
 * One reader range's pass for {@link FoldedReader#readWide}: the nodes of the range's stacks, taken
 * in byte order, opened and closed as the lines go by, without a tree. A node's total is the sum of
 * the counts read while it is open; its x position is the running sum when it opens, since in byte
 * order everything left of a node came before it. A closed node is kept when its total reaches the
 * minimum width for the running sum so far (a lower bound of the final one, so nothing drawn is
 * missed); only kept nodes have their names interned.
 *
 * <p>One case puts a node's lines out of flame graph order: a stack ending with frame F followed by
 * stacks going on with F's name and a byte below ';' ({@code a;F 5}, {@code a;F-b;x 1},
 * {@code a;F;y 2}). flamegraph.pl orders siblings by their name followed by ';', so {@code F-b}
 * comes before F, and F's own samples come right before F's children, after {@code F-b}. Such an F
 * is deferred: until it is placed, its own samples are taken off the x of everything opened, and it
 * is placed either when its children begin (it reopens) or when its siblings go past its name.
 *
 * <p>Column 0 is counted always, column 1 for differential input; the drawn column is the last.
 */
final class WidePass {
    private final boolean differential;
    private final LongToDoubleFunction minWidth;
    private final FrameTable frames;

    long cum0;
    long cum1;
    long maxDelta = 1;
    private long shift; // the own samples of the deferred nodes, in the drawn column
    private long seq;
    private double keepMin;
    private int sinceRefresh;
    // Where ranges join (FoldedReader.wideNodes): the nodes of the range's first stack and those open
    // at its end are always kept, so that a node going on from one range into the next can be summed.
    private int startDepth;      // depth indices below this still hold the first stack's nodes
    int[] startKept = new int[0]; // the kept index of each of the first stack's nodes
    int[] endKept = new int[0];   // the kept index of each node open at the end
    private boolean keepAll;      // closing the path open at the end
    /** The least depth index of a node still deferred at the end (MAX_VALUE: none). */
    int deferredAtEnd = Integer.MAX_VALUE;
    // What close() found, for keepClosed().
    private long closedDrawn;
    private long closedTotal0;
    private long closedDelta;

    // The open path, by depth index (0 = a root frame): the running sums when each node opened (less
    // the own samples of a reopened node, so that cum - openCum is always its total), its x, its
    // number in preorder; where differential, its own counts.
    private long[] openCum0 = new long[256];
    private long[] openCum1 = new long[256];
    private long[] openX = new long[256];
    private int[] openSeq = new int[256];
    private long[] self0;
    private long[] self1;

    // Deferred nodes, innermost on top: the stack's bytes up to the node's end, depth index, own samples.
    private byte[][] deferredPath = new byte[4][];
    private int[] deferredDepth = new int[4];
    private long[] deferred0 = new long[4];
    private long[] deferred1 = new long[4];
    private int deferredCount;

    // The range's root frames (ids in frames), in the order they opened.
    private int[] roots = new int[16];
    private int rootCount;

    // Kept nodes, in the order they closed.
    int count;
    int[] frame = new int[1024];
    int[] depth = new int[1024];
    int[] order = new int[1024];
    long[] start = new long[1024];
    long[] total = new long[1024];
    long[] before;
    long[] delta;

    WidePass(boolean differential, LongToDoubleFunction minWidth, FrameTable frames) {
        this.differential = differential;
        this.minWidth = minWidth;
        this.frames = frames;
        if (differential) {
            before = new long[1024];
            delta = new long[1024];
            self0 = new long[256];
            self1 = new long[256];
        }
        keepMin = minWidth.applyAsDouble(0);
    }

    long drawnSum() {
        return differential ? cum1 : cum0;
    }

    /** Makes room for the open path to reach depth index {@code i}. */
    private void reach(int i) {
        if (i >= openCum0.length) {
            int n = Math.max(i + 1, openCum0.length * 2);
            openCum0 = Arrays.copyOf(openCum0, n);
            openCum1 = Arrays.copyOf(openCum1, n);
            openX = Arrays.copyOf(openX, n);
            openSeq = Arrays.copyOf(openSeq, n);
            if (differential) {
                self0 = Arrays.copyOf(self0, n);
                self1 = Arrays.copyOf(self1, n);
            }
        }
    }

    /** Opens the node at depth index {@code i} (within {@link #reach}). */
    private void open(int i) {
        long c0 = cum0;
        openCum0[i] = c0;
        openX[i] = (differential ? cum1 : c0) - shift;
        openSeq[i] = (int) seq++;
        if (differential) {
            openDifferential(i);
        }
    }

    private void openDifferential(int i) {
        openCum1[i] = cum1;
        self0[i] = 0;
        self1[i] = 0;
    }

    /** Reopens the deferred node on top at depth index {@code i} (within {@link #reach}): its children begin. */
    private void reopen(int i) {
        int top = --deferredCount;
        long own = differential ? deferred1[top] : deferred0[top];
        shift -= own;
        openCum0[i] = cum0 - deferred0[top];
        openCum1[i] = cum1 - deferred1[top];
        if (differential) {
            self0[i] = deferred0[top];
            self1[i] = deferred1[top];
        }
        openX[i] = drawnSum() - shift - own;
        openSeq[i] = (int) seq++;
        deferredPath[top] = null;
    }

    /** Adds a line's counts to the running sums and to the node at depth index {@code leaf}. */
    void add(long count0, long count1, int leaf) {
        cum0 += count0;
        if (differential) {
            cum1 += count1;
            self0[leaf] += count0;
            self1[leaf] += count1;
        }
        if (++sinceRefresh == 1024) {
            sinceRefresh = 0;
            keepMin = minWidth.applyAsDouble(drawnSum());
        }
    }

    /**
     * Closes the node at depth index {@code i}. True where it is kept: the caller then names it with
     * {@link #keepClosed} (only kept nodes have their names interned).
     */
    private boolean close(int i) {
        long total0 = cum0 - openCum0[i];
        closedTotal0 = total0;
        if (differential) {
            closedDrawn = cum1 - openCum1[i];
            closedDelta = self1[i] - self0[i];
            maxDelta = Math.max(maxDelta, Math.abs(closedDelta));
        } else {
            closedDrawn = total0;
        }
        return closedDrawn >= keepMin || i < startDepth || keepAll;
    }

    /** Keeps the node at depth index {@code i} that {@link #close} has just closed, as frame {@code f}. */
    private void keepClosed(int i, int f) {
        if (i < startDepth) {
            startKept[i] = count;
            startDepth = i;
        }
        if (keepAll) {
            endKept[i] = count;
        }
        keep(f, i + 1, openX[i], closedDrawn, closedTotal0, closedDelta, openSeq[i]);
    }

    /**
     * From the previous stack {@code prev[prevOff, prevOff+prevLen)} (its frames ending at
     * {@code prevEnds[0, prevDepth)}, offsets from prevOff) to the next one {@code next[off, off+len)},
     * which shares its first {@code k} frames: places the deferred nodes the next stack goes past,
     * defers the previous stack's last frame where {@code defer} (the next stack goes on with its
     * name and a byte below ';'), and closes the previous stack's other frames from k on. True where
     * the next stack's frame k is the deferred node on top coming back (the caller reopens it).
     */
    boolean leave(int k, boolean defer, byte[] prev, int prevOff, int prevLen, int[] prevEnds, int prevDepth,
                  byte[] next, int off, int len) {
        boolean comesBack = deferredCount > 0 && placeDeferred(k, next, off, off + len);
        if (defer) {
            defer(--prevDepth, Arrays.copyOfRange(prev, prevOff, prevOff + prevLen));
        }
        closeFrom(k, prev, prevOff, prevEnds, prevDepth);
        return comesBack;
    }

    /**
     * Opens the next stack's frames from depth index {@code k} to {@code depth} (their ends in
     * {@code ends}, offsets from {@code off}); frame k reopens where {@link #leave} said it comes
     * back. {@code first}: the range's first stack.
     */
    void enter(int k, int depth, boolean comesBack, byte[] next, int off, int[] ends, boolean first) {
        reach(depth - 1);
        for (int i = k; i < depth; i++) {
            if (comesBack && i == k) {
                reopen(i);
            } else {
                open(i);
                if (i == 0) {
                    if (rootCount == roots.length) {
                        roots = Arrays.copyOf(roots, rootCount * 2);
                    }
                    roots[rootCount++] = frames.plain(next, off, ends[0]);
                }
            }
        }
        if (first) {
            startDepth = depth;
            startKept = new int[depth];
        }
    }

    /**
     * At the range's end, with the last stack open as in {@link #leave}: places what is deferred and
     * closes the open path, keeping every node.
     */
    void endRange(byte[] last, int lastOff, int[] ends, int depth) {
        for (int i = 0; i < deferredCount; i++) {
            deferredAtEnd = Math.min(deferredAtEnd, deferredDepth[i]);
        }
        while (deferredCount > 0) {
            place();
        }
        keepAll = true;
        endKept = new int[depth];
        closeFrom(0, last, lastOff, ends, depth);
    }

    /** The range's root frames, in the order they opened. */
    int[] rootFrames() {
        return Arrays.copyOf(roots, rootCount);
    }

    /** Closes the frames of the stack at {@code stack[off...]} from depth index {@code k} on, deepest first. */
    private void closeFrom(int k, byte[] stack, int off, int[] ends, int depth) {
        for (int i = depth - 1; i >= k; i--) {
            if (close(i)) {
                int from = i == 0 ? 0 : ends[i - 1] + 1;
                keepClosed(i, frames.plain(stack, off + from, ends[i] - from));
            }
        }
    }

    /**
     * Defers the node at depth index {@code i}, the last frame of the stack {@code path} (a copy):
     * the next stack goes on with its name and a byte below ';'. It has no children yet, so its
     * total is its own count.
     */
    private void defer(int i, byte[] path) {
        if (deferredCount == deferredPath.length) {
            int n = deferredCount * 2;
            deferredPath = Arrays.copyOf(deferredPath, n);
            deferredDepth = Arrays.copyOf(deferredDepth, n);
            deferred0 = Arrays.copyOf(deferred0, n);
            deferred1 = Arrays.copyOf(deferred1, n);
        }
        startDepth = Math.min(startDepth, i); // the first stack's last node: never one that goes on from the range before
        deferredPath[deferredCount] = path;
        deferredDepth[deferredCount] = i;
        deferred0[deferredCount] = cum0 - openCum0[i];
        deferred1[deferredCount] = differential ? cum1 - openCum1[i] : 0;
        shift += differential ? deferred1[deferredCount] : deferred0[deferredCount];
        deferredCount++;
    }

    /**
     * Before the stack {@code b[s, e)} whose first new frame is at depth index {@code k}: places the
     * deferred nodes it goes past. True where that first new frame is the deferred node on top
     * coming back with children (then reopened by {@link #enter}).
     */
    private boolean placeDeferred(int k, byte[] b, int s, int e) {
        while (deferredCount > 0) {
            int top = deferredCount - 1;
            int d = deferredDepth[top];
            if (d < k) {
                return false;
            }
            if (d == k) {
                byte[] path = deferredPath[top];
                int len = path.length;
                if (e - s > len && Arrays.mismatch(b, s, s + len, path, 0, len) < 0) {
                    int next = b[s + len] & 0xff;
                    if (next == ';') {
                        return true;
                    }
                    if (next < ';') {
                        return false; // still among the names that go on from its name
                    }
                }
            }
            place();
        }
        return false;
    }

    /** Places the deferred node on top where the drawing has got to: after the names that went on from it. */
    private void place() {
        int top = --deferredCount;
        long own0 = deferred0[top];
        long own1 = deferred1[top];
        long drawn = differential ? own1 : own0;
        long x = drawnSum() - shift;
        shift -= drawn;
        long d = 0;
        if (differential) {
            d = own1 - own0;
            maxDelta = Math.max(maxDelta, Math.abs(d));
        }
        int s = (int) seq++;
        if (drawn >= keepMin) {
            byte[] path = deferredPath[top];
            int from = path.length;
            while (from > 0 && path[from - 1] != ';') {
                from--;
            }
            keep(frames.plain(path, from, path.length - from), deferredDepth[top] + 1, x, drawn, own0, d, s);
        }
        deferredPath[top] = null;
    }

    /** Set where the range has more nodes than an int numbers: the caller reads with trees. */
    boolean tooManyNodes() {
        return seq > Integer.MAX_VALUE;
    }

    private void keep(int f, int dep, long x, long drawn, long total0, long d, int s) {
        if (count == frame.length) {
            int n = count * 2;
            frame = Arrays.copyOf(frame, n);
            depth = Arrays.copyOf(depth, n);
            order = Arrays.copyOf(order, n);
            start = Arrays.copyOf(start, n);
            total = Arrays.copyOf(total, n);
            if (differential) {
                before = Arrays.copyOf(before, n);
                delta = Arrays.copyOf(delta, n);
            }
        }
        frame[count] = f;
        depth[count] = dep;
        order[count] = s;
        start[count] = x;
        total[count] = drawn;
        if (differential) {
            before[count] = total0;
            delta[count] = d;
        }
        count++;
    }

    /** The kept nodes' indices in preorder (the order they opened in flame graph order). */
    int[] preorder() {
        long[] keys = new long[count];
        for (int i = 0; i < count; i++) {
            keys[i] = ((long) order[i] << 32) | i;
        }
        Arrays.sort(keys);
        int[] out = new int[count];
        for (int i = 0; i < count; i++) {
            out[i] = (int) keys[i];
        }
        return out;
    }
}
