package org.stackfold.format.jfr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.zip.GZIPOutputStream;
import jdk.jfr.Recording;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.Formats;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameKind;
import org.stackfold.model.Profile;

/**
 * Reads recordings this test makes with jdk.jfr.Recording: CPU burn, allocations and parking in known methods.
 * A live recording sees every thread of the JVM, and a loaded machine changes how many samples each
 * gets, so assertions hold by construction only: about this thread's samples ({@link #selfHere}), or
 * about the stacks under one method (allocations in {@code allocateArrays} are all {@code long[]}),
 * and a contended lock waits until the waiter is seen blocked.
 */
class JfrFormatTest {
    private static final JfrFormat FORMAT = new JfrFormat();
    private static final String CLASS = JfrFormatTest.class.getName();

    @TempDir
    static Path dir;
    static Path recording;
    static volatile long sink;
    static volatile Object keep;

    @BeforeAll
    static void record() throws IOException {
        recording = dir.resolve("test.jfr");
        try (Recording r = new Recording()) {
            r.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(5)).withStackTrace();
            r.enable("jdk.ObjectAllocationSample").with("throttle", "5000/s").withStackTrace();
            r.enable("jdk.ThreadPark").withThreshold(Duration.ZERO).withStackTrace();
            r.enable("jdk.JavaMonitorEnter").withThreshold(Duration.ZERO).withStackTrace();
            r.start();
            burnCpu(1500);
            allocateArrays(300);
            parkALot(20);
            contendLock(5);
            r.stop();
            r.dump(recording);
        }
    }

    /** Pure arithmetic, no calls: its samples have it as the leaf. */
    static void burnCpu(long millis) {
        long end = System.nanoTime() + millis * 1_000_000;
        long x = 1;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 100_000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
                x ^= x >>> 29;
            }
        }
        sink = x;
    }

    static void allocateArrays(long millis) {
        long end = System.nanoTime() + millis * 1_000_000;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 1000; i++) {
                keep = new long[1024];
            }
        }
    }

    /** {@code times} parks of 10 ms each (parkNanos may return early: it is parked again for the rest). */
    static void parkALot(int times) {
        for (int i = 0; i < times; i++) {
            long end = System.nanoTime() + 10_000_000;
            while (System.nanoTime() < end) {
                LockSupport.parkNanos(end - System.nanoTime());
            }
        }
    }

    private static final Object LOCK = new Object();

    /**
     * Another thread holds LOCK until this one is seen blocked on it and 30 ms more, {@code times}
     * times: each enter waits at least 30 ms however the machine schedules the two threads.
     */
    static void contendLock(int times) {
        Thread waiter = Thread.currentThread();
        for (int i = 0; i < times; i++) {
            java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
            Thread holder = new Thread(() -> {
                synchronized (LOCK) {
                    held.countDown();
                    while (waiter.getState() != Thread.State.BLOCKED) {
                        LockSupport.parkNanos(1_000_000);
                    }
                    long end = System.nanoTime() + 30_000_000;
                    while (System.nanoTime() < end) { // parkNanos may return early
                        LockSupport.parkNanos(end - System.nanoTime());
                    }
                }
            });
            holder.start();
            try {
                held.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            synchronized (LOCK) {
                sink++;
            }
            try {
                holder.join();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private static Profile read(FormatOptions o) throws IOException {
        try (Input in = Input.open(recording.toString())) {
            return FORMAT.read(in, o);
        }
    }

    /** Self weight by frame name. */
    private static Map<String, Long> self(Profile p) {
        Map<String, Long> out = new HashMap<>();
        CallTree t = p.tree();
        for (int n = 1; n < t.size(); n++) {
            if (t.self(n) != 0) {
                out.merge(p.frames().name(t.frame(n)), t.self(n), Long::sum);
            }
        }
        return out;
    }

    /** Total weight by frame name (a frame counted once per stack). */
    private static Map<String, Long> total(Profile p) {
        Map<String, Long> out = new HashMap<>();
        CallTree t = p.tree();
        for (int n = 1; n < t.size(); n++) {
            if (t.self(n) != 0) {
                java.util.Set<String> seen = new java.util.HashSet<>();
                for (int f : t.stack(n)) {
                    if (seen.add(p.frames().name(f))) {
                        out.merge(p.frames().name(f), t.self(n), Long::sum);
                    }
                }
            }
        }
        return out;
    }

    /** The frame name of this test's thread, as thread-frames reads it. */
    private static String thisThread() {
        return "[" + Thread.currentThread().getName() + " tid=" + Thread.currentThread().threadId() + "]";
    }

    /** Self weight by frame name of the stacks of this thread only (p read with thread-frames). */
    private static Map<String, Long> selfHere(Profile p) {
        Map<String, Long> out = new HashMap<>();
        CallTree t = p.tree();
        for (int n = 1; n < t.size(); n++) {
            int[] stack = t.stack(n);
            if (t.self(n) != 0 && p.frames().name(stack[0]).equals(thisThread())) {
                out.merge(p.frames().name(t.frame(n)), t.self(n), Long::sum);
            }
        }
        return out;
    }

    /** Self weight by frame name of the stacks through {@code method}. */
    private static Map<String, Long> selfUnder(Profile p, String method) {
        Map<String, Long> out = new HashMap<>();
        CallTree t = p.tree();
        for (int n = 1; n < t.size(); n++) {
            if (t.self(n) != 0
                    && java.util.Arrays.stream(t.stack(n)).anyMatch(f -> p.frames().name(f).equals(method))) {
                out.merge(p.frames().name(t.frame(n)), t.self(n), Long::sum);
            }
        }
        return out;
    }

    private static String hottest(Map<String, Long> m) {
        return m.entrySet().stream().max(Comparator.comparingLong(Map.Entry::getValue)).orElseThrow().getKey();
    }

    @Test
    void cpuSamplesHaveTheBurnMethodHottest() throws IOException {
        assertThat(FORMAT.sniff(Files.readAllBytes(recording), 4)).isTrue();
        Profile p = read(FormatOptions.none());
        assertThat(p.valueTypes()).containsExactly(Profile.ValueType.SAMPLES);
        assertThat(p.tree().totalSamples()).isPositive();
        // This thread ran burnCpu five times as long as anything else it did in Java code.
        assertThat(hottest(selfHere(read(FormatOptions.none().set("thread-frames", true)))))
                .isEqualTo(CLASS + ".burnCpu");
        // JFR frame types became frame kinds.
        CallTree t = p.tree();
        boolean javaKind = false;
        for (int n = 1; n < t.size(); n++) {
            FrameKind k = p.frames().kind(t.frame(n));
            javaKind |= k == FrameKind.JIT || k == FrameKind.INTERPRETED || k == FrameKind.INLINED;
        }
        assertThat(javaKind).isTrue();
    }

    @Test
    void threadFramesLinesAndBci() throws IOException {
        Profile p = read(FormatOptions.none().set("thread-frames", true).set("lines", true).set("bci", true));
        CallTree t = p.tree();
        assertThat(t.find(CallTree.ROOT, p.frames().frame(thisThread(), FrameKind.SYNTHETIC))).isPositive();
        String hot = hottest(selfHere(p));
        assertThat(hot).matches(java.util.regex.Pattern.quote(CLASS + ".burnCpu") + ":\\d+@\\d+");
        for (int n = 1; n < t.size(); n++) {
            int f = t.frame(n);
            if (p.frames().name(f).equals(hot)) {
                assertThat(p.frames().line(f)).isPositive();
                assertThat(p.frames().opcode(f)).isNotNegative();
            }
        }
    }

    @Test
    void timelineKeepsSamplesInTimeOrder() throws IOException {
        Profile p = read(FormatOptions.none().set("timeline", true));
        org.stackfold.model.Timeline tl = p.timeline();
        assertThat(tl).isNotNull();
        assertThat((long) tl.size()).isEqualTo(p.tree().totalSamples());
        for (int i = 1; i < tl.size(); i++) {
            assertThat(tl.timestamp(i)).isGreaterThanOrEqualTo(tl.timestamp(i - 1));
        }
        long me = Thread.currentThread().threadId();
        boolean mine = false;
        for (int i = 0; i < tl.size(); i++) {
            mine |= tl.threadId(i) == me;
        }
        assertThat(mine).isTrue();
        java.io.ByteArrayOutputStream json = new java.io.ByteArrayOutputStream();
        new org.stackfold.format.speedscope.SpeedscopeFormat().write(p, json, FormatOptions.none());
        // speedscope names the timeline of a thread by the thread's name, not "thread 1"
        assertThat(json.toString(java.nio.charset.StandardCharsets.UTF_8))
                .contains("\"name\":\"" + Thread.currentThread().getName() + "\"").doesNotContain("\"name\":\"thread " + me + "\"");
        assertThat(read(FormatOptions.none()).timeline()).isNull();
    }

    @Test
    void allocationSamplesAreWeightedInBytes() throws IOException {
        Profile p = read(FormatOptions.none().set("event", "alloc"));
        assertThat(p.valueTypes()).containsExactly(new Profile.ValueType("alloc_space", "bytes"));
        Map<String, Long> total = total(p);
        assertThat(total).containsKey(CLASS + ".allocateArrays");
        // allocateArrays allocates nothing but long[1024] (8 KiB each, and a sample weighs the bytes since the last)
        assertThat(selfUnder(p, CLASS + ".allocateArrays")).containsOnlyKeys("long[]");
        assertThat(total.get(CLASS + ".allocateArrays")).isGreaterThan(8 * 1024);
    }

    @Test
    void parkEventsAreWeightedByDuration() throws IOException {
        Profile p = read(FormatOptions.none().set("event", "park"));
        assertThat(p.valueTypes()).containsExactly(new Profile.ValueType("park", "nanoseconds"));
        assertThat(total(p).get(CLASS + ".parkALot")).isGreaterThanOrEqualTo(20 * 5_000_000L);
    }

    /** JDK 25's CPU-time sampler (JEP 509, Linux only, experimental): skipped where it records nothing. */
    @Test
    void cpuTimeSamplesOnJdk25() throws IOException {
        Path cpu = dir.resolve("cputime.jfr");
        try (Recording r = new Recording()) {
            r.enable("jdk.CPUTimeSample").with("throttle", "5ms");
            r.start();
            burnCpu(600);
            r.stop();
            r.dump(cpu);
        }
        Profile p;
        try (Input in = Input.open(cpu.toString())) {
            p = FORMAT.read(in, FormatOptions.none().set("event", "cputime").set("thread-frames", true));
        } catch (InputException e) {
            org.junit.jupiter.api.Assumptions.abort("no jdk.CPUTimeSample events here: " + e.getMessage());
            return;
        }
        assertThat(total(p).get(CLASS + ".burnCpu")).isPositive();
        String thread = "[" + Thread.currentThread().getName() + " tid=" + Thread.currentThread().threadId() + "]";
        assertThat(total(p)).containsKey(thread);
    }

    @Test
    void monitorEnterEventsAreWeightedByDuration() throws IOException {
        Profile p = read(FormatOptions.none().set("event", "lock"));
        assertThat(p.valueTypes()).containsExactly(new Profile.ValueType("lock", "nanoseconds"));
        assertThat(total(p).get(CLASS + ".contendLock")).isGreaterThanOrEqualTo(5 * 10_000_000L);
    }

    @Test
    void missingEventsNameWhatTheRecordingHas() {
        assertThatThrownBy(() -> read(FormatOptions.none().set("event", "wait")))
                .isInstanceOf(InputException.class)
                .hasMessageContaining("no jdk.JavaMonitorWait events")
                .hasMessageContaining("jdk.ExecutionSample (");
        assertThatThrownBy(() -> read(FormatOptions.none().set("event", "bogus")))
                .isInstanceOf(InputException.class).hasMessageContaining("unknown JFR event 'bogus'");
    }

    @Test
    void gzipAndStdinAreReadThroughATemporaryFile() throws IOException {
        Path gz = dir.resolve("test.jfr.gz");
        try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(gz))) {
            Files.copy(recording, o);
        }
        try (Input in = Input.open(gz.toString())) {
            assertThat(Formats.forInput(in, null)).isInstanceOf(JfrFormat.class);
            assertThat(hottest(selfHere(FORMAT.read(in, FormatOptions.none().set("thread-frames", true)))))
                    .isEqualTo(CLASS + ".burnCpu");
        }
    }

    @Test
    void notARecordingIsAClearError() throws IOException {
        Path bad = dir.resolve("bad.jfr");
        byte[] junk = new byte[300];
        junk[0] = 'F';
        junk[1] = 'L';
        junk[2] = 'R';
        junk[6] = 2;
        Files.write(bad, junk);
        try (Input in = Input.open(bad.toString())) {
            assertThatThrownBy(() -> FORMAT.read(in, FormatOptions.none()))
                    .isInstanceOf(InputException.class).hasMessageContaining("bad.jfr: not a readable JFR recording");
        }
        Path truncated = dir.resolve("cut.jfr");
        byte[] all = Files.readAllBytes(recording);
        Files.write(truncated, java.util.Arrays.copyOf(all, all.length / 2));
        try (Input in = Input.open(truncated.toString())) {
            // A cut recording either yields the complete chunks' events or a clear error; never a crash.
            try {
                FORMAT.read(in, FormatOptions.none());
            } catch (InputException expected) {
                assertThat(expected.getMessage()).contains("cut.jfr");
            }
        }
    }

    /**
     * Random byte changes in a recording (the stored one, so that a seed always makes the same
     * files): read, or an InputException; never another exception. The JDK's parser throws
     * IOException, all sorts of RuntimeException and InternalError on such files.
     */
    @Test
    void corruptedRecordingsFailCleanly() throws IOException {
        byte[] orig;
        try (java.io.InputStream in = JfrFormatTest.class.getResourceAsStream("/formats/jfr-heavy.jfr")) {
            orig = in.readAllBytes();
        }
        java.util.SplittableRandom r = new java.util.SplittableRandom(11);
        Path bad = dir.resolve("fuzz.jfr");
        for (int round = 0; round < 300; round++) {
            byte[] b = orig.clone();
            for (int e = 1 + r.nextInt(8); e > 0; e--) {
                b[r.nextInt(b.length)] = (byte) r.nextInt(256);
            }
            Files.write(bad, b);
            try (Input in = Input.open(bad.toString())) {
                FORMAT.read(in, FormatOptions.none());
            } catch (InputException expected) {
                assertThat(expected.getMessage()).contains("fuzz.jfr");
            }
        }
    }

    @Test
    void describeListsEventTypes() throws IOException {
        StringWriter s = new StringWriter();
        try (Input in = Input.open(recording.toString())) {
            assertThat(FORMAT.describe(in, FormatOptions.none(), new PrintWriter(s, true))).isTrue();
        }
        assertThat(s.toString()).contains("jdk.ExecutionSample").contains("jdk.ThreadPark");
    }

    @Test
    void namesAndKindsFollowJfrAndAsyncProfilerConventions() {
        assertThat(JfrReader.javaName("[J")).isEqualTo("long[]");
        assertThat(JfrReader.javaName("[[Ljava.lang.String;")).isEqualTo("java.lang.String[][]");
        assertThat(JfrReader.javaName("java.util.HashMap")).isEqualTo("java.util.HashMap");
        assertThat(JfrReader.isLibrary("libjvm.so")).isTrue();
        assertThat(JfrReader.isLibrary("libc.so.6")).isTrue();
        assertThat(JfrReader.isLibrary("java.lang.Object")).isFalse();
        assertThat(JfrReader.kind("Interpreted")).isEqualTo(FrameKind.INTERPRETED);
        assertThat(JfrReader.kind("JIT compiled")).isEqualTo(FrameKind.JIT);
        assertThat(JfrReader.kind("C1 compiled")).isEqualTo(FrameKind.JIT);
        assertThat(JfrReader.kind("Inlined")).isEqualTo(FrameKind.INLINED);
        assertThat(JfrReader.kind("Native")).isEqualTo(FrameKind.NATIVE);
        assertThat(JfrReader.kind("C++")).isEqualTo(FrameKind.NATIVE);
        assertThat(JfrReader.kind("Kernel")).isEqualTo(FrameKind.KERNEL);
    }

    /** async-profiler's native frame __vdso_clock_gettime is a function, never "vdso.__vdso_clock_gettime". */
    @Test
    void functionsAreToldByTheFrameTypeNotTheClassName() {
        assertThat(JfrReader.isFunction("Native", "vdso")).isTrue();
        assertThat(JfrReader.isFunction("Native", "libc.so.6")).isTrue();
        assertThat(JfrReader.isFunction("Native", null)).isTrue();
        assertThat(JfrReader.isFunction("C++", "libjvm.so")).isTrue();
        assertThat(JfrReader.isFunction("Kernel", "")).isTrue();
        // the JDK records JNI methods as Native frames of their Java class
        assertThat(JfrReader.isFunction("Native", "java.io.FileInputStream")).isFalse();
        assertThat(JfrReader.isFunction("JIT compiled", "vdso")).isFalse();
        assertThat(JfrReader.isFunction("Interpreted", "Heavy")).isFalse();
    }

    /** Frame kinds reach folded text only on request, as async-profiler's _[j] / _[i] / _[k]. */
    @Test
    void annotateMarksJfrFrameKindsInFoldedText() throws IOException {
        Profile p;
        try (java.io.InputStream s = JfrFormatTest.class.getResourceAsStream("/formats/jfr-heavy.jfr")) {
            Path heavy = dir.resolve("heavy.jfr");
            Files.write(heavy, s.readAllBytes());
            try (Input in = Input.open(heavy.toString())) {
                p = FORMAT.read(in, FormatOptions.none());
            }
        }
        java.io.ByteArrayOutputStream plain = new java.io.ByteArrayOutputStream();
        new org.stackfold.format.folded.FoldedFormat().write(p, plain, FormatOptions.none());
        java.io.ByteArrayOutputStream marked = new java.io.ByteArrayOutputStream();
        new org.stackfold.format.folded.FoldedFormat().write(p, marked, FormatOptions.none().set("annotate", true));
        assertThat(plain.toString()).doesNotContain("_[j]").doesNotContain("_[i]");
        assertThat(marked.toString()).contains("_[j];").contains("_[i]");
        // same samples either way
        assertThat(org.stackfold.testing.Folded.read(marked.toString()).profile().tree().totalSamples())
                .isEqualTo(p.tree().totalSamples());
    }

    @Test
    void isReadOnly() {
        assertThat(FORMAT.canWrite()).isFalse();
        // An output named .jfr is JFR, which convert then refuses, rather than folded text in a .jfr file.
        assertThat(Formats.forOutput("x.jfr", null, "folded").name()).isEqualTo("jfr");
    }
}
