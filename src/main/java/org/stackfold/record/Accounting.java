package org.stackfold.record;

import java.io.PrintWriter;
import java.util.Locale;
import org.stackfold.record.bpf.ErrnoException;

/**
 * What a recording can and cannot vouch for, printed at its end: samples taken, samples whose
 * stacks the kernel could not store (stack-map hash collisions, EEXIST, or other errors), samples
 * lost because the count map was full, and user stacks that end before a program or thread entry
 * point (code built without frame pointers: the kernel's frame-pointer walk stops early).
 */
public record Accounting(long samples, long lostToFullCountMap, long kernelCollisions, long userCollisions,
                         long otherStackErrors, long truncatedUser, long atDepthLimit) {

    /** All samples the kernel took, counted or not. */
    public long taken() {
        return samples + lostToFullCountMap;
    }

    static final class Builder {
        private long samples;
        private long lostFull;
        private long kernelCollisions;
        private long userCollisions;
        private long otherErrors;
        private long truncatedUser;
        private long atDepthLimit;

        void samples(long n) {
            samples += n;
        }

        void lostToFullCountMap(long n) {
            lostFull += n;
        }

        /** A stack id below zero other than -EFAULT ("no such stack") lost that stack. */
        void stackError(boolean kernel, int id, long n) {
            if (id >= 0 || id == -ErrnoException.EFAULT) {
                return;
            }
            if (id == -ErrnoException.EEXIST) {
                if (kernel) {
                    kernelCollisions += n;
                } else {
                    userCollisions += n;
                }
            } else {
                otherErrors += n;
            }
        }

        void truncatedUser(long n) {
            truncatedUser += n;
        }

        void atDepthLimit(long n) {
            atDepthLimit += n;
        }

        Accounting build() {
            return new Accounting(samples, lostFull, kernelCollisions, userCollisions, otherErrors, truncatedUser,
                    atDepthLimit);
        }
    }

    /** The end-of-recording report, a few lines for stderr. */
    public void print(PrintWriter err, int frequency, Recorder.Result r, int processes) {
        err.printf(Locale.ROOT, "stackfold record: %,d samples in %.1f s (%d Hz on %d CPUs), %,d processes%n",
                taken(), r.seconds(), frequency, r.cpus(), processes);
        err.printf(Locale.ROOT, "  stacks lost to stack-map collisions (EEXIST): %,d kernel, %,d user (%s)"
                        + "; to other stack errors: %,d; samples lost to a full count map: %,d%n",
                kernelCollisions, userCollisions, percent(kernelCollisions + userCollisions),
                otherStackErrors, lostToFullCountMap);
        err.printf(Locale.ROOT, "  user stacks ending early (code without frame pointers): %,d (%s)"
                        + "; at the %d-frame depth limit: %,d%n",
                truncatedUser, percent(truncatedUser), r.maxDepth(), atDepthLimit);
        if (kernelCollisions + userCollisions > samples / 100) {
            err.printf(Locale.ROOT, "  (more than 1%% collisions: raise --stack-storage above %d)%n", r.stackEntries());
        }
        if (r.programStats() != null) {
            err.printf(Locale.ROOT, "  BPF program: %.1f us a sample in the kernel (%,d runs)%n",
                    r.programStats().nanosPerRun() / 1000, r.programStats().runCount());
        }
        err.flush();
    }

    private String percent(long n) {
        return String.format(Locale.ROOT, "%.1f%%", samples == 0 ? 0.0 : 100.0 * n / samples);
    }
}
