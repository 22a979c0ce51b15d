package org.stackfold.collapse;

import java.io.IOException;
import java.util.Arrays;
import java.util.function.Consumer;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * Folded stacks with directly recursive frames merged, as {@code stackcollapse-recursive.pl} and
 * {@code inferno-collapse-recursive}: a run of equal adjacent frames becomes one
 * ({@code a;r;r;r;h} is {@code a;r;h}; {@code a;r;b;r} stays). Counts of stacks that become equal add
 * up. Works on bytes; blank lines are skipped.
 */
public final class RecursiveCollapser implements Collapser {
    @Override
    public String name() {
        return "recursive";
    }

    // detect(): never guessed, as in inferno (its input is already folded).

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        Problems problems = Problems.of(in, options);
        Stacks stacks = new Stacks();
        FoldedLine folded = new FoldedLine();
        try (LineReader r = new LineReader(in.stream(), in.name())) {
            while (folded.next(r, problems)) {
                byte[] b = r.buffer();
                stacks.clear();
                int prevStart = -1;
                int prevEnd = -1;
                int from = r.start();
                int end = folded.stackEnd;
                for (int i = from; i <= end; i++) {
                    if (i == end || b[i] == ';') {
                        if (prevStart < 0 || !Arrays.equals(b, prevStart, prevEnd, b, from, i)) {
                            stacks.pushFrame(stacks.frame(b, from, i - from));
                        }
                        prevStart = from;
                        prevEnd = i;
                        from = i + 1;
                    }
                }
                stacks.add(folded.count);
            }
        }
        problems.finish(warnings);
        return stacks.profile();
    }
}
