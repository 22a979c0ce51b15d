package org.stackfold.format.tachyon;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.stackfold.model.ByteStringPool;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameTable;

/**
 * Writes a labelled Tachyon tree as CPython's {@code replay --collapsed} does: one line per
 * distinct stack, frames root first joined by {@code ;}, a space, the count; lines ordered by
 * count (highest first), then by text (code point order, which is UTF-8 byte order).
 *
 * <p>This is not the generic folded writer: that one orders stacks depth first by name, so that
 * the same profile always gives the same text; CPython's order puts the heaviest stacks first,
 * and the default conversion of a Tachyon file promises CPython's bytes.
 */
final class CollapsedWriter {
    private CollapsedWriter() {
    }

    private record Line(long count, byte[] text) {
    }

    static void write(CallTree tree, FrameTable frames, OutputStream out) throws IOException {
        ByteStringPool names = frames.names();
        // No name may forge a line or a frame; other bytes stay as CPython writes them (FoldedNames).
        byte[][] safe = org.stackfold.format.folded.FoldedNames.replacements(names,
                org.stackfold.format.folded.FoldedNames.Rules.STRUCTURE);
        List<Line> lines = new ArrayList<>();
        int[] path = new int[64];
        for (int n = 1; n < tree.size(); n++) {
            long c = tree.self(n);
            if (c == 0) {
                continue;
            }
            int depth = 0;
            int len = 0;
            for (int m = n; m != CallTree.ROOT; m = tree.parent(m)) {
                if (depth == path.length) {
                    path = Arrays.copyOf(path, depth * 2);
                }
                int id = frames.nameId(tree.frame(m));
                path[depth++] = id;
                len += (safe != null && safe[id] != null ? safe[id].length : names.length(id)) + 1;
            }
            byte[] text = new byte[len - 1];
            int at = 0;
            for (int i = depth - 1; i >= 0; i--) {
                if (safe != null && safe[path[i]] != null) {
                    System.arraycopy(safe[path[i]], 0, text, at, safe[path[i]].length);
                    at += safe[path[i]].length;
                } else {
                    at = names.copyTo(path[i], text, at);
                }
                if (i > 0) {
                    text[at++] = ';';
                }
            }
            lines.add(new Line(c, text));
        }
        lines.sort((a, b) -> a.count != b.count ? Long.compare(b.count, a.count) : Arrays.compareUnsigned(a.text, b.text));
        byte[] buf = new byte[1 << 16];
        int used = 0;
        for (Line l : lines) {
            byte[] num = Long.toString(l.count).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            int need = l.text.length + num.length + 2;
            if (need > buf.length - used) {
                out.write(buf, 0, used);
                used = 0;
                if (need > buf.length) {
                    buf = new byte[need];
                }
            }
            System.arraycopy(l.text, 0, buf, used, l.text.length);
            used += l.text.length;
            buf[used++] = ' ';
            System.arraycopy(num, 0, buf, used, num.length);
            used += num.length;
            buf[used++] = '\n';
        }
        out.write(buf, 0, used);
        out.flush();
    }
}
