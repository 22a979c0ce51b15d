package org.stackfold.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.stackfold.cli.CliRun.run;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.cli.CliRun;
import org.stackfold.testing.CliProcess;

/**
 * A recording is passive (issue 28, items 1-3): bad values are refused before anything is loaded,
 * missing processes and commands are named, the recorded command's stdout stays out of the profile,
 * and other people's JVMs get no signal and no file. The live cases are skipped where eBPF is not allowed.
 */
class RecordPassiveTest {
    @TempDir
    Path dir;

    private static void usage(CliRun r, String... contains) {
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        assertThat(r.err().strip().lines().count()).as(r.err()).isEqualTo(1);
        assertThat(r.err()).contains(contains).doesNotContain("internal error");
    }

    @Test
    void badValuesAreUsageErrorsOfOneLine() {
        usage(run("record", "-F", "0"), "-F");
        usage(run("record", "-F", "-5"), "-F");
        usage(run("record", "-d", "-1"), "-d");
        usage(run("record", "-d", "NaN"), "-d");
        usage(run("record", "-d", "1e300"), "-d");
        usage(run("record", "-d", "Infinity"), "-d");
        usage(run("record", "--stack-storage", "-1"), "--stack-storage");
        usage(run("record", "--stack-storage", "1"), "--stack-storage");
        usage(run("record", "--stack-storage", "2000000000"), "--stack-storage");
        usage(run("record", "-p", "-3"), "-p");
        usage(run("record", "-p", "0"), "-p");
    }

