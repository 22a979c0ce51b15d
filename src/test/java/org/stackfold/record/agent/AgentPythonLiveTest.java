package org.stackfold.record.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.cli.CliRun;
import org.stackfold.record.Privileges;
import org.stackfold.record.python.Interpreters;

/**
 * The agent ({@code record --every 2}, as its own process, stopped by SIGTERM) over two Python
 * services of Debian's python3, started before it from {@code …/srv/api.py} (the 6:3:1 workload)
 * and {@code …/srv/jobs.py} (regen.py: its busy function redefined again and again, each new code
 * object where the last one was freed). Checked over the intervals: every interval of the services
 * names their Python frames (CPython's {@code file.py:function:line}) between native frames, the
 * 6:3:1 shares over the whole run, a {@code --label} rule on the command line names each service
 * (whole system; the intervals' files add up to the BPF program's run count) or {@code --split
 * process} gives each process its own profile ({@code -p}; a Tachyon file per interval too), and
 * no interval names a frame after a function that did not exist then: each sample of {@code gen_N}
 * is under the branch of {@code generation()} that generation N calls from, and the generations
 * named never go back from one interval to the next. Waits for states (enough samples in the
 * files), never for durations.
 */
class AgentPythonLiveTest {
    static final Pattern PYTHON = Pattern.compile("[^;/]+\\.py:[^;]+:\\d+");
    static final Pattern GEN = Pattern.compile("gen\\.py:gen_(\\d+):\\d+");
    /** A file the agent wrote: {@code service-[pid-]epochseconds.ext}. */
    static final Pattern FILE = Pattern.compile("(.+?)-(?:(\\d+)-)?(\\d+)\\.(folded|bin)");
    static final Path PYTHON3 = Path.of("/usr/bin/python3");

    @TempDir
    Path dir;

