package org.stackfold.format.jfr;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameKind;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/**
 * Reads a JDK Flight Recorder file with the JDK's own parser ({@code jdk.jfr.consumer}), one event
 * at a time ({@link RecordingFile#readEvent}, never the whole recording in memory), into a profile
 * of the selected event type's stack traces.
 *
 * <p>Frames are {@code package.Class.method} with the JFR frame type as {@link FrameKind}
 * (Interpreted, JIT compiled, Inlined, Native; async-profiler's C1 compiled, C++ and Kernel too).
 * Options: {@code event} (see {@link JfrEvents}; several of one unit with commas, e.g.
 * {@code cpu,native}), {@code timeline} (events in time order per thread, see {@link Events}),
 * {@code thread-frames} (root frame
 * {@code [name tid=N]}), {@code lines} ({@code method:line}), {@code bci} ({@code method@bci}).
 * A stack JFR cut at its depth limit gets a {@code [truncated]} root frame, so its partial stacks
 * don't pose as real roots.
 */
public final class JfrReader {
    /**
     * Entries kept in the per-object caches. The parser makes new objects for each chunk, so the
     * caches are cleared when full: they hold the objects (and a stack trace its frames) alive.
     */
    private static final int STACK_CACHE = 1 << 15;
    private static final int METHOD_CACHE = 1 << 16;
    /** The selected event types by JFR event name (several with {@code --event cpu,native}). */
    private final Map<String, JfrEvents> byName = new HashMap<>();
    private final Profile.ValueType valueType;
    private final String selected;
    private final boolean threadFrames;
    private final boolean lines;
    private final boolean bci;
    private final boolean timeline;
    private final Consumer<String> warnings;

    public JfrReader(String event, boolean threadFrames, boolean lines, boolean bci, Consumer<String> warnings) {
        this(event, threadFrames, lines, bci, false, warnings);
    }

    public JfrReader(String event, boolean threadFrames, boolean lines, boolean bci, boolean timeline,
                     Consumer<String> warnings) {
        this.timeline = timeline;
        Profile.ValueType vt = null;
        List<String> names = new java.util.ArrayList<>();
        for (String one : (event == null ? "cpu" : event).split(",")) {
            JfrEvents events = JfrEvents.of(one.strip());
            if (events == null) {
                throw new org.stackfold.io.UsageException("unknown JFR event '" + one.strip() + "'; use one of " + JfrEvents.aliases()
                        + " or a full event name such as jdk.ExecutionSample");
            }
            if (vt != null && !vt.equals(events.valueType())) {
                throw new InputException("JFR events " + event + " cannot be combined: they measure "
                        + vt.type() + "/" + vt.unit() + " and " + events.valueType().type() + "/"
                        + events.valueType().unit());
            }
            vt = events.valueType();
            for (String n : events.eventNames()) {
                byName.put(n, events);
                names.add(n);
            }
        }
        this.valueType = vt;
        this.selected = String.join("/", names);
        this.threadFrames = threadFrames;
        this.lines = lines;
        this.bci = bci;
        this.warnings = warnings;
    }

    /** Runs {@code body} on a path to the recording: the file itself, or a temporary copy of a stream. */
    interface PathBody<T> {
        T apply(Path p) throws IOException;
    }

    static <T> T withPath(Input in, PathBody<T> body) throws IOException {
        return body.apply(in.file()); // the file itself, or a bounded temporary copy of a stream
    }

    public Profile read(Input in) throws IOException {
        return withPath(in, p -> read(p, in.name()));
    }