    /**
     * A recorder killed with SIGKILL while its command is stopped leaves it running, not stopped for
     * ever: its watchdog (CommandLauncher.watchdog) sees the recorder's pipe close and continues it.
     * The command here stops itself, which stands for the walker's hold (a few milliseconds, too
     * short to hit on purpose) and for the launch; without the watchdog it stays stopped.
     */
    @Test
    void aKilledRecorderLeavesNoCommandStopped() throws Exception {
        String missing = Privileges.missing();
        assumeTrue(missing == null, missing);
        Path marker = dir.resolve("resumed");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path ready = dir.resolve("resumed.ready");
        // "ready" first: before it the command may be stopped by a hold of the recorder's, which the
        // watchdog would continue, and the command would then stop itself with no recorder left.
        String script = "echo > \"$0.ready\"; kill -STOP $$; echo resumed > \"$0\"";
        Process recorder = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-cp",
                System.getProperty("java.class.path"), "org.stackfold.cli.Main", "record", "-F", "49", "-o",
                dir.resolve("killed.folded").toString(), "--", "/bin/sh", "-c", script, dir.resolve("resumed").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("recorder.out").toFile()).start();
        long command = -1;
        try {
            long until = System.nanoTime() + 60_000_000_000L;
            while (command < 0 && recorder.isAlive() && System.nanoTime() < until) {
                Thread.sleep(20);
                if (!Files.exists(ready)) {
                    continue;
                }
                command = recorder.descendants().filter(h -> commandLine(h.pid()).startsWith("/bin/sh\0-c\0" + script))
                        .filter(h -> ProcFiles.state(Path.of("/proc/" + h.pid() + "/stat")) == 'T')
                        .mapToLong(ProcessHandle::pid).findFirst().orElse(-1);
                Thread.sleep(20);
            }
            assertThat(command).as(Files.readString(dir.resolve("recorder.out"))).isPositive();
            recorder.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (!Files.exists(marker) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(marker).as("the command ran on after its recorder was killed").exists();
        } finally {
            recorder.destroyForcibly();
            if (command > 0) {
                ProcessHandle.of(command).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }

    private static String commandLine(long pid) {
        try {
            return ProcFiles.read(Path.of("/proc/" + pid + "/cmdline"));
        } catch (IOException e) {
            return "";
        }
    }

    @Test
    void aRateAboveTheKernelsLimitNamesIt() {
        long limit = RecordCommandAccess.maxSampleRate();
        assumeTrue(limit > 0 && limit < Integer.MAX_VALUE, "no /proc/sys/kernel/perf_event_max_sample_rate");
        CliRun r = run("record", "-F", Long.toString(limit + 1), "-d", "1");
        usage(r, "perf_event_max_sample_rate", Long.toString(limit));
    }

    @Test
    void thousandsOfPidsSayWhy() {
        StringBuilder b = new StringBuilder("1");
        for (int i = 2; i <= 5000; i++) {
            b.append(',').append(i);
        }
        CliRun r = run("record", "-p", b.toString(), "-d", "1");
        usage(r, "at most 4096");
        assertThat(r.err()).doesNotContain("E2BIG");
    }

    @Test
    void missingProcessesAndCommandsAreNamed() throws IOException {
        int gone = 4_000_000;
        while (Files.exists(Path.of("/proc/" + gone))) {
            gone++;
        }
        CliRun r = run("record", "-F", "1", "-p", Integer.toString(gone), "-d", "1");
        assertThat(r.code()).as(r.err()).isEqualTo(1);
        assertThat(r.err()).contains(Integer.toString(gone)).contains("no such process");

        List<String> threads = new ArrayList<>();
        try (Stream<Path> s = Files.list(Path.of("/proc/self/task"))) {
            s.map(p -> p.getFileName().toString()).forEach(threads::add);
        }
        String self = Long.toString(ProcessHandle.current().pid());
        String thread = threads.stream().filter(t -> !t.equals(self)).findFirst().orElseThrow();
        r = run("record", "-F", "1", "-p", thread, "-d", "1");
        assertThat(r.code()).as(r.err()).isEqualTo(1);
        assertThat(r.err()).contains("thread of process " + self);

        r = run("record", "-F", "1", "-d", "1", "--", "/nonexistent/command");
        assertThat(r.code()).as(r.err()).isEqualTo(1);
        assertThat(r.err().strip().lines().count()).isEqualTo(1);
        assertThat(r.err()).contains("/nonexistent/command: no such command");

        r = run("record", "-F", "1", "-d", "1", "--", "no-such-command-anywhere");
        assertThat(r.code()).as(r.err()).isEqualTo(1);
        assertThat(r.err()).contains("no-such-command-anywhere: command not found");
    }

    @Test
    void theCommandsStdoutNeverLandsInTheProfile() throws Exception {
        String missing = Privileges.missing();
        assumeTrue(missing == null, missing);
        CliProcess.Result r = CliProcess.bash(dir,
                "$SF record -F 99 -- sh -c 'echo FROM-THE-COMMAND; i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' > out.folded");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(Files.readString(dir.resolve("out.folded"))).doesNotContain("FROM-THE-COMMAND");
        assertThat(r.err()).contains("FROM-THE-COMMAND");
        // With -o, the command's stdout is left where it was.
        r = CliProcess.bash(dir, "$SF record -F 99 -o p.folded -- sh -c 'echo FROM-THE-COMMAND' > cmd.out");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(Files.readString(dir.resolve("cmd.out"))).contains("FROM-THE-COMMAND");
    }

    /**
     * A JVM that refuses attach (-XX:+DisableAttachMechanism) gets no SIGQUIT (it would print a thread
     * dump on its stdout) and no .attach_pid file; a JVM whose listener runs is asked for its perf map,
     * and the map, which did not exist before, is gone after the recording.
     */
    @Test
    void otherPeoplesJvmsGetNoSignalAndNoFileLeftBehind() throws Exception {
        String missing = Privileges.missing();
        assumeTrue(missing == null, missing);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        Path source = classes.resolve("Spin.java");
        Files.writeString(source, """
                public class Spin {
                    public static void main(String[] a) throws Exception {
                        System.out.println("started");
                        long x = 0;
                        long until = System.nanoTime() + 60_000_000_000L;
                        while (System.nanoTime() < until) {
                            for (int i = 0; i < 1_000_000; i++) { x += i ^ (x >>> 3); }
                            Thread.sleep(5);
                        }
                        System.out.println(x);
                    }
                }
                """);
        assertThat(javax.tools.ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", classes.toString(),
                source.toString())).isZero();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path refusingDir = Files.createDirectories(dir.resolve("refusing"));
        Path listeningDir = Files.createDirectories(dir.resolve("listening"));
        Process refusing = new ProcessBuilder(java, "-XX:+DisableAttachMechanism", "-Xint", "-cp", classes.toString(), "Spin")
                .directory(refusingDir.toFile()).redirectOutput(dir.resolve("refusing.out").toFile())
                .redirectErrorStream(true).start();
        Process listening = new ProcessBuilder(java, "-XX:+StartAttachListener", "-cp", classes.toString(), "Spin")
                .directory(listeningDir.toFile()).redirectOutput(dir.resolve("listening.out").toFile())
                .redirectErrorStream(true).start();
        Path listeningMap = Path.of("/tmp/perf-" + listening.pid() + ".map");
        Path refusingMap = Path.of("/tmp/perf-" + refusing.pid() + ".map");
        try {
            long until = System.nanoTime() + 30_000_000_000L;
            while ((!Files.readString(dir.resolve("refusing.out")).contains("started")
                    || !Files.exists(Path.of("/tmp/.java_pid" + listening.pid()))) && System.nanoTime() < until) {
                Thread.sleep(50);
            }
            assertThat(Files.exists(Path.of("/tmp/.java_pid" + listening.pid()))).as("the listener is up").isTrue();
            Files.deleteIfExists(listeningMap);
            CliRun r = run("record", "-F", "49", "-d", "3", "-o", dir.resolve("all.folded").toString());
            assertThat(r.code()).as(r.err()).isZero();
            assertThat(Files.readString(dir.resolve("refusing.out"))).doesNotContain("Full thread dump");
            assertThat(Files.readString(dir.resolve("listening.out"))).doesNotContain("Full thread dump");
            for (Path d : List.of(refusingDir, listeningDir)) {
                try (Stream<Path> s = Files.list(d)) {
                    assertThat(s.map(p -> p.getFileName().toString())).as(d + " after the recording")
                            .noneMatch(n -> n.startsWith(".attach_pid"));
                }
            }
            assertThat(Files.exists(Path.of("/tmp/.attach_pid" + refusing.pid()))).isFalse();
            assertThat(Files.exists(refusingMap)).as(refusingMap + " left behind").isFalse();
            assertThat(Files.exists(listeningMap)).as(listeningMap + " left behind").isFalse();
            assertThat(refusing.isAlive()).isTrue();
            assertThat(listening.isAlive()).isTrue();
        } finally {
            refusing.destroyForcibly();
            listening.destroyForcibly();
            refusing.waitFor(10, TimeUnit.SECONDS);
            listening.waitFor(10, TimeUnit.SECONDS);
            Files.deleteIfExists(listeningMap);
            Files.deleteIfExists(refusingMap);
        }
        assertThat(new String(Files.readAllBytes(dir.resolve("refusing.out")), StandardCharsets.UTF_8)).isNotEmpty();
    }
}
