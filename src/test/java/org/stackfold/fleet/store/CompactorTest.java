package org.stackfold.fleet.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.fleet.query.FleetQuery;
import org.stackfold.format.folded.FoldedWriter;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/**
 * The agent's compaction of its own files in a fleet table: a compacted table answers every query as
 * before; a run stopped at any step (as by kill -9) leaves a table that answers the same, which the
 * next run finishes; a reader during a run sees each sample once; other writers' files are never
 * touched.
 */
class CompactorTest {
    @TempDir
    Path dir;

    /** Thrown by a hook: the run ends there with no clean-up, as a killed process's would. */
    private static final class Crash extends RuntimeException {
        Crash(Compactor.Step step, int n) {
            super("crash after " + step + " #" + n);
        }
    }

    private static final String[] SERVICES = {"api", "db", "web"};
    private static final Instant DAY1 = Instant.parse("2026-11-01T10:00:00Z");
    private static final Instant DAY2 = Instant.parse("2026-11-02T10:00:00Z");

    private static Profile profile(SplittableRandom r, String service) {
        Profile p = new Profile();
        FrameTable f = p.frames();
        for (int i = 0, n = 3 + r.nextInt(8); i < n; i++) {
            int depth = 1 + r.nextInt(5);
            int[] stack = new int[depth];
            for (int d = 0; d < depth; d++) {
                stack[d] = f.plain(d == 0 ? service + "_main" : "f" + r.nextInt(6) + (d % 2 == 0 ? "" : " [k]"));
            }
            p.addStack(stack, depth, 1 + r.nextInt(100));
        }
        return p;
    }

    /**
     * A table as agents make it: host h1 (the writer compacted) stores 8 batches of intervals of three
     * services over two days, host h2 stores 3 batches, and an older agent (files without a writer) 2.
     */
    private Path table(String name) throws IOException {
        Path t = dir.resolve(name);
        SplittableRandom r = new SplittableRandom(42);
        storeBatches(t, r, "h1", 8);
        storeBatches(t, r, "h2", 3);
        storeBatches(t, r, null, 2);
        return t;
    }