    private Profile read(Path path, String name) throws IOException {
        FrameTable frames = new FrameTable();
        CallTree tree = new CallTree(1);
        Map<String, Long> seen = new TreeMap<>();
        Map<RecordedMethod, String> methodNames = new IdentityHashMap<>();
        Map<Long, Integer> threadFrame = new HashMap<>();
        Map<String, Integer> classFrame = new HashMap<>();
        int truncatedFrame = frames.frame("[truncated]", FrameKind.SYNTHETIC);
        long matched = 0;
        long preferred = 0;
        long fallbacks = 0;
        // Events read only where the recording has none of their alias' other events (the TLAB events
        // under `alloc`, see JfrEvents): their own tree, chosen at the end.
        CallTree fallbackTree = new CallTree(1);
        org.stackfold.model.TimedSamples fallbackOrder = timeline ? new org.stackfold.model.TimedSamples() : null;
        long noStack = 0;
        long truncated = 0;
        int[] stack = new int[128];
        // JFR writes each thread's events in its own buffers: a chunk is not in time order.
        org.stackfold.model.TimedSamples order = timeline ? new org.stackfold.model.TimedSamples() : null;
        Map<RecordedStackTrace, int[]> stackFrames = new IdentityHashMap<>();
        try (RecordingFile file = new RecordingFile(path)) {
            while (file.hasMoreEvents()) {
                RecordedEvent e = file.readEvent();
                String type = e.getEventType().getName();
                JfrEvents events = byName.get(type);
                if (events == null) {
                    if (e.getStackTrace() != null) {
                        seen.merge(type, 1L, Long::sum);
                    }
                    continue;
                }
                matched++;
                boolean fallback = events.isFallback(type);
                if (fallback) {
                    fallbacks++;
                } else {
                    preferred++;
                }
                CallTree into = fallback ? fallbackTree : tree;
                org.stackfold.model.TimedSamples intoOrder = fallback ? fallbackOrder : order;
                RecordedStackTrace st = e.getStackTrace();
                if (st == null) {
                    noStack++;
                    continue;
                }
                long weight = events.weightOf(e);
                if (weight == 0) {
                    continue;
                }
                // The parser hands out one RecordedStackTrace object per distinct stack of a chunk, so
                // its frames are converted once; getFrames() is the costly part of reading a recording.
                int[] fs = stackFrames.get(st);
                if (fs == null) {
                    if (stackFrames.size() >= STACK_CACHE) {
                        stackFrames.clear();
                    }
                    if (methodNames.size() >= METHOD_CACHE) {
                        methodNames.clear();
                    }
                    fs = frames(frames, methodNames, st, truncatedFrame);
                    stackFrames.put(st, fs);
                }
                int need = fs.length + 2;
                if (need > stack.length) {
                    stack = Arrays.copyOf(stack, Math.max(need, stack.length * 2));
                }
                int depth = 0;
                if (threadFrames) {
                    RecordedThread t = e.hasField("sampledThread") ? e.getThread("sampledThread") : e.getThread();
                    stack[depth++] = threadFrame(frames, threadFrame, t);
                }
                if (st.isTruncated()) {
                    truncated++;
                }
                System.arraycopy(fs, 0, stack, depth, fs.length);
                depth += fs.length;
                if (events.weight() == JfrEvents.Weight.ALLOCATION && e.hasField("objectClass")) {
                    RecordedClass c = e.getClass("objectClass");
                    if (c != null) {
                        stack[depth++] = classFrame.computeIfAbsent(javaName(c.getName()),
                                n -> frames.frame(n, FrameKind.SYNTHETIC));
                    }
                }
                int node = into.path(stack, 0, depth);
                try {
                    into.addSelf(node, weight);
                } catch (ArithmeticException ex) {
                    throw new InputException(name + ": event weights add up past 64 bits");
                }
                if (intoOrder != null) {
                    RecordedThread t = e.hasField("sampledThread") ? e.getThread("sampledThread") : e.getThread();
                    long tid = t == null ? 0 : t.getJavaThreadId() > 0 ? t.getJavaThreadId() : -t.getOSThreadId() - 1;
                    java.time.Instant at = e.getStartTime();
                    intoOrder.add(at.getEpochSecond() * 1_000_000_000L + at.getNano(), tid, node, weight);
                    if (t != null && !intoOrder.hasName(tid)) {
                        intoOrder.nameThread(tid, t.getJavaName() != null ? t.getJavaName() : t.getOSName());
                    }
                }
            }
        } catch (OutOfMemoryError ex) {
            throw new InputException(name + ": the JFR parser ran out of memory (a corrupt recording, or raise STACKFOLD_HEAP)");
        } catch (IOException | RuntimeException | InternalError | StackOverflowError ex) {
            if (ex instanceof InputException ie) {
                throw ie;
            }
            throw new InputException(name + ": " + unreadable(ex), ex);
        }
        if (matched == 0) {
            StringBuilder has = new StringBuilder();
            seen.forEach((k, v) -> has.append(has.isEmpty() ? "" : ", ").append(k).append(" (").append(v).append(')'));
            throw new InputException(name + ": no " + selected + " events"
                    + (has.isEmpty() ? " and no other events with stack traces"
                    : "; events with stack traces: " + has + "; choose one with --event ("
                    + JfrEvents.aliases() + " or a full name)"));
        }
        if (noStack > 0) {
            warnings.accept(name + ": " + noStack + " of " + matched + " events had no stack trace and were skipped");
        }
        if (truncated > 0) {
            warnings.accept(name + ": " + truncated + " stack" + (truncated == 1 ? " was" : "s were")
                    + " truncated by JFR's depth limit (put under [truncated]; record with a larger stackdepth)");
        }
        if (preferred == 0 && fallbacks > 0) {
            tree = fallbackTree;
            order = fallbackOrder;
        } else if (fallbacks > 0) {
            warnings.accept(name + ": " + fallbacks + " TLAB allocation events not counted: the recording has "
                    + "jdk.ObjectAllocationSample, which stands for allocation (as in jfr view); read them with "
                    + "--event jdk.ObjectAllocationInNewTLAB or jdk.ObjectAllocationOutsideTLAB");
        }
        Profile profile = new Profile(frames, tree, List.of(valueType));
        if (order != null) {
            profile.setTimeline(order.timeline("nanoseconds", false));
        }
        return profile;
    }

