package org.stackfold.format.perfdata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The oracle: perf.data files recorded here with {@code perf record -g} (a C program with frame
 * pointers, CPython, a JVM with -XX:+PreserveFramePointer and a perf map) give, through
 * {@code stackfold collapse perf perf.data}, exactly the folded stacks of {@code perf script |
 * stackfold collapse perf} on the same file (names and counts), with and without the naming
 * options. Both paths read one recording, so the comparison is deterministic whatever the load.
 */
class PerfDataOracleTest {
    private static final String BURN_C = """
            #include <time.h>
            static volatile double sink;
            __attribute__((noinline)) double leaf(int n) { double s = 0; for (int i = 0; i < n; i++) s += i * 0.5; return s; }
            __attribute__((noinline)) double mid(int n) { return leaf(n) + leaf(n / 3) + 1; }
            __attribute__((noinline)) double top(int n) { return mid(n) * 2; }
            int main(void) { time_t t = time(0); while (time(0) - t < 2) sink += top(100000); return 0; }
            """;

    private static final String CLOCK_C = """
            #include <time.h>
            static volatile long sink;
            int main(void) {
                struct timespec s, n;
                clock_gettime(CLOCK_MONOTONIC, &s);
                do { clock_gettime(CLOCK_MONOTONIC, &n); sink += n.tv_nsec; } while (n.tv_sec - s.tv_sec < 1);
                return 0;
            }
            """;

    private static final String WORK_PY = """
            import time
            def fib(n):
                return n if n < 2 else fib(n - 1) + fib(n - 2)
            t = time.time()
            while time.time() - t < 1.5:
                fib(18)
            """;

    private static final String BURN_JAVA = """
            public class Burn {
                static double work(int n) { double s = 0; for (int i = 0; i < n; i++) s += Math.sqrt(i); return s; }
                static double outer(int n) { return work(n) + work(n / 2); }
                public static void main(String[] a) {
                    long end = System.currentTimeMillis() + 1500;
                    double s = 0;
                    while (System.currentTimeMillis() < end) s += outer(100000);
                    System.out.println(s > 0);
                }
            }
            """;

    @TempDir
    Path dir;

    @Test
    void cProgramWithFramePointers() throws Exception {
        Files.writeString(dir.resolve("burn.c"), BURN_C);
        exec(dir, "gcc", "-O1", "-g", "-fno-omit-frame-pointer", "-o", "burn", "burn.c");
        Path data = record(dir.resolve("burn").toString());
        String text = perfScript(data, "burn.txt");
        String folded = agree(data, text);
        assertThat(folded).contains("burn;__libc_start_call_main;main;top");
        agree(data, text, "--kernel");
        agree(data, text, "--addrs");
        assertThat(agree(data, text, "--count-samples")).isNotEqualTo(folded); // 1 a sample, not its period
        String withPid = perfScript(data, "burn-pid.txt", "-F", "+pid");
        assertThat(agree(data, withPid, "--tid")).containsPattern("(?m)^burn-\\d+/\\d+;");
        agree(data, withPid, "--pid");
    }

    @Test
    void processesOfOneBinaryShareItsFramesWhereverItIsLoaded() throws Exception {
        // Three processes of one program, each at its own (ASLR) base address: the reader names each
        // file's addresses once for all processes, and every process must still read as perf prints it.
        Files.writeString(dir.resolve("burn.c"), BURN_C.replace("< 2", "< 1"));
        exec(dir, "gcc", "-O1", "-g", "-fno-omit-frame-pointer", "-o", "burn", "burn.c");
        Path data = record("/bin/sh", "-c", "./burn & ./burn & ./burn; wait");
        agree(data, perfScript(data, "procs.txt"));
        String folded = agree(data, perfScript(data, "procs-pid.txt", "-F", "+pid"), "--pid");
        // agree() compared every stack with perf's; the case only means something where at least two
        // of the processes were sampled in main (a loaded machine may starve one of them).
        assumeThat(folded.lines().filter(l -> l.matches("burn-\\d+;__libc_start_call_main;main;top.*"))
                .map(l -> l.substring(0, l.indexOf(';'))).distinct().count())
                .as("fewer than two of the three processes were sampled in main").isGreaterThanOrEqualTo(2);
    }

