package org.stackfold.analysis;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.stackfold.model.CallTree;
import org.stackfold.model.Profile;
import org.stackfold.transform.Merge;

/**
 * Makes a differential profile from two profiles, as {@code difffolded.pl} does: the union of
 * their stacks, column 0 the "before" counts and column 1 the "after" counts (0 where a stack is
 * missing on one side).
 */
public final class Diff {
    private static final Pattern HEX = Pattern.compile("0x[0-9a-fA-F]+");

    private Diff() {
    }

    /**
     * @param normalize scale the before counts by total(after)/total(before), truncating, so that a
     *                  change of load alone does not colour everything
     * @param stripHex  replace every {@code 0x<hex>} in frame names by {@code 0x...} before matching
     */
    public static Profile of(Profile before, Profile after, boolean normalize, boolean stripHex) {
        Profile out = Profile.differential();
        long totalBefore = before.tree().totalSamples();
        long totalAfter = after.tree().totalSamples();
        boolean scale = normalize && totalBefore != totalAfter && totalBefore != 0;
        double factor = scale ? (double) totalAfter / totalBefore : 1;
        add(before, out, 0, stripHex, scale ? factor : Double.NaN);
        add(after, out, 1, stripHex, Double.NaN);
        return out;
    }

    private static void add(Profile src, Profile dst, int column, boolean stripHex, double factor) {
        int[] frameMap = Merge.frameMap(src.frames(), dst.frames(), stripHex ? Diff::stripHex : null);
        CallTree dt = dst.tree();
        Merge.addColumn(src.tree(), 0, dt, column, frameMap);
        if (!Double.isNaN(factor)) {
            // Scale per merged stack, after strip-hex merging, as difffolded.pl does.
            for (int n = 1; n < dt.size(); n++) {
                long s = dt.self(n, column);
                if (s != 0) {
                    dt.setSelf(n, column, (long) (s * factor));
                }
            }
        }
    }

    public static String stripHex(String name) {
        Matcher m = HEX.matcher(name);
        return m.find() ? m.replaceAll("0x...") : name;
    }
}
