package org.stackfold.record.python;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.stackfold.format.tachyon.TachyonOptions;

/**
 * The reference walker against real interpreters (Debian's python3, pyenv 3.11/3.12/3.13, a sid
 * chroot's 3.14/3.15 where present; each skipped with its reason): workloads with known functions
 * are walked from outside while they run, several times, and every stack must hold the expected
 * {@code file.py:function:line} frames under the right callers. Lines are found in the scripts'
 * text, not written here. Reading a running process can see a stack in the middle of a call; such
 * walks are allowed (at most a tenth), never a wrong frame in a stack that checks out.
 */
class PythonWalkerLiveTest {
    private static final int WALKS = 40;

    static Stream<Interpreters.Interpreter> interpreters() {
        return Interpreters.all();
    }

    private static Interpreters.Interpreter usable(Interpreters.Interpreter py) {
        String missing = py.missing();
        assumeTrue(missing == null, missing);
        return py;
    }

    /** Line number (1-based) of the first line of a resource script containing {@code text}. */
    private static int lineOf(String script, String text) throws IOException {
        try (InputStream in = PythonWalkerLiveTest.class.getResourceAsStream(script)) {
            String[] lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n");
            for (int i = 0; i < lines.length; i++) {
                if (lines[i].contains(text)) {
                    return i + 1;
                }
            }
        }
        throw new AssertionError(text + " not in " + script);
    }

    private static PythonProcess detect(int pid) throws IOException {
        PythonDetector.Detection d = PythonDetector.detect(pid);
        assertThat(d).as("detection").isInstanceOf(PythonDetector.Found.class);
        return ((PythonDetector.Found) d).process();
    }

