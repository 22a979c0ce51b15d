package org.stackfold.transform;

import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.stackfold.model.FrameTable;

/**
 * {@code --map 'RE=NAME'}: every frame name's matches of RE replaced by NAME (Java's
 * {@link Matcher#replaceAll} rules: {@code $1} is a group, {@code \$} a dollar), so frames that become
 * one name become one frame and their stacks merge: template arguments, lambdas' numbers, addresses
 * stripped. A renamed frame keeps no kind or source location.
 */
public final class Rename extends StackTransform {
    private final FramePattern pattern;
    private final String replacement;

    public Rename(FramePattern pattern, String replacement) {
        if (pattern.regex() == null) {
            throw new IllegalArgumentException("--map needs a regular expression");
        }
        this.pattern = pattern;
        this.replacement = replacement;
        try {
            pattern.regex().matcher("").replaceAll(replacement);
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("bad replacement '" + replacement + "' in --map: " + e.getMessage());
        }
    }

    /** {@code RE=NAME}, split at the last '=' (a regular expression may hold one, as in {@code (?=x)}). */
    public static Rename parse(String spec) {
        int eq = spec.lastIndexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException("--map wants RE=NAME, not '" + spec + "'");
        }
        return new Rename(FramePattern.regex(spec.substring(0, eq)), spec.substring(eq + 1));
    }

    @Override
    public String describe() {
        return "--map " + pattern + "=" + replacement;
    }

    @Override
    public StackRule bind(FrameTable frames) {
        Pattern re = pattern.regex();
        return new StackRule() {
            private int[] to = new int[0]; // frame id + 1 of each frame's new name, 0 not yet known

            private int renamed(int f) {
                if (f >= to.length) {
                    to = Arrays.copyOf(to, Math.max(f + 1, frames.size()));
                }
                if (to[f] == 0) {
                    String name = frames.name(f);
                    Matcher m = re.matcher(name);
                    String r = m.find() ? m.replaceAll(replacement) : name;
                    to[f] = (r.equals(name) ? f : frames.plain(r)) + 1;
                }
                return to[f] - 1;
            }

            @Override
            public int rewrite(int[] s, int n) {
                for (int i = 0; i < n; i++) {
                    s[i] = renamed(s[i]);
                }
                return n;
            }
        };
    }
}
