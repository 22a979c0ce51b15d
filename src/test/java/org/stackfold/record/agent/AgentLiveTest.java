package org.stackfold.record.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.record.Privileges;

/**
 * The agent for about 20 s with 2 s intervals beside two CPU-bound workloads, as its own process
 * (stopped by SIGTERM, as systemd stops it): every sample the BPF program took (its run count, with
 * idle samples kept so that each run is counted) is in exactly one interval's file; a push target
 * that refuses connections and a fleet table it cannot write are survived, with the on-disk queue
 * within its limit. Waits for states (intervals reported), never for durations.
 */
class AgentLiveTest {
    @TempDir
    Path dir;

    @Test
    void intervalsAddUpAndFaultsAreSurvived() throws Exception {
        String missing = Privileges.missing();
        assumeTrue(missing == null, missing);
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/gcc")), "gcc is not installed");
        Path source = dir.resolve("workload.c");
        try (InputStream in = org.stackfold.record.Privileges.class.getResourceAsStream("workload.c")) {
            assertThat(in).as("workload.c").isNotNull();
            Files.write(source, in.readAllBytes());
        }
        Path workload = dir.resolve("sfworkload");
        Process gcc = new ProcessBuilder("gcc", "-O2", "-o", workload.toString(), source.toString()).inheritIO().start();
        assertThat(gcc.waitFor()).isZero();

        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort(); // closed again before the agent starts: connections are refused
        }
        Path out = Files.createDirectories(dir.resolve("out"));
        Path queue = dir.resolve("queue");
        Path table = readOnlyTable();
        // Above one interval of a busy machine (a 2 s interval of this shared 2-core VM: about 200 KB, so 64 KiB
        // dropped every interval before the table's batch was ever tried, and its fault was never reported).
        long queueLimit = 2 * 1024 * 1024;

        List<Process> workloads = new ArrayList<>();
        Process agent = null;
        try {
            for (int i = 0; i < 2; i++) {
                workloads.add(new ProcessBuilder(workload.toString(), "1000000").redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start());
            }
            Path err = dir.resolve("agent.err");
            agent = new ProcessBuilder(AgentJvm.command("record",
                    "--every", "2", "-F", "99", "-I", "--bpf-stats", "--health-every", "1",
                    "-o", out.resolve("cpu-%s.folded").toString(), "--store", table.toString(), "--store-every", "4",
                    "--push", "http://127.0.0.1:" + closedPort, "--queue", queue.toString(),
                    "--queue-max-size", Long.toString(queueLimit)))
                    .redirectErrorStream(true).redirectOutput(err.toFile()).start();
            // About 20 s: ten intervals reported (a loaded machine only makes this take longer).
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
            while (healthLines(err) < 10 && agent.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            assertThat(agent.isAlive()).as(Files.readString(err)).isTrue();
            assertThat(healthLines(err)).as(Files.readString(err)).isGreaterThanOrEqualTo(10);
            agent.destroy(); // SIGTERM: the last interval is flushed
            assertThat(agent.waitFor(2, TimeUnit.MINUTES)).isTrue();
            String log = Files.readString(err);
            assertThat(agent.exitValue()).as(log).isZero();

            Matcher end = Pattern.compile("stopped after ([\\d,]+) intervals: ([\\d,]+) samples, ([\\d,]+) lost.*"
                    + "BPF program runs ([\\d,]+)").matcher(log);
            assertThat(end.find()).as(log).isTrue();
            long intervals = number(end.group(1)), samples = number(end.group(2)), lost = number(end.group(3));
            long runs = number(end.group(4));
            long inFiles = 0;
            int files = 0;
            try (Stream<Path> list = Files.list(out)) {
                for (Path f : list.toList()) {
                    files++;
                    for (String line : Files.readAllLines(f)) {
                        inFiles += Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
                    }
                }
            }
            assertThat(intervals).isGreaterThanOrEqualTo(10);
            assertThat(files).as("a file per interval with samples").isEqualTo((int) intervals);
            // Nothing lost or counted twice between intervals: the files hold every sample the program took.
            assertThat(inFiles).as(log).isEqualTo(samples);
            assertThat(samples + lost).as(log).isEqualTo(runs);
            // The faults were reported, and the queue stayed within its limit.
            assertThat(log).contains("--push http://127.0.0.1:" + closedPort).contains("--store " + table);
            assertThat(queueBytes(queue)).isLessThanOrEqualTo(queueLimit);
            Matcher rss = Pattern.compile("RSS ([\\d,]+) MiB").matcher(log);
            long maxRss = 0;
            while (rss.find()) {
                maxRss = Math.max(maxRss, number(rss.group(1)));
            }
            assertThat(maxRss).as("resident memory, MiB (heap limited to 256 MiB)").isLessThan(1024);
        } finally {
            if (agent != null && agent.isAlive()) {
                agent.destroyForcibly();
            }
            for (Process w : workloads) {
                w.destroyForcibly();
                w.waitFor();
            }
            unmount(table);
        }
    }

    private static long number(String s) {
        return Long.parseLong(s.replace(",", ""));
    }

    private static long healthLines(Path err) throws IOException {
        if (!Files.exists(err)) {
            return 0;
        }
        return Files.readAllLines(err).stream().filter(l -> l.startsWith("stackfold agent: ") && l.contains(" intervals, "))
                .count();
    }

    private static long queueBytes(Path queue) throws IOException {
        if (!Files.isDirectory(queue)) {
            return 0;
        }
        try (Stream<Path> list = Files.list(queue)) {
            long n = 0;
            for (Path f : list.toList()) {
                n += Files.size(f);
            }
            return n;
        }
    }

    private Path mounted;

    /**
     * A table directory that cannot be written, even by root: a read-only bind mount of an empty
     * directory; where mounts are not allowed, a directory under /proc (which refuses new entries).
     */
    private Path readOnlyTable() throws IOException, InterruptedException {
        Path t = Files.createDirectories(dir.resolve("table"));
        if (run("mount", "--bind", t.toString(), t.toString())) {
            if (run("mount", "-o", "remount,bind,ro", t.toString())) {
                mounted = t;
                return t;
            }
            run("umount", t.toString());
        }
        return Path.of("/proc/self/stackfold-table");
    }

    private void unmount(Path table) throws IOException, InterruptedException {
        if (mounted != null) {
            run("umount", mounted.toString());
        }
    }

    private static boolean run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        return p.waitFor() == 0;
    }
}