    /** One thread's frames as CPython's collapsed labels, outermost first. */
    private static List<String> labels(CodeNames names, PythonThread t) {
        List<String> out = new ArrayList<>();
        for (PythonFrame f : t.frames().reversed()) {
            out.add(names.label(TachyonOptions.Naming.CPYTHON, f));
        }
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("interpreters")
    void sixThreeOneStacksHaveTheirCallers(Interpreters.Interpreter py) throws Exception {
        usable(py);
        String s = "sixthreeone.py";
        String module = s + ":<module>:" + lineOf(s, "    main()");
        String main = s + ":main:" + lineOf(s, "    work()");
        List<String> work = List.of(s + ":work:" + lineOf(s, "        heavy()"),
                s + ":work:" + lineOf(s, "        medium()"), s + ":work:" + lineOf(s, "        light()"));
        List<String> callers = List.of(s + ":heavy:" + lineOf(s, "spin(60000)"),
                s + ":medium:" + lineOf(s, "spin(30000)"), s + ":light:" + lineOf(s, "spin(10000)"));
        int spinFirst = lineOf(s, "def spin");
        int spinLast = lineOf(s, "return x");
        try (Interpreters.Running run = py.start(s); ProcessMemory mem = ProcessMemory.open(run.pid())) {
            PythonProcess p = detect(run.pid());
            assertThat(p.evalStart()).as("eval loop").isNotZero();
            PythonWalker walker = new PythonWalker(p, mem);
            CodeNames names = new CodeNames(mem, p.offsets());
            int good = 0;
            boolean[] seen = new boolean[3];
            List<String> bad = new ArrayList<>();
            for (int i = 0; i < WALKS; i++) {
                long ts = walker.threadState(run.pid());
                assertThat(ts).as("thread state of the main thread").isNotZero();
                List<String> st = labels(names, walker.thread(ts));
                boolean ok = st.size() >= 3 && st.size() <= 5 && st.get(0).equals(module) && st.get(1).equals(main)
                        && work.contains(st.get(2));
                if (ok && st.size() >= 4) {
                    int which = callers.indexOf(st.get(3));
                    ok = which >= 0 && st.get(2).equals(work.get(which));
                    if (ok) {
                        seen[which] = true;
                    }
                }
                if (ok && st.size() == 5) {
                    String leaf = st.get(4);
                    int line = Integer.parseInt(leaf.substring(leaf.lastIndexOf(':') + 1));
                    ok = leaf.startsWith(s + ":spin:") && line >= spinFirst && line <= spinLast;
                }
                if (ok) {
                    good++;
                } else {
                    bad.add(String.join(";", st));
                }
                Thread.sleep(7);
            }
            assertThat(good).as("walks with the expected stack; others: %s", bad).isGreaterThanOrEqualTo(WALKS * 9 / 10);
            assertThat(seen[0]).as("heavy seen in %d walks", WALKS).isTrue();
            assertThat(names.misses()).as("code objects read once").isLessThan(20);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("interpreters")
    void twoThreadsEachHaveTheirStack(Interpreters.Interpreter py) throws Exception {
        usable(py);
        String s = "twothreads.py";
        List<String> mainStack = List.of(s + ":<module>:" + lineOf(s, "    main_loop()"),
                s + ":main_loop:" + lineOf(s, "    main_inner()"));
        int innerFirst = lineOf(s, "def main_inner");
        int innerLast = lineOf(s, "% 1000003");
        String worker = s + ":worker:" + lineOf(s, "    worker_inner()");
        // worker_inner runs sorted() or waits for the GIL at its loop's backward jump (the while line).
        int workerInnerFirst = lineOf(s, "def worker_inner");
        int workerInnerLast = lineOf(s, "sorted(data");
        int keyFirst = lineOf(s, "def key_of");
        int keyLast = lineOf(s, "return -v");
        try (Interpreters.Running run = py.start(s); ProcessMemory mem = ProcessMemory.open(run.pid())) {
            PythonProcess p = detect(run.pid());
            PythonWalker walker = new PythonWalker(p, mem);
            CodeNames names = new CodeNames(mem, p.offsets());
            // "ready" is printed just before main_inner is called.
            Thread.sleep(100);
            int good = 0;
            boolean keySeen = false;
            List<String> bad = new ArrayList<>();
            for (int i = 0; i < WALKS; i++) {
                List<PythonThread> threads = walker.threads();
                assertThat(threads).as("thread states").hasSize(2);
                PythonThread mainThread = null;
                PythonThread workerThread = null;
                for (PythonThread t : threads) {
                    if (t.nativeId() == run.pid()) {
                        mainThread = t;
                    } else {
                        workerThread = t;
                    }
                }
                assertThat(mainThread).as("the main thread by its native id").isNotNull();
                assertThat(workerThread).isNotNull();
                assertThat(walker.threadState(workerThread.nativeId())).isEqualTo(workerThread.threadState());
                List<String> m = labels(names, mainThread);
                List<String> w = labels(names, workerThread);
                boolean ok = m.size() == 3 && m.subList(0, 2).equals(mainStack)
                        && m.get(2).startsWith(s + ":main_inner:")
                        && between(m.get(2), innerFirst, innerLast);
                // The worker: threading's frames, then worker -> worker_inner, and key_of when the
                // sample falls in it: called by sorted(), a C function, so it ends an activation.
                int at = w.indexOf(worker);
                ok &= at >= 1 && w.get(at - 1).contains(":Thread.run:") && w.size() > at + 1
                        && w.get(at + 1).startsWith(s + ":worker_inner:")
                        && between(w.get(at + 1), workerInnerFirst, workerInnerLast) && w.size() <= at + 3;
                if (ok && w.size() == at + 3) {
                    keySeen = true;
                    PythonFrame leaf = workerThread.frames().getFirst();
                    ok = w.get(at + 2).startsWith(s + ":key_of:") && between(w.get(at + 2), keyFirst, keyLast)
                            && leaf.activationEnd() && !workerThread.frames().get(1).activationEnd();
                }
                if (ok) {
                    good++;
                } else {
                    bad.add(String.join(";", m) + " | " + String.join(";", w));
                }
                Thread.sleep(7);
            }
            assertThat(good).as("walks with the expected stacks; others: %s", bad).isGreaterThanOrEqualTo(WALKS * 9 / 10);
            assertThat(keySeen).as("key_of (Python called from C) seen in %d walks", WALKS).isTrue();
        }
    }

    private static boolean between(String label, int first, int last) {
        int line = Integer.parseInt(label.substring(label.lastIndexOf(':') + 1));
        return line >= first && line <= last;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("interpreters")
    void mapValueCarriesTheProcessNumbers(Interpreters.Interpreter py) throws Exception {
        usable(py);
        try (Interpreters.Running run = py.start("sixthreeone.py")) {
            PythonProcess p = detect(run.pid());
            byte[] v = p.mapValue();
            assertThat(v).hasSize(PythonOffsets.MAP_VALUE_SIZE);
            java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(v).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            assertThat(b.getInt(0)).isEqualTo(PythonOffsets.MAP_VALUE_LAYOUT);
            assertThat(b.getInt(4)).isEqualTo(p.offsets().version());
            assertThat(b.getLong(8)).isEqualTo(p.runtime());
            assertThat(b.getLong(16)).isEqualTo(p.evalStart());
            assertThat(b.getShort(62)).isEqualTo((short) p.offsets().frameSize());
            assertThat(p.inEvalLoop(p.evalStart())).isTrue();
            // The version the process reports is the one detected.
            String out = new String(new ProcessBuilder(py.root() == null ? List.of(py.python().toString(), "-V")
                    : List.of("chroot", py.root().toString(), py.python().toString(), "-V"))
                    .redirectErrorStream(true).start().getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(out.trim()).isEqualTo("Python " + p.offsets().versionString());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("interpreters")
    void aStringIsNotACodeObject(Interpreters.Interpreter py) throws Exception {
        usable(py);
        try (Interpreters.Running run = py.start("sixthreeone.py"); ProcessMemory mem = ProcessMemory.open(run.pid())) {
            PythonProcess p = detect(run.pid());
            PythonWalker walker = new PythonWalker(p, mem);
            CodeNames names = new CodeNames(mem, p.offsets());
            PythonFrame leaf = walker.thread(walker.threadState(run.pid())).frames().getFirst();
            CodeNames.Code code = names.code(leaf.code());
            assertThat(code).isNotNull();
            long filename = mem.u64(leaf.code() + p.offsets().codeFilename());
            assertThat(names.code(filename)).as("a str object read as a code object").isNull();
            assertThat(names.code(leaf.code())).isSameAs(code);
            assertThat(names.label(TachyonOptions.Naming.CPYTHON, new PythonFrame(filename, 0, false)))
                    .startsWith("<dead code 0x");
        }
    }

    /**
     * The eval-loop ranges and the walk's activation ends agree with a native unwinder: with the
     * workload stopped (SIGSTOP: the test started it), gdb's frames of each thread whose address
     * lies in {@link PythonProcess#inEvalLoop} are as many as the walk's activations of that
     * thread, which is what lets the BPF program put each activation's Python frames in place of
     * its eval-loop frame. Covers the split eval loop of Debian's stripped 3.14/3.15.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("interpreters")
    void evalLoopFramesAreTheActivations(Interpreters.Interpreter py) throws Exception {
        usable(py);
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/gdb")), "gdb is not installed");
        try (Interpreters.Running run = py.start("twothreads.py"); ProcessMemory mem = ProcessMemory.open(run.pid())) {
            PythonProcess p = detect(run.pid());
            Thread.sleep(100);
            // A thread stopped inside the few instructions that link or unlink an entry frame
            // (a call into the eval loop, or its return) is in neither state; such a moment is
            // retried at another stop, a disagreement that persists fails.
            List<String> disagreements = new ArrayList<>();
            for (int attempt = 0; attempt < 4; attempt++) {
                String disagreement = compareEvalFrames(py, run.pid(), p, mem);
                if (disagreement == null) {
                    return;
                }
                disagreements.add(disagreement);
                Thread.sleep(37 + 50L * attempt);
            }
            throw new AssertionError("at every stop the walk and gdb disagreed:\n" + String.join("\n----\n", disagreements));
        }
    }

    /** One stop of the workload: null when gdb's eval-loop frames match the walk, else why not. */
    private static String compareEvalFrames(Interpreters.Interpreter py, int pid, PythonProcess p, ProcessMemory mem)
            throws Exception {
        signal("STOP", pid);
        String gdb;
        List<PythonThread> threads;
        try {
            // kill(2) returns before the threads stop: read nothing until every one has.
            awaitStopped(pid);
            threads = new PythonWalker(p, mem).threads();
            // A chroot's process unwinds with the chroot's libraries (its executable named by /proc).
            String sysroot = py.root() == null ? "/" : py.root().toString();
            Process g = new ProcessBuilder("timeout", "60", "gdb", "-nx", "-batch", "-iex", "set sysroot " + sysroot,
                    "/proc/" + pid + "/exe", "-p", Integer.toString(pid), "-ex", "thread apply all frame apply all -q p/x $pc")
                    .redirectErrorStream(true).start();
            gdb = new String(g.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            g.waitFor();
        } finally {
            signal("CONT", pid);
        }
        java.util.Map<Integer, Integer> evalFrames = new java.util.HashMap<>();
        java.util.Set<Integer> leafInEval = new java.util.HashSet<>();
        int lwp = -1;
        long previousPc = -1;
        for (String line : gdb.split("\n")) {
            java.util.regex.Matcher t = java.util.regex.Pattern.compile("^Thread \\d+ .*\\(LWP (\\d+)").matcher(line);
            if (t.find()) {
                lwp = Integer.parseInt(t.group(1));
                previousPc = -1;
                evalFrames.put(lwp, 0);
                continue;
            }
            java.util.regex.Matcher v = java.util.regex.Pattern.compile("^\\$\\d+ = 0x([0-9a-f]+)").matcher(line);
            if (v.find() && lwp > 0) {
                long pc = Long.parseUnsignedLong(v.group(1), 16);
                // Inlined frames repeat their physical frame's pc.
                if (pc != previousPc && (p.inEvalLoop(pc) || p.inEvalLoop(pc - 1))) {
                    evalFrames.merge(lwp, 1, Integer::sum);
                    if (previousPc == -1) {
                        leafInEval.add(lwp);
                    }
                }
                previousPc = pc;
            }
        }
        assumeTrue(evalFrames.size() == 2, "gdb could not attach here: " + gdb.lines().findFirst().orElse(""));
        StringBuilder why = new StringBuilder();
        for (PythonThread t : threads) {
            long activations = t.frames().stream().filter(PythonFrame::activationEnd).count();
            assertThat(activations).as("thread %d: the walk's activations", t.nativeId()).isGreaterThanOrEqualTo(1);
            // A thread stopped in the eval loop's own prologue or epilogue has an eval-loop frame
            // whose entry frame is not linked (yet, or any more): one more than the walk's.
            int allowed = leafInEval.contains(t.nativeId()) ? 1 : 0;
            Integer seen = evalFrames.get(t.nativeId());
            if (seen == null || seen < activations || seen > activations + allowed) {
                why.append("thread ").append(t.nativeId()).append(": gdb's eval-loop frames ").append(seen)
                        .append(", the walk's activations ").append(activations).append('\n');
            }
        }
        return why.isEmpty() ? null : why.append(gdb).toString();
    }

    /** Waits until every thread of {@code pid} is in the stopped state (T) of /proc. */
    private static void awaitStopped(int pid) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            boolean all = true;
            try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
                for (Path task : tasks.toList()) {
                    String stat = Files.readString(task.resolve("stat"));
                    char state = stat.charAt(stat.lastIndexOf(')') + 2);
                    if (state != 'T' && state != 't') {
                        all = false;
                        break;
                    }
                }
            } catch (java.nio.file.NoSuchFileException gone) {
                all = false; // a thread ended while listed; look again
            }
            if (all) {
                return;
            }
            Thread.sleep(1);
        }
        throw new AssertionError("process " + pid + " did not stop within 10 s of SIGSTOP");
    }

    private static void signal(String sig, int pid) throws Exception {
        assertThat(new ProcessBuilder("kill", "-" + sig, Integer.toString(pid)).start().waitFor()).isZero();
    }

    @org.junit.jupiter.api.Test
    void olderVersionsAreRefusedInOneLine() throws Exception {
        for (String v : List.of("3.10.13", "3.9.18", "3.8.18")) {
            Interpreters.Interpreter py = new Interpreters.Interpreter("pyenv-" + v,
                    Path.of("/root/.pyenv/versions/" + v + "/bin/python3"), null);
            if (py.missing() != null) {
                continue;
            }
            try (Interpreters.Running run = py.start("sixthreeone.py")) {
                PythonDetector.Detection d = PythonDetector.detect(run.pid());
                assertThat(d).isInstanceOf(PythonDetector.Unsupported.class);
                String reason = ((PythonDetector.Unsupported) d).reason();
                assertThat(reason).contains("CPython " + v.substring(0, v.lastIndexOf('.')))
                        .contains("only 3.11 to 3.15").doesNotContain("\n");
            }
        }
    }

    @org.junit.jupiter.api.Test
    void theJvmIsNotPython() throws Exception {
        assertThat(PythonDetector.detect((int) ProcessHandle.current().pid()))
                .isInstanceOf(PythonDetector.NotPython.class);
    }

    @org.junit.jupiter.api.Test
    void dumpPrintsEachThread() throws Exception {
        Interpreters.Interpreter py = usable(Interpreters.all().findFirst().orElseThrow());
        try (Interpreters.Running run = py.start("twothreads.py")) {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
            int status = PythonDump.dump(run.pid(), TachyonOptions.Naming.CPYTHON, new java.io.PrintStream(out, true),
                    new java.io.PrintStream(err, true));
            String text = out.toString(StandardCharsets.UTF_8);
            assertThat(status).as(err.toString()).isZero();
            assertThat(text).contains("CPython 3.").contains("Thread " + run.pid() + " ")
                    .contains("twothreads.py:main_loop:").contains("twothreads.py:worker:");
        }
        assertThat(Files.exists(Path.of("/proc/1/maps"))).isTrue();
    }
}
