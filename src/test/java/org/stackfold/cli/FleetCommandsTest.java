package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stackfold.cli.CliRun.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** store and query end to end through {@link Main#run}: what a user types, checked against 'fold'. */
class FleetCommandsTest {
    @TempDir
    Path dir;

    private Path file(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    /** A random folded profile over a small vocabulary, so that profiles share stacks as a fleet's do. */
    private Path randomProfile(String name, long seed) throws IOException {
        SplittableRandom r = new SplittableRandom(seed);
        StringBuilder b = new StringBuilder();
        for (int i = 0, n = 5 + r.nextInt(20); i < n; i++) {
            int depth = 1 + r.nextInt(6);
            for (int d = 0; d < depth; d++) {
                b.append(d == 0 ? "" : ";").append("f").append(r.nextInt(8)).append(d % 2 == 0 ? "" : " [k]");
            }
            b.append(' ').append(1 + r.nextInt(1000)).append('\n');
        }
        return file(name, b.toString());
    }

    private String fold(Path... inputs) {
        String[] args = new String[inputs.length + 1];
        args[0] = "fold";
        for (int i = 0; i < inputs.length; i++) {
            args[i + 1] = inputs[i].toString();
        }
        CliRun r = run(args);
        assertThat(r.code()).as(r.err()).isZero();
        return r.out();
    }

    private void store(Path table, Path in, String time, String... labels) {
        String[] args = new String[5 + 2 * labels.length];
        args[0] = "store";
        args[1] = in.toString();
        args[2] = "--to=" + table;
        args[3] = "--time";
        args[4] = time;
        for (int i = 0; i < labels.length; i++) {
            args[5 + 2 * i] = "--label";
            args[6 + 2 * i] = labels[i];
        }
        CliRun r = run(args);
        assertThat(r.code()).as(r.err()).isZero();
    }

    @Test
    void mergedQueriesEqualFoldOfTheSameInputs() throws IOException {
        Path table = dir.resolve("fleet");
        Path a = randomProfile("a.folded", 1);
        Path b = randomProfile("b.folded", 2);
        Path c = randomProfile("c.folded", 3);
        store(table, a, "2026-11-01T10:00:00Z", "service=api", "host=h1");
        store(table, b, "2026-11-02T10:00:00Z", "service=api", "host=h2", "version=2");
        store(table, c, "2026-11-02T11:00:00Z", "service=db", "host=h1");

        assertThat(run("query", table.toString()).out()).isEqualTo(fold(a, b, c));
        assertThat(run("query", table.toString(), "--where", "service='api'").out()).isEqualTo(fold(a, b));
        assertThat(run("query", table.toString(), "--where", "service='api' and time >= '2026-11-02'").out())
                .isEqualTo(fold(b));
        assertThat(run("query", table.toString(), "--where", "host = 'h1'").out()).isEqualTo(fold(a, c));
        assertThat(run("query", table.toString(), "--where", "labels like '%version=2%'").out()).isEqualTo(fold(b));
    }

    @Test
    void partitionsAreHiveStyleByDateAndService() throws IOException {
        Path table = dir.resolve("fleet");
        store(table, file("a.folded", "main;f 3\n"), "2026-11-01T23:59:59Z", "service=api");
        store(table, file("b.folded", "main;g 4\n"), "1793836800", "service=web");
        try (var files = Files.walk(table)) {
            assertThat(files.filter(Files::isRegularFile).map(p -> table.relativize(p.getParent()).toString()))
                    .containsExactlyInAnyOrder("date=2026-11-01/service=api", "date=2026-11-05/service=web");
        }
    }

    @Test
    void diffWhereGivesBeforeAndAfterColumns() throws IOException {
        Path table = dir.resolve("fleet");
        store(table, file("old.folded", "main;f 3\nmain;g 1\n"), "2026-11-01", "service=api", "version=1");
        store(table, file("new.folded", "main;f 1\nmain;h 5\n"), "2026-11-02", "service=api", "version=2");
        CliRun r = run("query", table.toString(), "--where", "labels = 'version=1'", "--diff-where", "labels = 'version=2'");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("main;f 3 1\nmain;g 1 0\nmain;h 0 5\n");
    }

    @Test
    void topByHostAndByFunction() throws IOException {
        Path table = dir.resolve("fleet");
        store(table, file("a.folded", "main;f 3\nmain;g 1\n"), "2026-11-01", "service=api", "host=h1");
        store(table, file("b.folded", "main;f 5\nmain;f;g 2\n"), "2026-11-01", "service=api", "host=h2");
        CliRun byHost = run("query", table.toString(), "--top", "1", "--by", "host");
        assertThat(byHost.out()).isEqualTo("""
                     SAMPLES     PCT  HOST
                           7  63.64%  h2
                11 samples
                """);
        CliRun byFunction = run("query", table.toString(), "--top", "5");
        assertThat(byFunction.out()).isEqualTo("""
                     SAMPLES     PCT  FUNCTION
                           8  72.73%  f
                           3  27.27%  g
                11 samples
                """);
    }

    @Test
    void sqlPrintsTabSeparatedRows() throws IOException {
        Path table = dir.resolve("fleet");
        store(table, file("a.folded", "main;f 3\nmain;g 1\n"), "2026-11-01", "service=api", "host=h1");
        CliRun r = run("query", table.toString(), "--sql", "SELECT service, host, sum(value) AS n FROM samples GROUP BY ALL");
        assertThat(r.out()).isEqualTo("service\thost\tn\napi\th1\t4\n");
    }

    @Test
    void aPlainCopyCompactsManyStoresIntoOneFileAPartition() throws IOException {
        Path table = dir.resolve("fleet");
        Path a = randomProfile("a.folded", 6);
        Path b = randomProfile("b.folded", 7);
        store(table, a, "2026-11-01T01:00:00Z", "service=api", "host=h1");
        store(table, b, "2026-11-01T02:00:00Z", "service=api", "host=h2");
        Path compacted = dir.resolve("compacted");
        CliRun copy = run("query", table.toString(), "--sql", "COPY (SELECT * FROM samples ORDER BY service, date, stack) TO '"
                + compacted + "' (FORMAT parquet, PARTITION_BY (date, service), COMPRESSION zstd)");
        assertThat(copy.code()).as(copy.err()).isZero();
        assertThat(copy.out()).startsWith("rows\n");
        try (var files = Files.walk(compacted)) {
            assertThat(files.filter(Files::isRegularFile).count()).isEqualTo(1);
        }
        assertThat(run("query", compacted.toString()).out()).isEqualTo(fold(a, b));
        assertThat(run("query", compacted.toString(), "--where", "host = 'h2'").out()).isEqualTo(fold(b));
    }

    @Test
    void queryCompactRewritesOneAgentsFilesAndAnswersAsBefore() throws IOException {
        Path table = dir.resolve("fleet");
        org.stackfold.model.Profile p = new org.stackfold.model.Profile();
        p.addStack(new int[] {p.frames().plain("main"), p.frames().plain("f")}, 2, 3);
        for (String host : new String[] {"h1", "h1", "h1", "h2", "h2"}) {
            org.stackfold.fleet.store.FleetStore.store(table, java.util.List.of(new org.stackfold.fleet.store.StoredProfile("record", p,
                    new org.stackfold.fleet.store.Labels("api", host, ""), java.time.Instant.parse("2026-11-01T01:00:00Z"))), host);
        }
        store(table, randomProfile("a.folded", 6), "2026-11-01T02:00:00Z", "service=api", "host=h3");
        String before = run("query", table.toString()).out();
        CliRun r = run("query", table.toString(), "--compact", "h1");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("compacted 3 files of 1 partitions into 1 (");
        assertThat(run("query", table.toString()).out()).isEqualTo(before);
        try (var files = Files.list(table.resolve("date=2026-11-01/service=api"))) {
            assertThat(files.map(f -> f.getFileName().toString().replaceAll("_[0-9a-f-]+\\.parquet$", "")).sorted().toList())
                    .containsExactly("compacted_h1", "profiles", "profiles_h2", "profiles_h2");
        }
        assertThat(run("query", table.toString(), "--compact", "h1", "--top", "3").code()).isEqualTo(2);
    }

    @Test
    void svgOutputIsAFlameGraph() throws IOException {
        Path table = dir.resolve("fleet");
        store(table, file("a.folded", "main;<f> 3\n"), "2026-11-01", "service=api");
        Path svg = dir.resolve("out.svg");
        CliRun r = run("query", table.toString(), "-o", svg.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(Files.readString(svg)).startsWith("<?xml").contains("&lt;f&gt;").doesNotContain("<f>");
    }

    @Test
    void mistakesAreOneLine() throws IOException {
        Path table = dir.resolve("fleet");
        Path a = file("a.folded", "main;f 3\n");
        CliRun noService = run("store", a.toString(), "--to", table.toString(), "--label", "host=h1");
        assertThat(noService.code()).isEqualTo(2);
        assertThat(noService.err()).contains("service label is required").hasLineCount(1);
        CliRun badValue = run("store", a.toString(), "--to", table.toString(), "--label", "service=../x");
        assertThat(badValue.code()).isEqualTo(2);
        CliRun badTime = run("store", a.toString(), "--to", table.toString(), "--label", "service=a", "--time", "yesterday");
        assertThat(badTime.code()).isEqualTo(2);
        assertThat(badTime.err()).contains("--time 'yesterday'");

        CliRun noTable = run("query", dir.resolve("none").toString());
        assertThat(noTable.code()).isEqualTo(1);
        assertThat(noTable.err()).contains("not a table directory").hasLineCount(1);

        store(table, a, "2026-11-01", "service=api");
        CliRun badWhere = run("query", table.toString(), "--where", "no_such_column = 1");
        assertThat(badWhere.code()).isEqualTo(1);
        assertThat(badWhere.err()).startsWith("stackfold: " + table + ": query failed:").hasLineCount(1);
        CliRun nothing = run("query", table.toString(), "--where", "service = 'none'");
        assertThat(nothing.err()).contains("no samples match");
        CliRun badBy = run("query", table.toString(), "--top", "3", "--by", "host; drop");
        assertThat(badBy.code()).isEqualTo(2);
    }

    @Test
    void manifestStoresManyProfilesWithTheirOwnLabels() throws IOException {
        Path table = dir.resolve("fleet");
        Path a = randomProfile("a.folded", 4);
        Path b = randomProfile("b.folded", 5);
        Path m = file("manifest.txt", """
                # time path labels
                2026-11-01T01:00:00Z a.folded host=h1
                2026-11-03T01:00:00Z b.folded host=h2 service=db
                """);
        CliRun r = run("store", "--manifest", m.toString(), "--to", table.toString(), "--label", "service=api");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(run("query", table.toString(), "--where", "host='h1' and service='api'").out()).isEqualTo(fold(a));
        assertThat(run("query", table.toString(), "--where", "date = '2026-11-03' and service='db'").out()).isEqualTo(fold(b));
    }
}