    @Test
    void pipeModeFile() throws Exception {
        Files.writeString(dir.resolve("burn.c"), BURN_C.replace("< 2", "< 1"));
        exec(dir, "gcc", "-O1", "-g", "-fno-omit-frame-pointer", "-o", "burn", "burn.c");
        assumeThat(onPath("perf")).as("perf (linux-perf) is not installed").isTrue();
        Path data = dir.resolve("pipe.data");
        Process p = new ProcessBuilder("perf", "record", "-q", "-F", "499", "-g", "-o", "-", "--", dir.resolve("burn").toString())
                .directory(dir.toFile()).redirectOutput(data.toFile()).redirectError(dir.resolve("pipe.err").toFile()).start();
        assertThat(p.waitFor(300, TimeUnit.SECONDS)).isTrue();
        assumeThat(p.exitValue() == 0 && Files.size(data) > 0).as("perf cannot record here").isTrue();
        assertThat(agree(data, perfScript(data, "pipe.txt"))).contains("burn;__libc_start_call_main;main;top");
    }

    /**
     * A pipe carries no copy of the vDSO (no build-ids): perf script names its frames from its own
     * vDSO, and so must the direct reader. This program spends its time there, so every run has them.
     */
    @Test
    void pipeModeVdsoFrames() throws Exception {
        Files.writeString(dir.resolve("clock.c"), CLOCK_C);
        exec(dir, "gcc", "-O1", "-g", "-fno-omit-frame-pointer", "-o", "clock", "clock.c");
        assumeThat(onPath("perf")).as("perf (linux-perf) is not installed").isTrue();
        Path data = dir.resolve("clock.data");
        Process p = new ProcessBuilder("perf", "record", "-q", "-F", "499", "-g", "-o", "-", "--", dir.resolve("clock").toString())
                .directory(dir.toFile()).redirectOutput(data.toFile()).redirectError(dir.resolve("clock.err").toFile()).start();
        assertThat(p.waitFor(300, TimeUnit.SECONDS)).isTrue();
        assumeThat(p.exitValue() == 0 && Files.size(data) > 0).as("perf cannot record here").isTrue();
        String text = perfScript(data, "clock.txt");
        assumeThat(Files.readString(Path.of(text))).as("perf script names no vDSO frame here").contains("__vdso_clock_gettime");
        assertThat(agree(data, text)).contains("__vdso_clock_gettime");
    }

    @Test
    void python() throws Exception {
        Files.writeString(dir.resolve("work.py"), WORK_PY);
        // The interpreter itself, not a shim script (pyenv) that runs shells first.
        String python = exec(dir, "python3", "-c", "import os, sys; print(os.path.realpath(sys.executable))").strip();
        Path data = record(python, dir.resolve("work.py").toString());
        String text = perfScript(data, "py.txt");
        assertThat(agree(data, text)).contains("_PyEval_EvalFrameDefault");
        agree(data, text, "--all");
    }

    @Test
    void javaWithPerfMap() throws Exception {
        Path javaHome = Path.of(System.getProperty("java.home"));
        Files.writeString(dir.resolve("Burn.java"), BURN_JAVA);
        exec(dir, javaHome.resolve("bin/javac").toString(), "-d", ".", "Burn.java");
        Path data = record(javaHome.resolve("bin/java").toString(), "-XX:+PreserveFramePointer",
                "-XX:+UnlockDiagnosticVMOptions", "-XX:+DumpPerfMapAtExit",
                "-cp", dir.toString(), "Burn");
        String text = perfScript(data, "java.txt");
        String folded = agree(data, text);
        // Compiled or still interpreted, depending on how much CPU the loaded machine gave the JVM.
        assertThat(folded).containsAnyOf("Burn.work", "Interpreter");
        assertThat(agree(data, text, "--all")).contains("_[j]");
    }

