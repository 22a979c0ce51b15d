package org.stackfold.perf;

import java.nio.charset.StandardCharsets;
import org.stackfold.model.ByteStringPool;
import org.stackfold.model.FrameTable;

/**
 * Names a frame that did not come from {@code perf script} text (the perf.data reader) by the very
 * rules {@code stackfold collapse perf} applies to a callchain line: the frame is written as the
 * line {@code perf script} would print ({@code ADDR SYMBOL+0xOFF (MODULE)}) and named by
 * {@link FrameNamer}, so both paths give the same folded names by construction.
 */
public final class ScriptFrameNames {
    /** Result flag: the frame is a process-name pseudo-frame and adds nothing. */
    public static final int SKIP = 1 << 29;
    /** Result flag: the frame matched a {@code --skip-after} name. */
    public static final int SKIP_AFTER = 1 << 30;
    public static final int COUNT_MASK = (1 << 29) - 1;

    private final FrameNamer namer;
    private final FrameLine line = new FrameLine();
    private byte[] text = new byte[256];

    public ScriptFrameNames(PerfOptions options) {
        this.namer = new FrameNamer(options);
    }

    /**
     * Names the frame {@code symbol} (with its {@code +0x} offset, or "[unknown]") in {@code module}
     * at {@code pc}; {@code java} as for a process whose comm starts with "java". Writes the frame ids,
     * innermost first, to {@code out} (grown as needed; returned) after {@code out[0]}, which gets the
     * count and the {@link #SKIP}/{@link #SKIP_AFTER} flags.
     */
    public int[] name(String symbol, String module, long pc, boolean java, FrameTable frames, int[] out) {
        byte[] sym = symbol.getBytes(StandardCharsets.UTF_8);
        byte[] mod = module.getBytes(StandardCharsets.UTF_8);
        String hex = Long.toHexString(pc);
        int n = hex.length() + sym.length + mod.length + 4;
        if (n > text.length) {
            text = new byte[n * 2];
        }
        int p = 0;
        for (int i = 0; i < hex.length(); i++) {
            text[p++] = (byte) hex.charAt(i);
        }
        text[p++] = ' ';
        System.arraycopy(sym, 0, text, p, sym.length);
        p += sym.length;
        text[p++] = ' ';
        text[p++] = '(';
        System.arraycopy(mod, 0, text, p, mod.length);
        p += mod.length;
        text[p++] = ')';
        if (!line.parse(text, 0, p)) {
            throw new IllegalStateException("not a frame line: " + new String(text, 0, p, StandardCharsets.UTF_8));
        }
        namer.name(text, line, java);
        int count = namer.skip ? 0 : namer.pieces;
        if (out.length < count + 1) {
            out = new int[count + 1];
        }
        out[0] = count | (namer.skip ? SKIP : 0) | (namer.skipAfterMatch ? SKIP_AFTER : 0);
        for (int k = 0; k < count; k++) {
            int piece = count - 1 - k;
            int start = piece == 0 ? 0 : namer.ends[piece - 1];
            int len = namer.ends[piece] - start;
            out[1 + k] = frames.plain(namer.out, start, len, ByteStringPool.hash(namer.out, start, len));
        }
        return out;
    }
}
