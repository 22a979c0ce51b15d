package org.stackfold.format.folded;

import java.io.IOException;
import java.io.OutputStream;
import org.stackfold.model.ByteStringPool;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/**
 * Writes a profile as folded stacks, one line per stack with a non-zero count: frames joined by
 * {@code ;}, one space, the count (two counts for a differential profile), {@code \n}. Stacks come
 * in depth-first order with siblings sorted by name bytes, so a stack precedes its extensions and
 * the output is the same for the same profile whatever order its input had.
 */
public final class FoldedWriter {
    private final boolean differential;

    /** Writes column 0 only, or both columns of a differential profile. */
    public FoldedWriter(boolean differential) {
        this.differential = differential;
    }

    public void write(Profile profile, OutputStream out) throws IOException {
        CallTree tree = profile.tree();
        if (differential && tree.weights() < 2) {
            throw new IllegalArgumentException("not a differential profile");
        }
        Emitter emitter = new Emitter(profile.frames(), tree, new LineBuffer(out), differential);
        tree.walk(tree.children(profile.frames()), emitter);
        if (emitter.failure != null) {
            throw emitter.failure;
        }
        emitter.lines.flush();
    }

    /** Builds each stack's bytes incrementally as the walk goes down, and writes the non-zero ones. */
    private static final class Emitter implements CallTree.Visitor {
        private final FrameTable frames;
        private final ByteStringPool names;
        private final CallTree tree;
        final LineBuffer lines;
        private final boolean differential;
        private int[] pathEnd = new int[64];
        IOException failure;

        Emitter(FrameTable frames, CallTree tree, LineBuffer lines, boolean differential) {
            this.frames = frames;
            this.names = frames.names();
            this.tree = tree;
            this.lines = lines;
            this.differential = differential;
        }

        @Override
        public void enter(int node, int depth) {
            if (failure != null) {
                return;
            }
            if (depth >= pathEnd.length) {
                pathEnd = java.util.Arrays.copyOf(pathEnd, pathEnd.length * 2);
            }
            int start = depth == 1 ? 0 : pathEnd[depth - 1] + 1;
            int nameId = frames.nameId(tree.frame(node));
            lines.ensurePath(start + names.length(nameId) + 1);
            if (depth > 1) {
                lines.path[start - 1] = ';';
            }
            pathEnd[depth] = names.copyTo(nameId, lines.path, start);
            long a = tree.self(node, 0);
            long b = differential ? tree.self(node, 1) : 0;
            if (a != 0 || b != 0) {
                try {
                    lines.line(pathEnd[depth], a, differential, b);
                } catch (IOException e) {
                    failure = e;
                }
            }
        }
    }

    /** The current stack's bytes and an output buffer written in large blocks. */
    private static final class LineBuffer {
        private final OutputStream out;
        byte[] path = new byte[4096];
        private final byte[] buf = new byte[1 << 16];
        private int used;

        LineBuffer(OutputStream out) {
            this.out = out;
        }

        void ensurePath(int len) {
            if (len > path.length) {
                path = java.util.Arrays.copyOf(path, Math.max(len, path.length * 2));
            }
        }

        void line(int pathLen, long a, boolean two, long b) throws IOException {
            write(path, pathLen);
            put((byte) ' ');
            number(a);
            if (two) {
                put((byte) ' ');
                number(b);
            }
            put((byte) '\n');
        }

        private void write(byte[] src, int len) throws IOException {
            if (len > buf.length - used) {
                flush();
                if (len > buf.length) {
                    out.write(src, 0, len);
                    return;
                }
            }
            System.arraycopy(src, 0, buf, used, len);
            used += len;
        }

        private void put(byte c) throws IOException {
            if (used == buf.length) {
                flush();
            }
            buf[used++] = c;
        }

        private void number(long v) throws IOException {
            if (buf.length - used < 20) {
                flush();
            }
            if (v == 0) {
                buf[used++] = '0';
                return;
            }
            int digits = 0;
            for (long t = v; t != 0; t /= 10) {
                digits++;
            }
            int end = used + digits;
            for (int i = end - 1; i >= used; i--) {
                buf[i] = (byte) ('0' + v % 10);
                v /= 10;
            }
            used = end;
        }

        void flush() throws IOException {
            if (used > 0) {
                out.write(buf, 0, used);
                used = 0;
            }
            out.flush();
        }
    }
}