    @BeforeAll
    static void privileges() {
        String missing = Privileges.missing();
        assumeTrue(missing == null, missing);
        String release;
        try {
            release = Files.readString(Path.of("/proc/sys/kernel/osrelease")).strip();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        Matcher v = Pattern.compile("(\\d+)\\.(\\d+)").matcher(release);
        assumeTrue(v.lookingAt() && Integer.parseInt(v.group(1)) * 1000 + Integer.parseInt(v.group(2)) >= 5015,
                "Linux " + release + " < 5.15: no .eh_frame walker, no Python frames");
        assumeTrue(Files.isExecutable(PYTHON3), PYTHON3 + " is not installed");
    }

    /** Whole system, -I, a --label rule on the command line: services api and jobs, counts that add up. */
    @Test
    void labelRuleNamesPythonServicesInEveryInterval() throws Exception {
        Path out = Files.createDirectories(dir.resolve("out"));
        try (Workload api = start("sixthreeone.py", "api.py"); Workload jobs = start("regen.py", "jobs.py", "1000")) {
            RunningAgent agent = agent(List.of("--every", "2", "-F", "199", "-I", "--bpf-stats", "--health-every", "1",
                    "-o", out.resolve("%n-%s.folded").toString(),
                    "--label", "service=$1:cmdline~python3 \\S*/srv/([a-z]+)\\.py"));
            Map<String, Map<String, Long>> apiIntervals, jobsIntervals;
            String log;
            try {
                agent.await(() -> {
                    Map<String, Map<String, Long>> a = intervals(out, "api"), j = intervals(out, "jobs");
                    return a.size() >= 5 && enough(a, 1000) && enough(j);
                });
                log = agent.stop();
            } finally {
                agent.kill();
            }
            apiIntervals = intervals(out, "api");
            jobsIntervals = intervals(out, "jobs");

            // Counts add up: every sample the BPF program took is in exactly one file of one interval.
            Matcher end = Pattern.compile("stopped after ([\\d,]+) intervals: ([\\d,]+) samples, ([\\d,]+) lost.*"
                    + "BPF program runs ([\\d,]+)").matcher(log);
            assertThat(end.find()).as(log).isTrue();
            long samples = number(end.group(2)), lost = number(end.group(3)), runs = number(end.group(4));
            long inFiles = 0;
            for (Path f : files(out)) {
                inFiles += total(read(f));
            }
            assertThat(inFiles).as(log).isEqualTo(samples);
            assertThat(samples + lost).as(log).isEqualTo(runs);

            // The rule named both services: their frames are in their files and nowhere else.
            for (Path f : files(out)) {
                String name = f.getFileName().toString();
                String text = Files.readString(f);
                if (!name.startsWith("api-")) {
                    assertThat(text).as(name).doesNotContain("api.py:");
                }
                if (!name.startsWith("jobs-")) {
                    assertThat(text).as(name).doesNotContain("jobs.py:", "gen.py:");
                }
            }
            checkSixThreeOne(apiIntervals, "api.py");
            checkGenerations(jobsIntervals, jobs);
        }
    }

    /** -p of the two services, --split process at 499 Hz: a profile per process an interval, .folded and Tachyon .bin. */
    @Test
    void splitProcessNamesPythonFramesInEveryInterval() throws Exception {
        Path out = Files.createDirectories(dir.resolve("out"));
        try (Workload api = start("sixthreeone.py", "api.py"); Workload jobs = start("regen.py", "jobs.py", "1000")) {
            String apiPrefix = "python3-" + api.pid(), jobsPrefix = "python3-" + jobs.pid();
            RunningAgent agent = agent(List.of("--every", "2", "-F", "499", "-p", api.pid() + "," + jobs.pid(),
                    "--split", "process", "-o", out.resolve("%n-%p-%s.folded").toString(),
                    "-o", out.resolve("%n-%p-%s.bin").toString()));
            try {
                agent.await(() -> {
                    Map<String, Map<String, Long>> a = intervals(out, apiPrefix), j = intervals(out, jobsPrefix);
                    return a.size() >= 4 && enough(a, 1500) && enough(j);
                });
                agent.stop();
            } finally {
                agent.kill();
            }
            Map<String, Map<String, Long>> apiIntervals = intervals(out, apiPrefix);
            Map<String, Map<String, Long>> jobsIntervals = intervals(out, jobsPrefix);
            // Each file is one process's: the service is its name (python3), the pid its own.
            for (Path f : files(out)) {
                String name = f.getFileName().toString();
                assertThat(name).as("a file of one of the two processes").matches(
                        Pattern.quote(apiPrefix) + "-\\d+\\.(folded|bin)|" + Pattern.quote(jobsPrefix) + "-\\d+\\.(folded|bin)");
                if (name.endsWith(".folded")) {
                    String text = Files.readString(f);
                    assertThat(text).as(name).doesNotContain(name.startsWith(apiPrefix) ? "jobs.py:" : "api.py:");
                }
            }
            checkSixThreeOne(apiIntervals, "api.py");
            checkGenerations(jobsIntervals, jobs);
            // Each interval's Tachyon file holds the same samples and Python frames as its folded file.
            for (Path f : files(out)) {
                String name = f.getFileName().toString();
                if (!name.endsWith(".folded")) {
                    continue;
                }
                Path bin = f.resolveSibling(name.replace(".folded", ".bin"));
                assertThat(bin).as("the Tachyon file of " + name).exists();
                Path back = dir.resolve("back.folded");
                CliRun c = CliRun.run("convert", bin.toString(), "-o", back.toString());
                assertThat(c.code()).as(c.err()).isZero();
                Map<String, Long> folded = read(f), tachyon = read(back);
                assertThat(total(tachyon)).as(name).isEqualTo(total(folded));
                assertThat(pythonOnly(tachyon)).as(name).isEqualTo(pythonOnly(folded));
            }
        }
    }

    /**
     * A python3 process that execs python3 again (same pid; Debian's python3.11 is not
     * position-independent, so the new program's interpreter is where the old one was): the
     * intervals after the exec name its new Python frames, never {@code <dead code 0x…>}. With
     * {@code --no-lines}: each function named with its first line.
     */
    @Test
    void aServiceThatExecsItselfIsNamedAfterTheExec() throws Exception {
        Path out = Files.createDirectories(dir.resolve("out"));
        Path trigger = dir.resolve("exec-now");
        try (Workload svc = start("reexec.py", "svc.py", trigger.toString())) {
            String prefix = "python3-" + svc.pid();
            RunningAgent agent = agent(List.of("--every", "2", "-F", "499", "-p", Integer.toString(svc.pid()),
                    "--split", "process", "--no-lines", "-o", out.resolve("%n-%p-%s.folded").toString()));
            try {
                agent.await(() -> count(merged(intervals(out, prefix)), k -> k.contains("svc.py:before_exec:")) >= 50);
                int before = intervals(out, prefix).size();
                Files.createFile(trigger);
                // Five intervals more: the new program runs within one (its start-up takes well under a second).
                agent.await(() -> intervals(out, prefix).size() >= before + 5);
                agent.stop();
            } finally {
                agent.kill();
            }
            List<Map<String, Long>> after = afterExec(intervals(out, prefix));
            String afterExec = "svc.py:after_exec:" + Interpreters.scriptLine("reexec.py", "def after_exec");
            String spin = "svc.py:spin:" + Interpreters.scriptLine("reexec.py", "def spin");
            for (String k : merged(intervals(out, prefix)).keySet()) {
                for (String f : k.split(";")) {
                    if (f.startsWith("svc.py:after_exec:") || f.startsWith("svc.py:spin:")) {
                        assertThat(f).as("--no-lines: the function's first line").isIn(afterExec, spin);
                    }
                }
            }
            long named = 0;
            for (Map<String, Long> interval : after) {
                assertThat(interval.keySet()).as("an interval after the exec").noneMatch(k -> k.contains("<dead code"));
                long n = count(interval, k -> k.contains("svc.py:<module>:") && k.contains("svc.py:after_exec:"));
                assertThat(n).as("an interval after the exec: samples of after_exec").isPositive();
                named += n;
            }
            System.out.printf(Locale.ROOT, "svc.py: %d intervals after the exec, %d samples of after_exec%n", after.size(),
                    named);
            assertThat(after.size()).isGreaterThanOrEqualTo(2);
        }
    }

    /** The intervals after the first one that holds the exec'd program's frames (that one has both). */
    private static List<Map<String, Long>> afterExec(Map<String, Map<String, Long>> intervals) {
        List<Map<String, Long>> after = new ArrayList<>();
        boolean seen = false;
        for (Map<String, Long> i : intervals.values()) {
            if (seen) {
                after.add(i);
            }
            seen |= count(i, k -> k.contains("svc.py:after_exec:")) > 0;
        }
        return after;
    }

    // ---- checks ----

    /** Python frames in every interval, the 6:3:1 shares over the run, native frames around them. */
    private static void checkSixThreeOne(Map<String, Map<String, Long>> intervals, String file) {
        long eval = 0, withPython = 0, nativeLeaf = 0;
        int n = 0;
        for (Map.Entry<String, Map<String, Long>> interval : intervals.entrySet()) {
            long e = 0, p = 0;
            for (Map.Entry<String, Long> s : interval.getValue().entrySet()) {
                List<String> frames = List.of(s.getKey().split(";"));
                boolean python = frames.stream().anyMatch(f -> PYTHON.matcher(f).matches());
                if (python || frames.contains("_PyEval_EvalFrameDefault")) {
                    e += s.getValue();
                }
                if (!python) {
                    continue;
                }
                p += s.getValue();
                int first = 0;
                while (!PYTHON.matcher(frames.get(first)).matches()) {
                    first++;
                }
                int last = frames.size() - 1;
                while (!PYTHON.matcher(frames.get(last)).matches()) {
                    last--;
                }
                // Native frames before the first Python frame, which is the script's <module>.
                assertThat(frames.subList(0, first)).as(s.getKey()).contains("_start", "Py_RunMain", "PyEval_EvalCode");
                assertThat(frames.get(first)).as(s.getKey()).startsWith(file + ":<module>:");
                for (String f : frames.subList(first, last + 1)) {
                    assertThat(f).as("only Python frames between the first and the last: " + s.getKey())
                            .matches(PYTHON);
                }
                if (last < frames.size() - 1) {
                    nativeLeaf += s.getValue();
                }
            }
            // Every interval with samples in the eval loop names its Python frames (the first, whose process may
            // not have been detected yet at its first samples, at least some).
            if (e >= 20) {
                assertThat(p).as("interval %s: samples with Python frames of %d in the eval loop", interval.getKey(), e)
                        .isGreaterThanOrEqualTo(n == 0 ? 1 : (long) Math.ceil(0.8 * e));
            }
            eval += e;
            withPython += p;
            n++;
        }
        Map<String, Long> all = merged(intervals);
        long heavy = count(all, k -> k.contains(":heavy:") && k.contains(":spin:"));
        long medium = count(all, k -> k.contains(":medium:") && k.contains(":spin:"));
        long light = count(all, k -> k.contains(":light:") && k.contains(":spin:"));
        long spin = heavy + medium + light;
        System.out.printf(Locale.ROOT, "%s: %d intervals, %d spin samples: heavy %.1f%%, medium %.1f%%, light %.1f%%;"
                + " %d of %d eval-loop samples with Python frames, %d with native frames above them%n", file,
                intervals.size(), spin, 100.0 * heavy / spin, 100.0 * medium / spin, 100.0 * light / spin, withPython,
                eval, nativeLeaf);
        assertThat(spin).isGreaterThanOrEqualTo(1000);
        assertThat(100.0 * heavy / spin).as("heavy").isCloseTo(60, org.assertj.core.data.Offset.offset(5.0));
        assertThat(100.0 * medium / spin).as("medium").isCloseTo(30, org.assertj.core.data.Offset.offset(5.0));
        assertThat(100.0 * light / spin).as("light").isCloseTo(10, org.assertj.core.data.Offset.offset(5.0));
        assertThat((double) withPython / eval).as("eval-loop samples with Python frames").isGreaterThanOrEqualTo(0.95);
        assertThat(nativeLeaf).as("samples with native frames above the Python ones").isPositive();
    }

    /**
     * No interval names a function that did not exist then: a sample of {@code gen_N} is under
     * {@code generation()}'s branch N % 4 (or, named at a drain just after generation N-1's code
     * object was freed and N's put in its place, under N-1's branch: the sample is named after the
     * code object at its address at the drain), and the generations named in an interval are never
     * below those of an earlier interval. The workload did reuse its code objects' addresses.
     */
    private static void checkGenerations(Map<String, Map<String, Long>> intervals, Workload jobs) throws IOException {
        int[] branchLine = new int[4];
        for (int b = 0; b < 4; b++) {
            branchLine[b] = Interpreters.scriptLine("regen.py", "# branch " + b);
        }
        Pattern call = Pattern.compile("jobs\\.py:generation:(\\d+)");
        long named = 0, exact = 0, previous = 0;
        int highest = -1;
        java.util.Set<Integer> seen = new java.util.TreeSet<>();
        for (Map.Entry<String, Map<String, Long>> interval : intervals.entrySet()) {
            int low = Integer.MAX_VALUE, high = -1;
            for (Map.Entry<String, Long> s : interval.getValue().entrySet()) {
                Matcher g = GEN.matcher(s.getKey());
                if (!g.find()) {
                    continue;
                }
                int gen = Integer.parseInt(g.group(1));
                Matcher c = call.matcher(s.getKey());
                assertThat(c.find()).as(s.getKey()).isTrue();
                int at = Integer.parseInt(c.group(1));
                named += s.getValue();
                if (at == branchLine[gen % 4]) {
                    exact += s.getValue();
                } else {
                    assertThat(at).as("gen_%d named under another generation's branch (line %d): %s", gen, at, s.getKey())
                            .isEqualTo(branchLine[(gen + 3) % 4]);
                    previous += s.getValue();
                }
                low = Math.min(low, gen);
                high = Math.max(high, gen);
                seen.add(gen);
            }
            if (high >= 0) {
                assertThat(low).as("interval %s names gen_%d after an earlier interval named gen_%d", interval.getKey(),
                        low, highest).isGreaterThanOrEqualTo(highest);
                highest = high;
            }
        }
        long reused = jobs.reusedAddresses();
        System.out.printf(Locale.ROOT, "jobs.py: %d generations named (%s), %d samples of gen_*, %d under their own"
                + " branch, %d named at a drain after their code object was replaced; %d generations reused an"
                + " address%n", seen.size(), seen, named, exact, previous, reused);
        assertThat(seen.size()).isGreaterThanOrEqualTo(6);
        assertThat(reused).as("generations whose code object took an earlier one's address").isGreaterThanOrEqualTo(3);
        // Samples named after their successor are those of a generation's last drain period only.
        assertThat((double) previous / named).as("samples named after the next generation").isLessThan(0.25);
    }

    // ---- the files ----

    /** The intervals of one service (or service-pid) prefix, in time order: interval start → folded stacks. */
    static Map<String, Map<String, Long>> intervals(Path out, String prefix) throws IOException {
        Map<String, Map<String, Long>> m = new TreeMap<>();
        for (Path f : files(out)) {
            Matcher n = FILE.matcher(f.getFileName().toString());
            if (!n.matches() || !n.group(4).equals("folded")) {
                continue;
            }
            String owner = n.group(2) == null ? n.group(1) : n.group(1) + "-" + n.group(2);
            if (owner.equals(prefix)) {
                try {
                    m.put(String.format("%012d", Long.parseLong(n.group(3))), read(f));
                } catch (NoSuchFileException e) {
                    // replaced meanwhile: read again next time
                }
            }
        }
        return m;
    }

    static List<Path> files(Path out) throws IOException {
        try (Stream<Path> s = Files.list(out)) {
            return s.filter(p -> FILE.matcher(p.getFileName().toString()).matches()).sorted().toList();
        }
    }

    static Map<String, Long> read(Path f) throws IOException {
        Map<String, Long> m = new LinkedHashMap<>();
        for (String line : Files.readAllLines(f)) {
            int sp = line.lastIndexOf(' ');
            if (sp > 0) {
                m.merge(line.substring(0, sp), Long.parseLong(line.substring(sp + 1)), Long::sum);
            }
        }
        return m;
    }

    static Map<String, Long> merged(Map<String, Map<String, Long>> intervals) {
        Map<String, Long> m = new HashMap<>();
        intervals.values().forEach(i -> i.forEach((k, v) -> m.merge(k, v, Long::sum)));
        return m;
    }

    /**
     * Enough of the 6:3:1 service's intervals: {@code spin} samples, or none with a Python frame after
     * five intervals (a defect, not a slow machine: the checks then say what is missing at once).
     */
    static boolean enough(Map<String, Map<String, Long>> api, long spin) {
        Map<String, Long> all = merged(api);
        return spin(all) >= spin || api.size() >= 5 && count(all, k -> PYTHON.matcher(k).find()) == 0;
    }

    /** Enough generations of regen.py named, or none with a Python frame after five intervals. */
    static boolean enough(Map<String, Map<String, Long>> jobs) {
        return generations(jobs).size() >= 6 || jobs.size() >= 5 && count(merged(jobs), k -> PYTHON.matcher(k).find()) == 0;
    }

    static long spin(Map<String, Long> stacks) {
        return count(stacks, k -> k.contains(":spin:"));
    }

    static java.util.Set<Integer> generations(Map<String, Map<String, Long>> intervals) {
        java.util.Set<Integer> s = new java.util.HashSet<>();
        for (String k : merged(intervals).keySet()) {
            Matcher g = GEN.matcher(k);
            if (g.find()) {
                s.add(Integer.parseInt(g.group(1)));
            }
        }
        return s;
    }

    static long count(Map<String, Long> stacks, Predicate<String> which) {
        return stacks.entrySet().stream().filter(e -> which.test(e.getKey())).mapToLong(Map.Entry::getValue).sum();
    }

    static long total(Map<String, Long> stacks) {
        return count(stacks, k -> true);
    }

    /** The stacks reduced to their Python frames (the roots and native frames differ between formats). */
    static Map<String, Long> pythonOnly(Map<String, Long> stacks) {
        Map<String, Long> m = new TreeMap<>();
        stacks.forEach((k, v) -> {
            StringBuilder b = new StringBuilder();
            for (String f : k.split(";")) {
                if (PYTHON.matcher(f).matches()) {
                    b.append(f).append(';');
                }
            }
            m.merge(b.toString(), v, Long::sum);
        });
        return m;
    }

    static long number(String s) {
        return Long.parseLong(s.replace(",", ""));
    }

    // ---- the processes ----

    /** A python3 service: a resource script copied to {@code dir/srv/NAME} and started; stdout to a file. */
    record Workload(Process process, Path stdout) implements AutoCloseable {
        int pid() {
            return (int) process.pid();
        }

        /** Generations (regen.py's "gen N 0xADDRESS" lines) whose code object took an earlier one's address. */
        long reusedAddresses() throws IOException {
            java.util.Set<String> addresses = new java.util.HashSet<>();
            long reused = 0;
            for (String l : Files.readAllLines(stdout)) {
                String[] w = l.split(" ");
                if (w.length == 3 && w[0].equals("gen") && !addresses.add(w[2])) {
                    reused++;
                }
            }
            return reused;
        }

        @Override
        public void close() throws Exception {
            process.destroyForcibly().waitFor();
        }
    }

    private Workload start(String resource, String name, String... args) throws Exception {
        Path srv = Files.createDirectories(dir.resolve("srv"));
        Path script = srv.resolve(name);
        try (InputStream in = Interpreters.class.getResourceAsStream(resource)) {
            assertThat(in).as(resource).isNotNull();
            Files.write(script, in.readAllBytes());
        }
        Path stdout = dir.resolve(name + ".out");
        List<String> cmd = new ArrayList<>(List.of(PYTHON3.toString(), script.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD)
                .redirectOutput(stdout.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (p.isAlive() && System.nanoTime() < deadline
                && !(Files.exists(stdout) && Files.readString(stdout).startsWith("ready\n"))) {
            Thread.sleep(20);
        }
        if (!Files.readString(stdout).startsWith("ready\n")) {
            p.destroyForcibly().waitFor();
            throw new AssertionError(name + " did not start");
        }
        return new Workload(p, stdout);
    }

    /** Condition over the files written so far. */
    interface State {
        boolean reached() throws IOException;
    }

    /** The agent as its own process (as systemd runs it), its stderr in a file. */
    record RunningAgent(Process process, Path err) {
        /** Waits until {@code state} holds (at most 4 minutes: a loaded machine only makes it take longer). */
        void await(State state) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
            while (process.isAlive() && System.nanoTime() < deadline && !state.reached()) {
                Thread.sleep(250);
            }
            assertThat(process.isAlive()).as(Files.readString(err)).isTrue();
            assertThat(state.reached()).as("the files reached the state wanted; " + Files.readString(err)).isTrue();
        }

        /** SIGTERM, as systemd stops it: the last interval is written; its log. */
        String stop() throws Exception {
            process.destroy();
            assertThat(process.waitFor(2, TimeUnit.MINUTES)).isTrue();
            String log = Files.readString(err);
            assertThat(process.exitValue()).as(log).isZero();
            return log;
        }

        void kill() throws InterruptedException {
            if (process.isAlive()) {
                process.destroyForcibly().waitFor();
            }
        }
    }

    private RunningAgent agent(List<String> options) throws IOException {
        Path err = dir.resolve("agent.err");
        List<String> cmd = AgentJvm.command("record", "--queue", dir.resolve("queue").toString());
        cmd.addAll(options);
        return new RunningAgent(new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(err.toFile()).start(), err);
    }
}
