package org.stackfold.transform;

import java.util.Arrays;
import org.stackfold.model.CallTree;
import org.stackfold.model.Profile;
import org.stackfold.model.Timeline;

/**
 * {@code --time-range FROM:TO}: keeps the samples taken from FROM up to (not including) TO seconds
 * after the profile's first sample (either end may be left out), and counts the stacks again from
 * them. Only a profile with a {@link Timeline} of timestamps has times; others are refused.
 */
public final class TimeRange implements Transform {
    private final double from;
    private final double to;
    private final String text;

    public TimeRange(double from, double to, String text) {
        if (!(from < to)) {
            throw new IllegalArgumentException("--time-range wants FROM before TO, not '" + text + "'");
        }
        this.from = from;
        this.to = to;
        this.text = text;
    }

    /** {@code FROM:TO} in seconds, {@code FROM:} or {@code :TO}. */
    public static TimeRange parse(String spec) {
        int colon = spec.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("--time-range wants FROM:TO in seconds (either may be left out), not '" + spec + "'");
        }
        try {
            double a = colon == 0 ? Double.NEGATIVE_INFINITY : Double.parseDouble(spec.substring(0, colon));
            double b = colon == spec.length() - 1 ? Double.POSITIVE_INFINITY : Double.parseDouble(spec.substring(colon + 1));
            return new TimeRange(a, b, spec);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--time-range wants FROM:TO in seconds, not '" + spec + "'");
        }
    }

    @Override
    public String describe() {
        return "--time-range " + text;
    }

    /** Seconds per unit of a timeline's timestamps, or 0 where they are no time. */
    static double seconds(String unit) {
        return switch (unit) {
            case "nanoseconds", "ns" -> 1e-9;
            case "microseconds", "us" -> 1e-6;
            case "milliseconds", "ms" -> 1e-3;
            case "seconds", "s" -> 1;
            default -> 0;
        };
    }

    @Override
    public Profile apply(Profile p) {
        Timeline tl = p.timeline();
        double unit = tl == null ? 0 : seconds(tl.timeUnit());
        if (unit == 0) {
            throw new IllegalArgumentException("--time-range needs samples with times, and this profile has "
                    + (tl == null ? "no timeline" : "no timestamps (its order is in " + tl.timeUnit() + ")")
                    + " (formats with one: JFR --timeline, Tachyon, speedscope, Chrome, Firefox, record)");
        }
        CallTree t = p.tree();
        long first = Long.MAX_VALUE;
        for (int i = 0; i < tl.size(); i++) {
            first = Math.min(first, tl.timestamp(i));
        }
        boolean diff = t.isDifferential();
        CallTree out = new CallTree(t.weights());
        int[] made = new int[t.size()]; // new node + 1
        made[CallTree.ROOT] = 1;
        int[] chain = new int[64];
        int[] map = new int[t.size()];
        Arrays.fill(map, -1);
        Timeline kept = new Timeline(tl.timeUnit());
        java.util.Set<Long> named = new java.util.HashSet<>();
        for (int i = 0; i < tl.size(); i++) {
            double s = (tl.timestamp(i) - first) * unit;
            if (s < from || s >= to) {
                continue;
            }
            int node = tl.node(i);
            int depth = 0;
            for (int m = node; made[m] == 0; m = t.parent(m)) {
                if (depth == chain.length) {
                    chain = Arrays.copyOf(chain, depth * 2);
                }
                chain[depth++] = m;
            }
            while (depth > 0) {
                int m = chain[--depth];
                made[m] = out.child(made[t.parent(m)] - 1, t.frame(m)) + 1;
            }
            int n = made[node] - 1;
            long thread = tl.threadId(i);
            if (named.add(thread)) {
                kept.nameThread(thread, tl.threadName(thread));
            }
            if (diff) {
                out.addSelf(n, 0, tl.before(i));
                out.addSelf(n, 1, tl.weight(i));
                kept.add(thread, tl.interpreterId(i), tl.timestamp(i), tl.status(i), n, tl.before(i), tl.weight(i));
            } else {
                out.addSelf(n, 0, tl.weight(i));
                kept.add(thread, tl.interpreterId(i), tl.timestamp(i), tl.status(i), n, tl.weight(i));
            }
        }
        Profile result = new Profile(p.frames(), out, p.valueTypes());
        result.setTimeline(kept);
        return result;
    }
}
