package org.stackfold.format.pprof;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A profile's {@code drop_frames} and {@code keep_frames}, applied as {@code go tool pprof} applies
 * them by default (its {@code profile.Prune}): a function whose simplified name matches
 * {@code ^(drop_frames)$} and not {@code ^(keep_frames)$} is removed from each sample together with
 * everything it called; frames at the root before the first frame that does not match stay (so a
 * profile is never emptied). Inside a location (a function and the ones inlined into it) the outermost
 * matching line cuts: the lines it and inner ones are dropped, the sample ends at that location.
 */
final class PrunedFrames {
    private static final byte NONE = 0, BENEATH = 1, PRUNE = 2;

    private final Pattern drop;
    private final Pattern keep;
    private final ProtoReader r;
    private final PprofReader.Tables t;
    private final Map<String, Boolean> cache = new HashMap<>();
    /** Location id → {state, inner lines to skip}. */
    private final Map<Long, int[]> locations = new HashMap<>();

    private PrunedFrames(Pattern drop, Pattern keep, ProtoReader r, PprofReader.Tables t) {
        this.drop = drop;
        this.keep = keep;
        this.r = r;
        this.t = t;
    }

    /** Null where the profile has no drop_frames (or one that is not a regular expression: pprof then keeps all). */
    static PrunedFrames of(ProtoReader r, PprofReader.Tables t, Consumer<String> warnings) {
        if (t.dropFrames <= 0) {
            return null;
        }
        String d = t.string(r, t.dropFrames, 0);
        String k = t.keepFrames > 0 ? t.string(r, t.keepFrames, 0) : "";
        if (d.isEmpty()) {
            return null;
        }
        try {
            Pattern drop = Pattern.compile("^(" + d + ")$");
            Pattern keep = k.isEmpty() ? null : Pattern.compile("^(" + k + ")$");
            return new PrunedFrames(drop, keep, r, t);
        } catch (PatternSyntaxException e) {
            warnings.accept("pprof: drop_frames/keep_frames is not a regular expression here ("
                    + e.getDescription() + "): all frames kept, as pprof does");
            return null;
        }
    }

    /** pprof's simplifyFunc: no leading '.', cut at the first '(' that opens no reserved name. */
    static String simplify(String f) {
        String s = f.startsWith(".") ? f.substring(1) : f;
        int i = 0;
        while (i < s.length()) {
            if (s.startsWith("(anonymous namespace)", i)) {
                i += "(anonymous namespace)".length();
            } else if (s.startsWith("operator()", i)) {
                i += "operator()".length();
            } else if (s.charAt(i) == '(') {
                return s.substring(0, i);
            } else {
                i++;
            }
        }
        return s;
    }

    private boolean pruneFrom(String name) {
        return cache.computeIfAbsent(name, n -> {
            String f = simplify(n);
            return drop.matcher(f).matches() && (keep == null || !keep.matcher(f).matches());
        });
    }

    private int[] state(long id) {
        int[] st = locations.get(id);
        if (st != null) {
            return st;
        }
        st = new int[2];
        long[] rec = t.locations.get(id);
        if (rec != null) {
            int n = (rec.length - 2) / 3;
            int i;
            for (i = n - 1; i >= 0; i--) {
                long[] fn = t.functions.get(rec[2 + 3 * i]);
                if (fn != null && fn[0] != 0 && pruneFrom(t.string(r, fn[0], fn[2]))) {
                    break;
                }
            }
            if (i >= 0) {
                st[0] = i == n - 1 ? PRUNE : BENEATH;
                st[1] = i == n - 1 ? 0 : i + 1;
            }
        }
        locations.put(id, st);
        return st;
    }

    /** The inner (inlined) lines of a location that pruning removes. */
    int innerLines(long id) {
        return state(id)[1];
    }

    /** The index of the sample's new leaf location in {@code ids} (leaf first): 0 where nothing is pruned. */
    int leaf(long[] ids, int n) {
        boolean user = false;
        for (int i = n - 1; i >= 0; i--) {
            int st = state(ids[i])[0];
            if (st == NONE) {
                user = true;
            } else if (user) {
                return st == PRUNE ? i + 1 : i;
            }
        }
        return 0;
    }
}
