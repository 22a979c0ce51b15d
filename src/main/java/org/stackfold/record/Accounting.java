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
                         long otherStackErrors, long truncatedUser, long atDepthLimit, long[] ended) {
    /** The walker's end statuses as the accounting prints them, by {@link WalkerProgram} status. */
    static final String[] STATUS_NAMES = {"root reached", "no table (yet)", "no mapping (yet)", "read fault",
        "depth limit", "unsupported row", "JIT stop", "kernel thread", "no unwind info"};

    /** Samples whose walk ended with {@code status} (0 for recordings with frame pointers). */
    public long ended(int status) {
        return ended == null || status < 0 || status >= ended.length ? 0 : ended[status];
    }

    /** Whether the user stacks came from the walker (which reports how each ended). */
    public boolean walked() {
        return ended != null;
    }


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
        private long[] ended;

        void ended(int status, long n) {
            if (ended == null) {
                ended = new long[WalkerProgram.STATUSES];
            }
            if (status >= 0 && status < ended.length) {
                ended[status] += n;
            }
        }

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
                    atDepthLimit, ended);
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
        if (ended != null) {
            StringBuilder sb = new StringBuilder("  user stacks (walked through .eh_frame) ended:");
            String sep = " ";
            for (int i = 0; i < ended.length; i++) {
                if (ended[i] > 0 || i == WalkerProgram.ROOT) {
                    sb.append(sep).append(STATUS_NAMES[i]).append(' ')
                            .append(String.format(Locale.ROOT, "%,d (%s)", ended[i], percent(ended[i])));
                    sep = ", ";
                }
            }
            err.println(sb);
            if (ended[WalkerProgram.JIT_STOP] > samples / 20) {
                err.println("  (JIT code stopped many walks: run JVMs with -XX:+PreserveFramePointer)");
            }
        } else {
            err.printf(Locale.ROOT, "  user stacks ending early (code without frame pointers): %,d (%s)"
                            + "; at the %d-frame depth limit: %,d%n",
                    truncatedUser, percent(truncatedUser), r.maxDepth(), atDepthLimit);
        }
        if (r.note() != null) {
            err.println("  " + r.note());
        }
        Sampler.Worker worker = r.walker() == null ? null : r.walker().worker();
        if (worker != null && (worker.errorCount() > 0 || worker.trieFull() > 0 || worker.tablesFull() > 0)) {
            // What the unwind worker could not do: the samples it concerns end "no mapping" or "no table".
            StringBuilder sb = new StringBuilder("  unwind worker:");
            String sep = " ";
            for (java.util.Map.Entry<String, Long> e : worker.errors().entrySet()) {
                sb.append(sep).append(String.format(Locale.ROOT, "%,d", e.getValue())).append(" errors ")
                        .append(e.getKey());
                sep = ", ";
            }
            if (worker.trieFull() > 0) {
                sb.append(sep).append(String.format(Locale.ROOT, "%,d", worker.trieFull()))
                        .append(" mapping prefixes refused (trie full)");
                sep = ", ";
            }
            if (worker.tablesFull() > 0) {
                sb.append(sep).append(String.format(Locale.ROOT, "%,d", worker.tablesFull()))
                        .append(" files without a table (all table slots in use)");
            }
            if (worker.lastError() != null) {
                sb.append("; last: ").append(worker.lastError());
            }
            err.println(sb);
        }
        if (kernelCollisions + userCollisions > samples / 100) {
            err.printf(Locale.ROOT, "  (more than 1%% collisions: raise --stack-storage above %d)%n", r.stackEntries());
        }
        if (r.programStats() != null) {
            err.printf(Locale.ROOT, "  BPF program: %.1f us a sample in the kernel (%,d runs)%n",
                    r.programStats().nanosPerRun() / 1000, r.programStats().runCount());
            Sampler.WalkerStats w = r.walker();
            if (w != null) {
                err.printf(Locale.ROOT, "  walker: %,d + %,d verified instructions (entry + continuation), loaded in %.2f s;"
                                + " unwind tables: %,d files, %,d rows, %,d bytes in the kernel (%.1f B a row), built in %.2f s;"
                                + " user stacks lost to a full stack map: %,d%n",
                        w.entryVerified(), w.continuationVerified(), w.loadSeconds(), w.tables(), w.rows(), w.bytes(),
                        w.rows() == 0 ? 0.0 : (double) w.bytes() / w.rows(), w.buildSeconds(), w.lostStacks());
                if (w.worker() != null) {
                    Sampler.Worker k = w.worker();
                    err.printf(Locale.ROOT, "  unwind worker: %,d wake-ups, %,d reads of process maps, %,d holds of the command,"
                                    + " %,d tables freed (no process maps their file any more), %,d files without unwind rows,"
                                    + " %,d errors%n",
                            k.wakeups(), k.reads(), k.holds(), k.freedTables(), k.noRows(), k.errorCount());
                }
            }
        }
        err.flush();
    }

    private String percent(long n) {
        return String.format(Locale.ROOT, "%.1f%%", samples == 0 ? 0.0 : 100.0 * n / samples);
    }
}