    /** A stack trace's frame ids, root first, under {@code [truncated]} where JFR cut it. */
    private int[] frames(FrameTable frames, Map<RecordedMethod, String> names, RecordedStackTrace st, int truncatedFrame) {
        List<RecordedFrame> fs = st.getFrames();
        int extra = st.isTruncated() ? 1 : 0;
        int[] out = new int[fs.size() + extra];
        if (extra == 1) {
            out[0] = truncatedFrame;
        }
        for (int i = fs.size() - 1, d = extra; i >= 0; i--, d++) {
            out[d] = frame(frames, names, fs.get(i));
        }
        return out;
    }

    private static int threadFrame(FrameTable frames, Map<Long, Integer> cache, RecordedThread t) {
        if (t == null) {
            return frames.frame("[unknown thread]", FrameKind.SYNTHETIC);
        }
        long id = t.getJavaThreadId() > 0 ? t.getJavaThreadId() : -t.getOSThreadId() - 1;
        Integer f = cache.get(id);
        if (f == null) {
            String n = t.getJavaName() != null ? t.getJavaName() : t.getOSName();
            long tid = t.getJavaThreadId() > 0 ? t.getJavaThreadId() : t.getOSThreadId();
            f = frames.frame("[" + n + " tid=" + tid + "]", FrameKind.SYNTHETIC);
            cache.put(id, f);
        }
        return f;
    }

    static FrameKind kind(String jfrType) {
        if (jfrType == null) {
            return FrameKind.UNKNOWN;
        }
        return switch (jfrType) {
            case "Interpreted" -> FrameKind.INTERPRETED;
            case "JIT compiled", "C1 compiled" -> FrameKind.JIT;
            case "Inlined" -> FrameKind.INLINED;
            case "Native", "C++" -> FrameKind.NATIVE;
            case "Kernel" -> FrameKind.KERNEL;
            default -> FrameKind.UNKNOWN;
        };
    }

    private int frame(FrameTable frames, Map<RecordedMethod, String> names, RecordedFrame f) {
        RecordedMethod m = f.getMethod();
        FrameKind kind = kind(f.getType());
        String name = m == null ? "[unknown]"
                : isFunction(f.getType(), m.getType() == null ? null : m.getType().getName()) ? m.getName()
                : names.computeIfAbsent(m, JfrReader::methodName);
        int line = FrameTable.NONE;
        int offset = FrameTable.NONE;
        if (lines && f.getLineNumber() > 0) {
            line = f.getLineNumber();
            name = name + ":" + line;
        }
        if (bci && f.getBytecodeIndex() >= 0) {
            offset = f.getBytecodeIndex();
            name = name + "@" + offset;
        }
        if (line == FrameTable.NONE && offset == FrameTable.NONE) {
            return frames.frame(name, kind);
        }
        return frames.frame(name, kind, null, line, FrameTable.NONE, FrameTable.NONE, FrameTable.NONE, offset);
    }

    /**
     * {@code package.Class.method} for Java code. async-profiler records native, C++ and kernel
     * functions as methods of a pseudo-class named after their library ("libjvm.so") or of no class;
     * those keep the bare function name, as async-profiler's own converters show them.
     */
    private static String methodName(RecordedMethod m) {
        RecordedClass c = m.getType();
        String cls = c == null ? null : c.getName();
        if (cls == null || cls.isEmpty() || isLibrary(cls)) {
            return m.getName();
        }
        return javaName(cls) + "." + m.getName();
    }