    /** The folded stacks of both paths, compared line for line; returns them. */
    private String agree(Path data, String perfScriptText, String... options) throws Exception {
        String direct = collapse(data.toString(), options);
        String viaText = collapse(perfScriptText, options);
        assertThat(direct).isNotEmpty();
        java.util.Map<String, Long> expected = stacks(viaText);
        java.util.Map<String, Long> actual = stacks(direct);
        // Stacks through a symbol perf makes up (NAME@plt) or has none for (a shared library's PLT, which
        // perf script prints as [unknown] in the library, [libpython3.11.so.1.0]: a full run saw one),
        // an assembler label (_dl_start_user) or a C++
        // template (the demanglers may spell template arguments apart) are named otherwise by the
        // symbolizer (docs/formats/perfdata.md); every other stack must match,
        // and the rest must carry the same weight.
        java.util.Map<String, Long> comparable = new java.util.TreeMap<>();
        long otherWeight = 0;
        for (var e : expected.entrySet()) {
            if (KNOWN_DIFFERENCE.matcher(e.getKey()).find()) {
                otherWeight += e.getValue();
            } else {
                comparable.put(e.getKey(), e.getValue());
            }
        }
        // Where no such stack was sampled this is exact equality; otherwise the stacks they became may
        // coincide with comparable ones, which then carry more weight, never less.
        long extra = 0;
        for (var e : comparable.entrySet()) {
            long got = actual.getOrDefault(e.getKey(), 0L);
            assertThat(got).as("collapse perf %s perf.data vs perf script | collapse perf: %s", List.of(options), e.getKey())
                    .isGreaterThanOrEqualTo(e.getValue());
            extra += got - e.getValue();
        }
        long actualRest = actual.entrySet().stream().filter(e -> !comparable.containsKey(e.getKey()))
                .mapToLong(java.util.Map.Entry::getValue).sum();
        assertThat(extra + actualRest).as("weight of the stacks through PLT stubs and labels").isEqualTo(otherWeight);
        if (otherWeight == 0) {
            assertThat(direct).isEqualTo(viaText);
        }
        return direct;
    }

    private static final java.util.regex.Pattern KNOWN_DIFFERENCE =
            java.util.regex.Pattern.compile("(^|;)([^;]*@plt|_dl_start_user|_start|[^;]*<[^;]*|\\[lib[^;\\]]*\\])(_\\[[kj]\\])?(;|$)");

    private static java.util.Map<String, Long> stacks(String folded) {
        return PerfTools.stacks(folded, s -> s);
    }

    private String collapse(String input, String... options) throws Exception {
        return PerfTools.collapse(dir, input, options);
    }

    private Path record(String... command) throws Exception {
        List<String> cmd = new ArrayList<>();
        for (String c : command) {
            if (!c.isEmpty()) {
                cmd.add(c);
            }
        }
        return PerfTools.record(dir, List.of("-F", "499", "-g"), cmd);
    }

    /** perf script's text of the recording, written next to it; returns its path. */
    private String perfScript(Path data, String name, String... fields) throws Exception {
        Path txt = dir.resolve(name);
        List<String> cmd = new ArrayList<>(List.of("perf", "script", "-i", data.toString()));
        cmd.addAll(List.of(fields));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile())
                .redirectOutput(txt.toFile()).redirectError(dir.resolve(name + ".err").toFile());
        Process p = pb.start();
        assertThat(p.waitFor(300, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(Files.readString(dir.resolve(name + ".err"))).isZero();
        return txt.toString();
    }

    private static boolean onPath(String tool) {
        return PerfTools.onPath(tool);
    }

    private record ProcessResult(int code, String out, String err) {
    }

    private static ProcessResult run(Path dir, List<String> cmd) throws Exception {
        Path out = Files.createTempFile(dir, "cmd", ".out");
        Path err = Files.createTempFile(dir, "cmd", ".err");
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectOutput(out.toFile())
                .redirectError(err.toFile()).start();
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("timed out: " + cmd);
        }
        return new ProcessResult(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    private static String exec(Path dir, String... cmd) throws Exception {
        ProcessResult r = run(dir, List.of(cmd));
        assertThat(r.code).as(String.join(" ", cmd) + ": " + r.err).isZero();
        return r.out;
    }
}
