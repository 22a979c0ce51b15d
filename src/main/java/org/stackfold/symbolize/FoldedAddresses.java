package org.stackfold.symbolize;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.stackfold.io.InputException;
import org.stackfold.model.FrameKind;

/**
 * Folded stacks whose frames are raw addresses ({@code comm;0x7f3a…;0xffffffff81…  COUNT}) to
 * folded stacks of names: every {@code 0x}-prefixed frame becomes its frames (containing function,
 * then inlined callees, root to leaf), kernel addresses through the kernel symbolizer; other frames
 * are copied. Lines stay in input order and are not merged (folded readers sum equal stacks). Each
 * distinct address is symbolized once.
 */
public final class FoldedAddresses {
    private static final long KERNEL_START = 0xffff800000000000L;

    private final AddressSymbolizer user;
    private final AddressSymbolizer kernel;
    private final boolean annotate;
    private final Map<Long, byte[]> userCache = new HashMap<>();
    private final Map<Long, byte[]> kernelCache = new HashMap<>();

    /**
     * @param user     user-space addresses (a process, a maps snapshot or an ELF file); may be null
     * @param kernel   kernel addresses; may be null
     * @param annotate suffix kernel frames {@code _[k]}, inlined {@code _[i]}, JIT {@code _[j]}
     */
    public FoldedAddresses(AddressSymbolizer user, AddressSymbolizer kernel, boolean annotate) {
        this.user = user;
        this.kernel = kernel;
        this.annotate = annotate;
    }

    /** Rewrites the folded text {@code in} (named {@code source} in errors) to {@code out}. */
    public void rewrite(byte[] in, String source, OutputStream out) throws IOException {
        byte[] buf = new byte[1 << 16];
        int n = 0;
        int lineNo = 0;
        int p = 0;
        while (p < in.length) {
            lineNo++;
            int eol = p;
            while (eol < in.length && in[eol] != '\n') {
                eol++;
            }
            int end = eol > p && in[eol - 1] == '\r' ? eol - 1 : eol;
            int space = end;
            while (space > p && in[space - 1] != ' ') {
                space--;
            }
            if (end > p && space == p) {
                throw InputException.atLine(source, lineNo, "expected 'FRAME;FRAME;... COUNT'");
            }
            int f = p;
            int stackEnd = space - 1;
            boolean first = true;
            while (end > p && f <= stackEnd) {
                int semi = f;
                while (semi < stackEnd && in[semi] != ';') {
                    semi++;
                }
                byte[] frames = frames(in, f, semi);
                int need = (frames == null ? semi - f : frames.length) + 1;
                if (n + need + 32 > buf.length) {
                    out.write(buf, 0, n);
                    n = 0;
                    if (need + 32 > buf.length) {
                        buf = new byte[need + 64];
                    }
                }
                if (!first) {
                    buf[n++] = ';';
                }
                first = false;
                if (frames == null) {
                    System.arraycopy(in, f, buf, n, semi - f);
                    n += semi - f;
                } else {
                    System.arraycopy(frames, 0, buf, n, frames.length);
                    n += frames.length;
                }
                f = semi + 1;
            }
            if (end > p) {
                if (n + (end - space) + 2 > buf.length) {
                    out.write(buf, 0, n);
                    n = 0;
                }
                buf[n++] = ' ';
                System.arraycopy(in, space, buf, n, end - space);
                n += end - space;
                buf[n++] = '\n';
            }
            p = eol + 1;
        }
        out.write(buf, 0, n);
    }

    /** The symbolized frames of the frame at [from, to), or null to copy it. */
    private byte[] frames(byte[] in, int from, int to) {
        int end = to;
        boolean markedKernel = false;
        if (end - from > 4 && in[end - 4] == '_' && in[end - 3] == '[' && in[end - 2] == 'k' && in[end - 1] == ']') {
            markedKernel = true;
            end -= 4;
        }
        if (end - from < 3 || in[from] != '0' || (in[from + 1] != 'x' && in[from + 1] != 'X') || end - from > 18) {
            return null;
        }
        long address = 0;
        for (int i = from + 2; i < end; i++) {
            int d = Character.digit(in[i], 16);
            if (d < 0) {
                return null;
            }
            address = address << 4 | d;
        }
        boolean isKernel = markedKernel || Long.compareUnsigned(address, KERNEL_START) >= 0;
        AddressSymbolizer s = isKernel ? kernel : user;
        Map<Long, byte[]> cache = isKernel ? kernelCache : userCache;
        byte[] cached = cache.get(address);
        if (cached == null) {
            cached = render(s == null ? null : s.symbolize(address), isKernel);
            cache.put(address, cached);
        }
        return cached;
    }

    private byte[] render(List<SymbolFrame> frames, boolean isKernel) {
        StringBuilder b = new StringBuilder();
        if (frames == null) {
            b.append(Symbolizer.UNKNOWN);
            if (annotate && isKernel) {
                b.append("_[k]");
            }
            return b.toString().getBytes(StandardCharsets.UTF_8);
        }
        for (int i = frames.size() - 1; i >= 0; i--) {
            SymbolFrame f = frames.get(i);
            if (b.length() > 0) {
                b.append(';');
            }
            if (f.function().equals(Symbolizer.UNKNOWN) && f.module() != null && f.kind() != FrameKind.KERNEL) {
                String m = f.module();
                b.append('[').append(m.substring(m.lastIndexOf('/') + 1)).append("+0x")
                        .append(Long.toHexString(f.offset())).append(']');
            } else {
                b.append(f.function().replace(';', ':'));
            }
            if (annotate) {
                if (f.kind() == FrameKind.KERNEL) {
                    b.append("_[k]");
                } else if (f.inlined()) {
                    b.append("_[i]");
                } else if (f.kind() == FrameKind.JIT) {
                    b.append("_[j]");
                }
            }
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }
}