    /**
     * True where the frame type JFR recorded says the frame is a C/C++ or kernel function, which
     * async-profiler files under a pseudo-class (its library, or {@code vdso}): {@code C++} and
     * {@code Kernel} frames always, {@code Native} ones unless their class is a Java class with a
     * package (the JDK records JNI methods such as {@code java.io.FileInputStream.readBytes} as
     * Native). Never guessed from the class name alone: {@code __vdso_clock_gettime} is a function,
     * not the method of a class {@code vdso}.
     */
    static boolean isFunction(String jfrType, String cls) {
        if ("C++".equals(jfrType) || "Kernel".equals(jfrType)) {
            return true;
        }
        return "Native".equals(jfrType) && (cls == null || !cls.contains(".") || isLibrary(cls));
    }

    /**
     * A library's file name as async-profiler files native functions under it: {@code libjvm.so},
     * {@code libz.so.1.2.11}, and with what follows the name where the library was replaced on disk
     * ({@code libc-2.17.so;649be141 (deleted)}), {@code .dylib}, {@code .dll}, a path, {@code [vdso]}.
     */
    static boolean isLibrary(String cls) {
        return LIBRARY.matcher(cls).matches() || cls.startsWith("[") && cls.endsWith("]") || cls.startsWith("/");
    }

    private static final java.util.regex.Pattern LIBRARY =
            java.util.regex.Pattern.compile(".*\\.(so|dylib|dll)([.;: (].*)?");

    /** JFR gives binary names; arrays become source form: "[J" to "long[]", "[Ljava.lang.String;" to "java.lang.String[]". */
    static String javaName(String binary) {
        if (binary == null || !binary.startsWith("[")) {
            return binary;
        }
        int dims = 0;
        while (dims < binary.length() && binary.charAt(dims) == '[') {
            dims++;
        }
        String rest = binary.substring(dims);
        String base = switch (rest) {
            case "Z" -> "boolean";
            case "B" -> "byte";
            case "C" -> "char";
            case "S" -> "short";
            case "I" -> "int";
            case "J" -> "long";
            case "F" -> "float";
            case "D" -> "double";
            default -> rest.startsWith("L") && rest.endsWith(";") ? rest.substring(1, rest.length() - 1) : rest;
        };
        return base + "[]".repeat(dims);
    }

    /**
     * Why the JDK's parser refused a recording. "Pool X must contain at least one element" is its
     * answer to some recordings async-profiler and Pyroscope's Java agent write, which other parsers
     * read (2 of the 25 recordings in grafana/jfr-parser's test data): said as such, with what reads it.
     */
    static String unreadable(Throwable ex) {
        String m = String.valueOf(ex.getMessage()).strip();
        if (m.startsWith("Pool ") && m.endsWith("must contain at least one element")) {
            return "the JDK's JFR parser (jdk.jfr.consumer), which Stackfold reads JFR with, refuses this recording ("
                    + m + "), as it refuses some async-profiler/Pyroscope recordings; async-profiler's jfrconv or "
                    + "grafana's jfr-parser read them (convert to pprof or collapsed text, then read that)";
        }
        return "not a readable JFR recording: " + m;
    }

    /** For {@code stackfold info}: event types in the recording, with counts and stack-trace counts. */
    static void describe(Path path, String name, PrintWriter out) throws IOException {
        Map<String, long[]> counts = new TreeMap<>();
        try (RecordingFile file = new RecordingFile(path)) {
            while (file.hasMoreEvents()) {
                RecordedEvent e = file.readEvent();
                long[] c = counts.computeIfAbsent(e.getEventType().getName(), k -> new long[2]);
                c[0]++;
                if (e.getStackTrace() != null) {
                    c[1]++;
                }
            }
        } catch (IOException | RuntimeException | InternalError | StackOverflowError ex) {
            throw new InputException(name + ": " + unreadable(ex), ex);
        }
        out.println(name + ": JFR recording, " + counts.size() + " event types");
        out.printf("  %-45s %12s %12s%n", "event", "count", "with stack");
        counts.forEach((k, v) -> out.printf("  %-45s %12d %12d%n", org.stackfold.io.Printable.of(k), v[0], v[1]));
        out.println("  read a profile with --event " + JfrEvents.aliases() + " or a full event name");
    }
}
