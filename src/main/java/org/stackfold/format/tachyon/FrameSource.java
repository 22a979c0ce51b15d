package org.stackfold.format.tachyon;

/**
 * What {@link TachyonWriter} needs to know about a caller's frame id, asked once per id, when a
 * sample first uses it (so strings and frames are numbered in first-use order, as CPython's
 * writer numbers them). Lines and columns use -1 for "unknown"; an opcode outside 0..254 is none.
 */
public interface FrameSource {
    byte[] file(int frame);

    byte[] function(int frame);

    int line(int frame);

    int endLine(int frame);

    int column(int frame);

    int endColumn(int frame);

    int opcode(int frame);

    /** The frames of a Tachyon file, by frame-table index. */
    static FrameSource of(TachyonFile f) {
        return new FrameSource() {
            @Override
            public byte[] file(int frame) {
                return f.string(f.frameFile(frame));
            }

            @Override
            public byte[] function(int frame) {
                return f.string(f.frameFunc(frame));
            }

            @Override
            public int line(int frame) {
                return f.frameLine(frame);
            }

            @Override
            public int endLine(int frame) {
                return f.frameEndLine(frame);
            }

            @Override
            public int column(int frame) {
                return f.frameColumn(frame);
            }

            @Override
            public int endColumn(int frame) {
                return f.frameEndColumn(frame);
            }

            @Override
            public int opcode(int frame) {
                return f.frameOpcode(frame);
            }
        };
    }
}
