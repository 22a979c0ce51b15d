package org.stackfold.testing;

import java.util.SplittableRandom;
import org.stackfold.model.CallTree;
import org.stackfold.model.Profile;

/**
 * Seeded random profiles for the folded property tests, with the names that stress folded text: any bytes
 * but {@code ;} and newlines, spaces inside, non-ASCII; the outer ends of a stack have no white
 * space (a reader trims them) and a root frame never starts with "# " (a comment line).
 */
public final class RandomFoldedProfiles {
    private static final String[] PARTS = {"main", "foo", "bar baz", "java/lang/Thread.run", "std::vector<int>::push_back",
            "_[k]", "x", "0x7f00", "\u00e9t\u00e9", "\u6f22\u5b57", "[unknown]", "a 1", "<script>", "&amp", "\"q\"", "",
            "tab\there", "1.5", "#tag"};

    private RandomFoldedProfiles() {
    }

    public static Profile plain(SplittableRandom r) {
        Profile p = new Profile();
        fill(p, r, 1);
        return p;
    }

    public static Profile differential(SplittableRandom r) {
        Profile p = Profile.differential();
        fill(p, r, 2);
        return p;
    }

    private static void fill(Profile p, SplittableRandom r, int columns) {
        int frameCount = 1 + r.nextInt(40);
        int[] frames = new int[frameCount];
        for (int i = 0; i < frameCount; i++) {
            String name = PARTS[r.nextInt(PARTS.length)] + (r.nextBoolean() ? "" : String.valueOf(i));
            frames[i] = p.frames().plain(name);
        }
        CallTree t = p.tree();
        int stacks = r.nextInt(200);
        int[] stack = new int[64];
        for (int s = 0; s < stacks; s++) {
            int depth = 1 + r.nextInt(r.nextBoolean() ? 5 : 60);
            for (int d = 0; d < depth; d++) {
                stack[d] = frames[r.nextInt(frameCount)];
            }
            String root = p.frames().name(stack[0]);
            String leaf = p.frames().name(stack[depth - 1]);
            if (root.startsWith("# ") || root.equals("#") || root.isEmpty() || Character.isWhitespace(root.charAt(0))
                    || leaf.isEmpty() || Character.isWhitespace(leaf.charAt(leaf.length() - 1))) {
                continue;
            }
            int node = t.path(stack, 0, depth);
            for (int c = 0; c < columns; c++) {
                long count = r.nextInt(4) == 0 ? 0 : r.nextLong(1, r.nextBoolean() ? 10 : Long.MAX_VALUE / 1_000_000);
                t.addSelf(node, c, count);
            }
        }
    }
}