    private static void storeBatches(Path t, SplittableRandom r, String host, int batches) throws IOException {
        for (int b = 0; b < batches; b++) {
            List<StoredProfile> ps = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                Instant time = (b % 2 == 0 ? DAY1 : DAY2).plusSeconds(600L * b + 10L * i);
                for (String service : SERVICES) {
                    Labels l = new Labels(service, host == null ? "old" : host, "interval_ms=10000");
                    ps.add(new StoredProfile("record", profile(r, service), l, time));
                }
            }
            FleetStore.store(t, ps, host == null ? null : Compactor.writerId(host));
        }
    }

    /** Every answer the table gives, as text: merged, time-filtered, by label, a diff, top functions and hosts. */
    private static String answers(Path t) throws IOException {
        try (FleetQuery q = FleetQuery.open(t)) {
            StringBuilder b = new StringBuilder();
            b.append("all\n").append(folded(q.merge(null)));
            b.append("api last hour of day 2\n").append(folded(q.merge(
                    "service = 'api' and time >= '2026-11-02T10:30:00' and date = '2026-11-02'")));
            b.append("h1\n").append(folded(q.merge(FleetQuery.labelCondition(Map.of("host", "h1")))));
            b.append("diff\n").append(folded(q.diff("date = '2026-11-01'", "date = '2026-11-02'")));
            b.append("top\n").append(q.top(5, "function", null)).append('\n').append(q.top(5, "host", null)).append('\n');
            b.append("samples ").append(q.samples(null)).append('\n');
            b.append(q.sql("SELECT count(*), count(DISTINCT (time, service, host)) FROM samples")).append('\n');
            return b.toString();
        }
    }

    private static String folded(Profile p) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new FoldedWriter(p.tree().isDifferential()).write(p, out);
        return out.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Relative path to size and modification time of every regular file not hidden: what a compaction may change. */
    private static Map<String, String> files(Path t) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(t)) {
            for (Path p : walk.filter(Files::isRegularFile).toList()) {
                String rel = t.relativize(p).toString();
                if (!rel.startsWith(".")) {
                    out.put(rel, Files.size(p) + "@" + Files.getLastModifiedTime(p).toMillis());
                }
            }
        }
        return out;
    }

    private static Map<String, String> without(Map<String, String> files, String writer) {
        Map<String, String> out = new TreeMap<>(files);
        out.keySet().removeIf(f -> {
            String name = Path.of(f).getFileName().toString();
            return Compactor.isStoreFile(name, writer) || Compactor.isCompactedFile(name, writer);
        });
        return out;
    }

    private static Path copy(Path from, Path to) throws IOException {
        try (Stream<Path> walk = Files.walk(from)) {
            for (Path p : walk.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        return to;
    }

    private static Instant later() {
        return Instant.now().plusSeconds(1);
    }

    @Test
    void writerIdsAreFitForAFileNameAndDistinct() {
        assertThat(Compactor.writerId("build-7.example")).isEqualTo("build-7.example");
        assertThat(Compactor.writerId("a_b")).startsWith("a-b-").isNotEqualTo(Compactor.writerId("a:b"));
        assertThat(Compactor.writerId("")).isEqualTo("host");
        assertThat(Compactor.writerId("x".repeat(100))).hasSize(64 + 9);
        assertThat(Compactor.isStoreFile("profiles_h1_0b1c-9f.parquet", "h1")).isTrue();
        assertThat(Compactor.isStoreFile("profiles_h1_0b1c-9f.parquet", "h")).isFalse();
        assertThat(Compactor.isStoreFile("profiles_h1-x_0b1c.parquet", "h1")).isFalse();
        assertThat(Compactor.isStoreFile("profiles_0b1c-9f.parquet", "h1")).isFalse();
        assertThat(Compactor.isCompactedFile("compacted_h1_0b1c.parquet", "h1")).isTrue();
    }

    @Test
    void aCompactedTableAnswersAsBeforeWithOneFileAPartitionAndOtherWritersUntouched() throws IOException {
        Path t = table("fleet");
        String before = answers(t);
        Map<String, String> filesBefore = files(t);
        assertThat(filesBefore.keySet()).anyMatch(f -> f.contains("/profiles_h1_")).anyMatch(f -> f.contains("/profiles_h2_"));

        Compactor.Result r = Compactor.compact(t, "h1", later(), () -> false);
        assertThat(r.partitions()).isEqualTo(6);
        assertThat(r.inputs()).isEqualTo(6 * 4); // each partition: 4 of the 8 batches (days alternate)
        assertThat(answers(t)).isEqualTo(before);
        Map<String, String> after = files(t);
        assertThat(without(after, "h1")).as("h2's and the writer-less files, byte for byte").isEqualTo(without(filesBefore, "h1"));
        for (String service : SERVICES) {
            for (String date : List.of("2026-11-01", "2026-11-02")) {
                assertThat(after.keySet()).filteredOn(f -> f.startsWith("date=" + date + "/service=" + service + "/")
                        && f.contains("_h1_")).singleElement().asString().contains("/compacted_h1_");
            }
        }
        assertThat(Files.list(t.resolve(TableFiles.COMPACT_DIR)).map(p -> p.getFileName().toString()))
                .allMatch(n -> n.endsWith(".done") || n.endsWith(".lock"));

        // Later stores are compacted with the earlier output (the days are closed); nothing left to do then.
        storeBatches(t, new SplittableRandom(7), "h1", 2);
        String more = answers(t);
        assertThat(Compactor.compact(t, "h1", later(), () -> false).inputs()).isEqualTo(12);
        assertThat(answers(t)).isEqualTo(more);
        assertThat(files(t).keySet()).filteredOn(f -> f.contains("_h1_")).hasSize(6);
        assertThat(Compactor.compact(t, "h1", later(), () -> false).inputs()).isZero();
    }

    @Test
    void aBusyPartitionGetsSeveralOutputsOfBoundedInput() throws IOException {
        Path t = table("fleet");
        String before = answers(t);
        long largest = 0;
        for (Map.Entry<String, String> f : files(t).entrySet()) {
            if (f.getKey().contains("/profiles_h1_")) {
                largest = Math.max(largest, Long.parseLong(f.getValue().substring(0, f.getValue().indexOf('@'))));
            }
        }
        long was = Compactor.maxInputBytes;
        Compactor.maxInputBytes = 2 * largest; // two files a unit: 4 files a partition make 2 outputs
        try {
            Compactor.Result r = Compactor.compact(t, "h1", later(), () -> false);
            assertThat(r.partitions()).isEqualTo(6);
            assertThat(r.outputs()).isEqualTo(12);
            assertThat(r.inputs()).isEqualTo(24);
        } finally {
            Compactor.maxInputBytes = was;
        }
        assertThat(answers(t)).isEqualTo(before);
        assertThat(files(t).keySet()).filteredOn(f -> f.contains("_h1_")).hasSize(12).allMatch(f -> f.contains("/compacted_h1_"));
    }

    @Test
    void todaysCompactedFilesWaitForTheDayToClose() throws IOException {
        Path t = dir.resolve("fleet");
        Instant now = Instant.now();
        SplittableRandom r = new SplittableRandom(3);
        for (int round = 0; round < 2; round++) {
            for (int b = 0; b < 2; b++) {
                FleetStore.store(t, List.of(new StoredProfile("record", profile(r, "api"), new Labels("api", "h1", ""), now)), "h1");
            }
            Compactor.compact(t, "h1", later(), () -> false);
        }
        String date = LocalDate.ofInstant(now, ZoneOffset.UTC).toString();
        // Two rounds, two compacted files: the day is open, so an earlier hour's output is not rewritten each hour.
        assertThat(files(t).keySet()).filteredOn(f -> f.startsWith("date=" + date)).hasSize(2)
                .allMatch(f -> f.contains("/compacted_h1_"));
        // Files written at or after 'before' are not old enough.
        FleetStore.store(t, List.of(new StoredProfile("record", profile(r, "api"), new Labels("api", "h1", ""), now)), "h1");
        FleetStore.store(t, List.of(new StoredProfile("record", profile(r, "api"), new Labels("api", "h1", ""), now)), "h1");
        assertThat(Compactor.compact(t, "h1", Instant.now().minusSeconds(3600), () -> false).inputs()).isZero();
    }

    @Test
    void aRunStoppedAtAnyStepLeavesATableThatAnswersTheSameAndTheNextRunFinishesIt() throws IOException {
        Path template = table("template");
        String expected = answers(template);
        Map<String, String> others = without(files(template), "h1");
        // Every step, and the first, second and last of the repeated ones (6 outputs, 24 inputs).
        Map<Compactor.Step, int[]> crashes = new EnumMap<>(Compactor.Step.class);
        crashes.put(Compactor.Step.STAGED, new int[] {1});
        crashes.put(Compactor.Step.PREPARED, new int[] {1});
        crashes.put(Compactor.Step.OUTPUT_RENAMED, new int[] {1, 2, 6});
        crashes.put(Compactor.Step.COMMITTED, new int[] {1});
        crashes.put(Compactor.Step.INPUT_DELETED, new int[] {1, 2, 24});
        crashes.put(Compactor.Step.DONE, new int[] {1});
        int cases = 0;
        for (Map.Entry<Compactor.Step, int[]> c : crashes.entrySet()) {
            for (int n : c.getValue()) {
                Path t = copy(template, dir.resolve("crash-" + c.getKey() + "-" + n));
                int[] seen = {0};
                Compactor.Hook crash = step -> {
                    if (step == c.getKey() && ++seen[0] == n) {
                        throw new Crash(step, n);
                    }
                };
                assertThatThrownBy(() -> Compactor.compact(t, "h1", later(), () -> false, crash)).isInstanceOf(Crash.class);
                assertThat(answers(t)).as("after a crash after %s #%d", c.getKey(), n).isEqualTo(expected);
                // The next run (the agent started again) recovers and compacts.
                Compactor.compact(t, "h1", later(), () -> false);
                assertThat(answers(t)).as("recovered from a crash after %s #%d", c.getKey(), n).isEqualTo(expected);
                Map<String, String> after = files(t);
                assertThat(after.keySet()).filteredOn(f -> f.contains("_h1_")).hasSize(6).allMatch(f -> f.contains("/compacted_h1_"));
                assertThat(without(after, "h1")).isEqualTo(others);
                assertThat(Files.list(t.resolve(TableFiles.COMPACT_DIR)).map(p -> p.getFileName().toString()))
                        .as("no staging, temporary or unfinished journal left").allMatch(f -> f.endsWith(".done") || f.endsWith(".lock"));
                cases++;
            }
        }
        assertThat(cases).isEqualTo(10);
    }

    @Test
    void aReaderAtEveryStepOfARunSeesEachSampleOnce() throws IOException {
        Path t = table("fleet");
        String expected = answers(t);
        List<String> seen = new ArrayList<>();
        Compactor.compact(t, "h1", later(), () -> false, step -> {
            seen.add(step.name());
            assertThat(answers(t)).as("a reader after %s", step).isEqualTo(expected);
        });
        assertThat(seen).contains("STAGED", "PREPARED", "OUTPUT_RENAMED", "COMMITTED", "INPUT_DELETED", "DONE");
        assertThat(answers(t)).isEqualTo(expected);
    }

    @Test
    void aQueryOpenedBeforeARunAnswersAfterItAndAListingRacedByARunIsMadeAgain() throws IOException {
        Path t = table("fleet");
        String expected = answers(t);
        try (FleetQuery q = FleetQuery.open(t)) {
            String all = folded(q.merge(null));
            Compactor.compact(t, "h1", later(), () -> false); // the files the query's view names are gone
            assertThat(folded(q.merge(null))).isEqualTo(all);
            assertThat(expected).startsWith("all\n" + all);
        }
        // A whole run between the first look at the journals and the listing of the files.
        storeBatches(t, new SplittableRandom(9), "h1", 2);
        String more = answers(t);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        TableFiles.beforeWalk = () -> {
            TableFiles.beforeWalk = null;
            try {
                Compactor.compact(t, "h1", later(), () -> false);
            } catch (IOException e) {
                failed.set(e);
            }
        };
        try {
            assertThat(answers(t)).isEqualTo(more);
        } finally {
            TableFiles.beforeWalk = null;
        }
        assertThat(failed.get()).isNull();
        assertThat(files(t).keySet()).filteredOn(f -> f.contains("_h1_")).hasSize(6);
    }

    @Test
    void readersInAnotherThreadDuringRunsAlwaysSeeEverySampleOnce() throws Exception {
        Path t = table("fleet");
        String expected;
        try (FleetQuery q = FleetQuery.open(t)) {
            expected = folded(q.merge(null));
        }
        AtomicReference<Throwable> failed = new AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
        Thread reader = Thread.ofPlatform().start(() -> {
            while (!stop.get() && failed.get() == null) {
                try (FleetQuery q = FleetQuery.open(t)) {
                    String got = folded(q.merge(null));
                    if (!got.equals(expected)) {
                        failed.set(new AssertionError("a reader saw\n" + got + "instead of\n" + expected));
                    }
                    reads.incrementAndGet();
                } catch (Throwable e) {
                    failed.set(e);
                }
            }
        });
        try {
            // A run that waits at each step until the reader has read the table once more.
            Compactor.compact(t, "h1", later(), () -> false, step -> {
                int at = reads.get();
                while (reads.get() < at + 1 && failed.get() == null && reader.isAlive()) {
                    Thread.onSpinWait();
                }
            });
        } finally {
            stop.set(true);
            reader.join();
        }
        assertThat(failed.get()).isNull();
    }

    @Test
    void anotherRunOfTheSameWriterHoldingTheLockIsLeftAlone() throws IOException {
        Path t = table("fleet");
        Map<String, String> before = files(t);
        Compactor.Result[] inner = new Compactor.Result[1];
        Compactor.compact(t, "h1", later(), () -> false, step -> {
            if (step == Compactor.Step.STAGED && inner[0] == null) {
                inner[0] = Compactor.compact(t, "h1", later(), () -> false);
            }
        });
        assertThat(inner[0].locked()).isTrue();
        assertThat(files(t)).isNotEqualTo(before);
        assertThat(Compactor.compact(t, "h2", later(), () -> false).inputs()).isEqualTo(6);
    }
}
