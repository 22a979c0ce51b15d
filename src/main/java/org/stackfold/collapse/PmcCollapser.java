package org.stackfold.collapse;

import java.io.IOException;
import java.util.Arrays;
import java.util.function.Consumer;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * FreeBSD hwpmc call graphs ({@code pmcstat -R pmc.out -z16 -G pmc.graph}), as
 * {@code stackcollapse-pmc.pl} reads them: an inverted tree, one line per frame
 * {@code INDENT PERCENT%  [COUNT]  NAME [@ module]}, the sampled function at indentation 0 and
 * its callers one space deeper each. Every deepest caller ends a path: the frames from it up to the
 * sampled function, weighted by its count. Lines of another shape (headers, comments) are skipped.
 * Error: a line indented more than one level below the one before it.
 */
public final class PmcCollapser implements Collapser {
    @Override
    public String name() {
        return "pmc";
    }

    @Override
    public boolean detect(byte[] head, int length) {
        // pmcstat -G starts with "@ EVENT [N samples]"; without it, rows and nothing else
        boolean header = false;
        int rows = 0;
        int others = 0;
        int[] f = new int[4];
        for (String line : Detect.lines(head, length)) {
            byte[] b = line.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
            if (row(b, 0, b.length, f)) {
                rows++;
            } else if (line.startsWith("@ ") && line.endsWith(" samples]") && rows == 0) {
                header = true;
            } else if (!line.isBlank() && !line.startsWith("#") && !line.startsWith("//")) {
                others++;
            }
        }
        return header ? rows >= 1 : rows >= 2 && others == 0;
    }

    /**
     * perl's {@code ^( *)[0-9.]+%  \[([0-9]+)\]\s*(\S+)}: fills indent, count start, count end and
     * name start (the name runs to the next whitespace).
     */
    static boolean row(byte[] b, int s, int e, int[] out) {
        int p = s;
        while (p < e && b[p] == ' ') {
            p++;
        }
        int indent = p - s;
        int num = p;
        while (p < e && (b[p] >= '0' && b[p] <= '9' || b[p] == '.')) {
            p++;
        }
        if (p == num || !Bytes.startsWith(b, p, e, "%  [")) {
            return false;
        }
        int count = p + 4;
        int countEnd = Bytes.skipDigits(b, count, e);
        if (countEnd == count || countEnd >= e || b[countEnd] != ']') {
            return false;
        }
        int name = Bytes.skipSpace(b, countEnd + 1, e);
        if (name == e) {
            return false;
        }
        out[0] = indent;
        out[1] = count;
        out[2] = countEnd;
        out[3] = name;
        return true;
    }

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        Problems problems = Problems.of(in, options);
        Stacks stacks = new Stacks();
        int[] path = new int[64]; // index = indentation: 0 is the sampled function
        int prevIndent = -1;
        long prevCount = 0;
        int[] f = new int[4];
        try (LineReader r = new LineReader(in.stream(), in.name())) {
            while (r.next()) {
                byte[] b = r.buffer();
                int s = r.start();
                int e = Bytes.lineEnd(r);
                if (!row(b, s, e, f)) {
                    continue;
                }
                int indent = f[0];
                if (indent > prevIndent + 1) {
                    problems.bad(r.lineNumber(), "indentation skips a level (" + indent + " after " + prevIndent + ")");
                    continue;
                }
                long count = Bytes.parseCount(b, f[1], f[2]);
                if (count < 0) {
                    problems.bad(r.lineNumber(), "count is too large");
                    continue;
                }
                if (indent <= prevIndent) {
                    add(stacks, path, prevIndent, prevCount);
                }
                if (indent == path.length) {
                    path = Arrays.copyOf(path, indent * 2);
                }
                path[indent] = stacks.frame(b, f[3], Bytes.skipNonSpace(b, f[3], e) - f[3]);
                prevCount = count;
                prevIndent = indent;
            }
        }
        if (prevIndent >= 0) {
            add(stacks, path, prevIndent, prevCount);
        }
        problems.finish(warnings);
        return stacks.profile();
    }

    private static void add(Stacks stacks, int[] path, int deepest, long count) {
        stacks.clear();
        for (int i = deepest; i >= 0; i--) {
            stacks.pushFrame(path[i]);
        }
        stacks.add(count);
    }
}
