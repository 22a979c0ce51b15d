package org.stackfold.format.tachyon;

import java.nio.charset.StandardCharsets;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameKind;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;
import org.stackfold.model.Timeline;

/**
 * Feeds any profile to a {@link TachyonWriter}. With a {@link Timeline} each sample keeps its
 * thread, interpreter, time and status; without one, each stack's weight becomes samples one
 * interval apart: a count is that many samples, a time (nanoseconds, ...) is one sample per interval
 * of it (rounded to the nearest; what a sampler at that interval would have taken). Tachyon stores
 * a record per sample, so more than {@link #MAX_SAMPLES} is refused in one line rather than written
 * for hours (a weight in bytes, or {@code a;b 100000000000}). A root frame {@code tid:N} (as CPython's collapsed output and Stackfold's
 * Tachyon reader write) becomes the thread id rather than a frame. Frames without a file get the
 * file {@code ~} and no location, which CPython shows as the bare name, as it does {@code <GC>}.
 */
final class ProfileToTachyon {
    private static final byte[] TILDE = {'~'};
    /** Most samples made from weights: a 1 kHz profile of almost three hours. */
    static final long MAX_SAMPLES = 10_000_000;

    private ProfileToTachyon() {
    }

    static void feed(Profile p, TachyonWriter w, long start, long interval) {
        CallTree tree = p.tree();
        FrameTable frames = p.frames();
        long[] threadOfRoot = new long[frames.size()];
        boolean[] isThreadRoot = new boolean[frames.size()];
        for (int f = 0; f < frames.size(); f++) {
            String n = frames.name(f);
            if (n.startsWith("tid:") && !frames.hasLocation(f)) {
                try {
                    threadOfRoot[f] = Long.parseUnsignedLong(n.substring(4));
                    isThreadRoot[f] = true;
                } catch (NumberFormatException e) {
                    // an ordinary frame that happens to start with "tid:"
                }
            }
        }
        int[] stack = new int[Tachyon.MAX_STACK_DEPTH];
        Timeline tl = p.timeline();
        if (tl != null && tl.unitWeights()) {
            for (int i = 0; i < tl.size(); i++) {
                int d = innermostFirst(tree, tl.node(i), stack, isThreadRoot);
                w.sample(tl.threadId(i), tl.interpreterId(i), tl.status(i), tl.timestamp(i), stack, d);
            }
            return;
        }
        long nanosPerUnit = nanosPerUnit(p.valueTypes().getFirst().unit());
        long intervalNanos = Math.multiplyHigh(interval, 1000) != 0 ? Long.MAX_VALUE : interval * 1000;
        long total = 0;
        for (int n = 1; n < tree.size(); n++) {
            total += Math.min(samples(tree.self(n), nanosPerUnit, intervalNanos), MAX_SAMPLES + 1);
            if (total > MAX_SAMPLES) {
                throw new org.stackfold.io.InputException("the profile's weights make more than " + MAX_SAMPLES
                        + " Tachyon samples (" + (nanosPerUnit > 0 ? "one per " + interval + " microseconds of time"
                        : "one per count of " + p.valueTypes().getFirst().type()) + "); Tachyon stores a record per sample"
                        + (nanosPerUnit > 0 ? ": raise --tachyon-interval" : ": write another format"));
            }
        }
        long t = start;
        for (int n = 1; n < tree.size(); n++) {
            long c = samples(tree.self(n), nanosPerUnit, intervalNanos);
            if (c <= 0) {
                continue;
            }
            int d = innermostFirst(tree, n, stack, isThreadRoot);
            long tid = 0;
            int root = n;
            while (tree.parent(root) != CallTree.ROOT) {
                root = tree.parent(root);
            }
            if (isThreadRoot[tree.frame(root)]) {
                tid = threadOfRoot[tree.frame(root)];
            }
            for (long k = 0; k < c; k++) {
                t += interval;
                w.sample(tid, 0, 0, t, stack, d);
            }
        }
    }

    /** Samples standing for a weight: the count itself, or a time divided by the interval (rounded). */
    private static long samples(long weight, long nanosPerUnit, long intervalNanos) {
        if (weight <= 0 || nanosPerUnit <= 0) {
            return weight;
        }
        double nanos = (double) weight * nanosPerUnit;
        return (long) Math.min(Math.rint(nanos / intervalNanos), Long.MAX_VALUE);
    }

    /** Nanoseconds in one unit of a time value type, or 0 for counts, bytes and the rest. */
    static long nanosPerUnit(String unit) {
        return switch (unit == null ? "" : unit) {
            case "nanoseconds", "ns" -> 1;
            case "microseconds", "us" -> 1_000;
            case "milliseconds", "ms" -> 1_000_000;
            case "seconds", "s" -> 1_000_000_000;
            default -> 0;
        };
    }

    /** The frames of a node's stack, innermost first, without a thread root; the innermost 256 at most. */
    private static int innermostFirst(CallTree tree, int node, int[] out, boolean[] isThreadRoot) {
        int d = 0;
        for (int m = node; m != CallTree.ROOT && d < out.length; m = tree.parent(m)) {
            int f = tree.frame(m);
            if (tree.parent(m) == CallTree.ROOT && isThreadRoot[f]) {
                break;
            }
            out[d++] = f;
        }
        return d;
    }

    static FrameSource frames(FrameTable t) {
        return new FrameSource() {
            @Override
            public byte[] file(int f) {
                String file = t.file(f);
                return file == null ? TILDE : file.getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public byte[] function(int f) {
                return t.nameBytes(f);
            }

            @Override
            public int line(int f) {
                return t.line(f);
            }

            @Override
            public int endLine(int f) {
                return t.endLine(f);
            }

            @Override
            public int column(int f) {
                return t.column(f);
            }

            @Override
            public int endColumn(int f) {
                return t.endColumn(f);
            }

            @Override
            public int opcode(int f) {
                int op = t.opcode(f);
                return op == FrameTable.NONE || t.kind(f) == FrameKind.UNKNOWN && !t.hasLocation(f)
                        ? Tachyon.NO_OPCODE : op;
            }
        };
    }
}
