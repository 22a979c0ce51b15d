package org.stackfold.record;

import java.io.IOException;
import java.nio.file.Path;
import org.stackfold.io.InputException;

/**
 * Chooses how user stacks are walked. The walker needs {@code bpf_task_pt_regs} (Linux 5.15) and
 * the map and helper features before it; older kernels keep the frame-pointer program, said in one
 * line. Kernel-only recordings take no user stacks and keep the simple program.
 */
public final class Unwinding {
    static final int[] MINIMUM = {5, 15};

    private Unwinding() {
    }

    /** Whether the recording walks user stacks with the table-driven walker. */
    static boolean walks(RecordOptions o) {
        if (!o.userStacks() || o.unwind() == RecordOptions.Unwind.FP) {
            return false;
        }
        boolean supported = kernelSupports(release());
        if (o.unwind() == RecordOptions.Unwind.DWARF && !supported) {
            throw new InputException("--unwind dwarf needs Linux " + MINIMUM[0] + "." + MINIMUM[1] + " or later (this is "
                    + release() + ")");
        }
        return supported;
    }

    /** The one line saying which walker a recording used, or null when it is the default one. */
    static String note(RecordOptions o) {
        if (o.userStacks() && o.unwind() == RecordOptions.Unwind.AUTO && !kernelSupports(release())) {
            return "user stacks through frame pointers: Linux " + release() + " is older than "
                    + MINIMUM[0] + "." + MINIMUM[1] + ", which the .eh_frame walker needs";
        }
        return null;
    }

    static boolean kernelSupports(String release) {
        String[] p = release.split("[.-]");
        try {
            int major = Integer.parseInt(p[0]);
            int minor = p.length > 1 ? Integer.parseInt(p[1]) : 0;
            return major > MINIMUM[0] || major == MINIMUM[0] && minor >= MINIMUM[1];
        } catch (NumberFormatException e) {
            return false;
        }
    }

    static String release() {
        try {
            return ProcFiles.read(Path.of("/proc/sys/kernel/osrelease")).strip();
        } catch (IOException e) {
            return "0.0";
        }
    }
}
