package org.stackfold.record.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.fleet.query.FleetQuery;
import org.stackfold.fleet.store.FleetStore;
import org.stackfold.fleet.store.Labels;
import org.stackfold.fleet.store.StoredProfile;
import org.stackfold.model.Profile;
import org.stackfold.record.Privileges;

/**
 * The agent compacts the table files it stored on its own (--compact-every, here a few seconds):
 * run as its own process beside whatever runs on the machine, one profile per service an interval to
 * the table and to files; once it has said it compacted and a compacted file is in the table, it is
 * stopped, and the table holds, service by service, exactly the samples of the files (nothing lost or
 * doubled by compactions), with no compaction left unfinished. Waits for states, never for durations.
 */
class AgentCompactLiveTest {
    @TempDir
    Path dir;

    @Test
    void theAgentCompactsItsOwnFilesAndTheTableStillHoldsEverySampleOnce() throws Exception {
        String missing = Privileges.missing();
        assumeTrue(missing == null, missing);
        Path out = Files.createDirectories(dir.resolve("out"));
        Path table = dir.resolve("table");
        // Another host's files, two in a partition the agent writes to (its own 'java' process): never touched.
        for (int i = 0; i < 2; i++) {
            Profile p = new Profile();
            p.addStack(new int[] {p.frames().plain("elsewhere")}, 1, 5);
            FleetStore.store(table, List.of(new StoredProfile("record", p, new Labels("java", "elsewhere", ""),
                    java.time.Instant.now().minusSeconds(60))), "elsewhere");
        }
        Map<String, Long> foreign = sizes(table, "_elsewhere_");
        assertThat(foreign).hasSize(2);
        Path err = dir.resolve("agent.err");
        Process agent = new ProcessBuilder(AgentJvm.command("record",
                "--every", "2", "-F", "99", "--split", "service", "--health-every", "1",
                "-o", out.resolve("cpu-%s-%n.folded").toString(), "--store", table.toString(), "--store-every", "2",
                "--compact-every", "6", "--queue", dir.resolve("queue").toString()))
                .redirectErrorStream(true).redirectOutput(err.toFile()).start();
        try {
            // A compaction reported, its output in the table, and the intervals after it stored too.
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
            while (agent.isAlive() && System.nanoTime() < deadline && !(log(err).contains(": compacted ")
                    && compactedFiles(table) > 0 && healthLines(err) >= 8)) {
                Thread.sleep(200);
            }
            assertThat(agent.isAlive()).as(log(err)).isTrue();
            assertThat(log(err)).contains("stackfold agent: --store " + table + ": compacted ");
            agent.destroy(); // SIGTERM: the last intervals are stored
            assertThat(agent.waitFor(5, TimeUnit.MINUTES)).isTrue();
            assertThat(agent.exitValue()).as(log(err)).isZero();
        } finally {
            if (agent.isAlive()) {
                agent.destroyForcibly();
            }
        }
        String log = log(err);
        assertThat(compactedFiles(table)).as(log).isPositive();
        // Service by service, the table holds what the files hold.
        Map<String, Long> files = new TreeMap<>();
        try (Stream<Path> list = Files.list(out)) {
            for (Path f : list.toList()) {
                String name = f.getFileName().toString();
                String service = name.substring(name.indexOf('-', 4) + 1, name.length() - ".folded".length());
                for (String line : Files.readAllLines(f)) {
                    files.merge(service, Long.parseLong(line.substring(line.lastIndexOf(' ') + 1)), Long::sum);
                }
            }
        }
        Map<String, Long> stored = new TreeMap<>();
        try (FleetQuery q = FleetQuery.open(table)) {
            List<List<String>> rows = q.sql("SELECT service, sum(value) FROM samples WHERE host <> 'elsewhere' GROUP BY service");
            for (List<String> row : rows.subList(1, rows.size())) {
                stored.put(row.get(0), Long.parseLong(row.get(1)));
            }
        }
        assertThat(stored).as(log).isEqualTo(files);
        // Every file is this host's, a store's or a compaction's, and no compaction is left unfinished.
        try (Stream<Path> walk = Files.walk(table)) {
            assertThat(walk.filter(Files::isRegularFile).map(p -> table.relativize(p).toString())
                    .filter(p -> !p.startsWith(".")).toList())
                    .isNotEmpty().allMatch(p -> p.matches("date=[^/]+/service=[^/]+/(profiles|compacted)_[A-Za-z0-9.-]+_[0-9a-f-]+\\.parquet"));
        }
        assertThat(sizes(table, "_elsewhere_")).isEqualTo(foreign);
        try (Stream<Path> list = Files.list(table.resolve(".stackfold-compact"))) {
            assertThat(list.map(p -> p.getFileName().toString()).toList())
                    .allMatch(n -> n.endsWith(".done") || n.endsWith(".lock"));
        }
    }

    /** The files whose names hold {@code part}: size and modification time. */
    private static Map<String, Long> sizes(Path table, String part) throws IOException {
        Map<String, Long> out = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(table)) {
            for (Path p : walk.filter(p -> p.getFileName().toString().contains(part)).toList()) {
                out.put(table.relativize(p).toString(), Files.size(p) * 31 + Files.getLastModifiedTime(p).toMillis());
            }
        }
        return out;
    }

    private static long compactedFiles(Path table) throws IOException {
        if (!Files.isDirectory(table)) {
            return 0;
        }
        try (Stream<Path> walk = Files.walk(table)) {
            return walk.filter(p -> p.getFileName().toString().startsWith("compacted_")).count();
        }
    }

    private static String log(Path err) throws IOException {
        return Files.exists(err) ? Files.readString(err) : "";
    }

    private static long healthLines(Path err) throws IOException {
        return log(err).lines().filter(l -> l.startsWith("stackfold agent: ") && l.contains(" intervals, ")).count();
    }
}
