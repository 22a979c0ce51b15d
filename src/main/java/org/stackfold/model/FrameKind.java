package org.stackfold.model;

/**
 * What kind of code a frame is. Formats map their own notations onto these (perf's {@code _[k]},
 * async-profiler's {@code _[j]}, JFR's frame types, Tachyon's native and GC frames) and back.
 */
public enum FrameKind {
    /** Nothing is known (a plain folded stack). */
    UNKNOWN,
    /** Native user-space code. */
    NATIVE,
    KERNEL,
    /** JIT-compiled code (Java, JavaScript, perf map entries). */
    JIT,
    /** A frame inlined into its caller by a compiler. */
    INLINED,
    /** Interpreted Java code. */
    INTERPRETED,
    PYTHON,
    /** A frame the profiler made up (a thread or process name, a GC marker, "&lt;native&gt;"). */
    SYNTHETIC;

    private static final FrameKind[] VALUES = values();

    public static FrameKind of(int ordinal) {
        return VALUES[ordinal];
    }
}
