package org.stackfold.collapse;

import java.io.IOException;
import java.util.function.Consumer;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * BCC {@code profile -f} output ({@code profile-bpfcc} on Debian): already folded,
 * {@code comm;user frames;[-;]kernel frames COUNT}, but the same stack can appear on several lines
 * (BCC keys its counts by stack ids and kernel IP, not by the symbolized names), so lines are
 * merged by summing.
 *
 * <p>{@code profile -d} puts a {@code -} frame between the user and the kernel part; it is dropped
 * ({@code keepdelimiter} keeps it) and the frames after it are known to be kernel frames.
 * {@code profile -a} appends {@code _[k]} to kernel frames itself; option {@code annotations} (or perf's {@code kernel}) adds that
 * tag to the frames after a {@code -} delimiter where BCC did not. Option {@code dedupkernelleaf}
 * drops a kernel leaf frame equal to its caller: BCC prepends the sampled instruction pointer to
 * the kernel stack, which on kernels whose unwinder already starts there (ORC, 6.x) repeats the
 * leaf ({@code ...;chacha_permute;chacha_permute}).
 */
public final class BccCollapser implements Collapser {
    private static final byte[] KERNEL_TAG = {'_', '[', 'k', ']'};

    @Override
    public String name() {
        return "bcc";
    }

    // detect(): never guessed; its input is folded text, which any folded file is.

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        boolean keepDelimiter = options.flag("keepdelimiter");
        boolean tagKernel = options.flag("annotations") || options.flag("kernel"); // perf's name too
        boolean dedupLeaf = options.flag("dedupkernelleaf");
        Problems problems = Problems.of(in, options);
        Stacks stacks = new Stacks();
        FoldedLine folded = new FoldedLine();
        byte[] name = new byte[256];
        try (LineReader r = new LineReader(in.stream(), in.name())) {
            while (folded.next(r, problems)) {
                byte[] b = r.buffer();
                stacks.clear();
                boolean kernel = false;
                int kernelFrames = 0;
                int from = r.start();
                int end = folded.stackEnd;
                for (int i = from; i <= end; i++) {
                    if (i != end && b[i] != ';') {
                        continue;
                    }
                    int len = i - from;
                    boolean delimiter = len == 1 && b[from] == '-';
                    if (delimiter) {
                        kernel = true;
                        if (keepDelimiter) {
                            stacks.pushFrame(stacks.frame(b, from, len));
                        }
                    } else {
                        boolean tagged = endsWith(b, from, i, KERNEL_TAG);
                        if (kernel && tagKernel && !tagged) {
                            if (name.length < len + 4) {
                                name = new byte[len + 4];
                            }
                            System.arraycopy(b, from, name, 0, len);
                            System.arraycopy(KERNEL_TAG, 0, name, len, 4);
                            stacks.pushFrame(stacks.frame(name, 0, len + 4));
                        } else {
                            stacks.pushFrame(stacks.frame(b, from, len));
                        }
                        if (kernel || tagged) {
                            kernelFrames++;
                        }
                    }
                    from = i + 1;
                }
                if (dedupLeaf && kernelFrames >= 2 && stacks.depth() >= 2
                        && stacks.leaf() == stacks.frameAt(stacks.depth() - 2)) {
                    stacks.truncate(stacks.depth() - 1);
                }
                stacks.add(folded.count);
            }
        }
        problems.finish(warnings);
        return stacks.profile();
    }

    private static boolean endsWith(byte[] b, int from, int to, byte[] suffix) {
        if (to - from < suffix.length) {
            return false;
        }
        for (int i = 0; i < suffix.length; i++) {
            if (b[to - suffix.length + i] != suffix[i]) {
                return false;
            }
        }
        return true;
    }
}
