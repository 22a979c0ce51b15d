package org.stackfold.format.tachyon;

import java.util.Locale;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.InputException;

/**
 * What the Tachyon reader and writer take from {@link FormatOptions} (names below; the CLI sets
 * them from {@code --tachyon-*} options of {@code stackfold convert}).
 *
 * @param naming       frame text in folded output: {@code cpython} (default, what CPython's
 *                     {@code replay --collapsed} prints), {@code function}, {@code file}, {@code line},
 *                     or {@code raw} (profiles keep full frame locations)
 * @param perThread    a {@code tid:N} root frame per thread (default, as CPython) or all threads merged
 * @param threads      thread ids to keep, or null for all
 * @param statusAll    status bits a sample must all have
 * @param statusNone   status bits a sample must not have
 * @param fromMicros   keep samples at or after this many microseconds after the start (or MIN)
 * @param toMicros     keep samples before this many microseconds after the start (or MAX)
 * @param keepInternal keep the profiler's own {@code _sync_coordinator.py} frames CPython drops
 * @param timeline     build the profile's per-sample timeline (memory grows with samples)
 */
public record TachyonOptions(Naming naming, boolean perThread, long[] threads, int statusAll, int statusNone,
                             long fromMicros, long toMicros, boolean keepInternal, boolean timeline) {

    public static final String NAMING = "tachyon.naming";
    public static final String STACKS = "tachyon.stacks";
    public static final String THREADS = "tachyon.threads";
    public static final String STATUS = "tachyon.status";
    public static final String FROM = "tachyon.from";
    public static final String TO = "tachyon.to";
    public static final String KEEP_INTERNAL = "tachyon.keep-internal";
    public static final String TIMELINE = "tachyon.timeline";
    // Writer options.
    public static final String COMPRESSION = "tachyon.compression";
    public static final String BYTE_ORDER = "tachyon.byte-order";
    public static final String INTERVAL = "tachyon.interval";

    /** Frame text styles. */
    public enum Naming {
        /** {@code basename:function:line}, bare function for {@code ~} frames (CPython's collapsed). */
        CPYTHON,
        /** The function name only. */
        FUNCTION,
        /** {@code file:function} with the full file name. */
        FILE,
        /** {@code file:function:line} with the full file name. */
        LINE,
        /**
         * Profiles only: frames keep the function name as their name and everything else the file
         * knows (file, lines, columns, opcode) as their location; folded output shows the function.
         */
        RAW
    }

    public static TachyonOptions defaults() {
        return new TachyonOptions(Naming.CPYTHON, true, null, 0, 0, Long.MIN_VALUE, Long.MAX_VALUE, false, false);
    }

    public static TachyonOptions from(FormatOptions o) {
        Naming naming = switch (o.get(NAMING, "cpython").toLowerCase(Locale.ROOT)) {
            case "cpython", "default" -> Naming.CPYTHON;
            case "function", "func" -> Naming.FUNCTION;
            case "file" -> Naming.FILE;
            case "line" -> Naming.LINE;
            case "raw" -> Naming.RAW;
            default -> throw new InputException("--tachyon-naming: expected cpython, function, file, line or raw, got '"
                    + o.get(NAMING, "") + "'");
        };
        boolean perThread = switch (o.get(STACKS, "per-thread").toLowerCase(Locale.ROOT)) {
            case "per-thread", "thread", "threads" -> true;
            case "merged", "merge" -> false;
            default -> throw new org.stackfold.io.UsageException("--tachyon-stacks: expected per-thread or merged, got '"
                    + o.get(STACKS, "") + "'");
        };
        long[] threads = null;
        if (o.has(THREADS)) {
            String[] parts = o.get(THREADS, "").split(",");
            threads = new long[parts.length];
            for (int i = 0; i < parts.length; i++) {
                try {
                    threads[i] = Long.parseUnsignedLong(parts[i].trim());
                } catch (NumberFormatException e) {
                    throw new org.stackfold.io.UsageException("--tachyon-threads: '" + parts[i].trim() + "' is not a thread id");
                }
            }
        }
        int all = 0;
        int none = 0;
        if (o.has(STATUS)) {
            for (String part : o.get(STATUS, "").split(",")) {
                String p = part.trim().toLowerCase(Locale.ROOT);
                if (p.isEmpty()) {
                    continue;
                }
                boolean negate = p.startsWith("no-") || p.startsWith("!");
                String flag = p.startsWith("no-") ? p.substring(3) : p.startsWith("!") ? p.substring(1) : p;
                int bit = statusBit(flag);
                if (negate) {
                    none |= bit;
                } else {
                    all |= bit;
                }
            }
        }
        long from = o.has(FROM) ? micros(FROM, o.get(FROM, "")) : Long.MIN_VALUE;
        long to = o.has(TO) ? micros(TO, o.get(TO, "")) : Long.MAX_VALUE;
        return new TachyonOptions(naming, perThread, threads, all, none, from, to, o.flag(KEEP_INTERNAL),
                o.flag(TIMELINE));
    }

    static int statusBit(String flag) {
        return switch (flag) {
            case "on-cpu", "cpu" -> Tachyon.STATUS_ON_CPU;
            case "gil", "has-gil", "holding-gil" -> Tachyon.STATUS_HAS_GIL;
            case "gil-wait", "waiting-gil", "gil-requested" -> Tachyon.STATUS_GIL_REQUESTED;
            case "exception", "has-exception" -> Tachyon.STATUS_HAS_EXCEPTION;
            case "main", "main-thread" -> Tachyon.STATUS_MAIN_THREAD;
            case "unknown" -> Tachyon.STATUS_UNKNOWN;
            default -> throw new org.stackfold.io.UsageException("--tachyon-status: unknown flag '" + flag
                    + "' (known: on-cpu, gil, gil-wait, exception, main-thread, unknown; prefix no- to exclude)");
        };
    }

    private static long micros(String option, String seconds) {
        try {
            double s = Double.parseDouble(seconds.trim());
            if (!Double.isFinite(s)) {
                throw new NumberFormatException();
            }
            return Math.round(s * 1e6);
        } catch (NumberFormatException e) {
            throw new org.stackfold.io.UsageException("--" + option.replace('.', '-') + ": '" + seconds
                    + "' is not a number of seconds after the profile's start");
        }
    }

    public boolean filtersTime() {
        return fromMicros != Long.MIN_VALUE || toMicros != Long.MAX_VALUE;
    }

    public boolean filtersStatus() {
        return statusAll != 0 || statusNone != 0;
    }

    public boolean keepsStatus(int status) {
        return (status & statusAll) == statusAll && (status & statusNone) == 0;
    }

    public boolean keepsThread(long tid) {
        if (threads == null) {
            return true;
        }
        for (long t : threads) {
            if (t == tid) {
                return true;
            }
        }
        return false;
    }

    public boolean filters() {
        return threads != null || filtersStatus() || filtersTime();
    }
}
