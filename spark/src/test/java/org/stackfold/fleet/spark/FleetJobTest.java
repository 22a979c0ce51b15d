package org.stackfold.fleet.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.cli.Main;
import org.stackfold.fleet.query.FleetQuery;

/**
 * The Spark job in local mode against the DuckDB path ({@code stackfold query}) on the same table:
 * both must give exactly the same merged profiles and top-N tables.
 */
class FleetJobTest {
    @TempDir
    static Path dir;
    static Path table;
    static SparkSession spark;

    @BeforeAll
    static void storeAFleetAndStartSpark() throws IOException {
        table = dir.resolve("fleet");
        SplittableRandom r = new SplittableRandom(42);
        String[] services = {"api", "db", "web"};
        for (int i = 0; i < 24; i++) {
            Path in = dir.resolve("p" + i + ".folded");
            Files.writeString(in, randomFolded(r));
            String day = "2026-11-0" + (1 + i % 3);
            cli("store", in.toString(), "--to", table.toString(), "--time", day + "T0" + (i % 10) + ":00:00Z",
                    "--label", "service=" + services[i % 3], "--label", "host=h" + (i % 5),
                    "--label", "version=" + (i < 12 ? 1 : 2));
        }
        spark = SparkSession.builder().master("local[2]").appName("FleetJobTest")
                .config("spark.ui.enabled", "false")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.sql.shuffle.partitions", "4")
                .getOrCreate();
    }

    @AfterAll
    static void stopSpark() {
        if (spark != null) {
            spark.stop();
        }
    }

    private static String randomFolded(SplittableRandom r) {
        StringBuilder b = new StringBuilder();
        for (int i = 0, n = 3 + r.nextInt(15); i < n; i++) {
            for (int d = 0, depth = 1 + r.nextInt(5); d < depth; d++) {
                b.append(d == 0 ? "" : ";").append("fn").append(r.nextInt(6));
            }
            b.append(' ').append(1 + r.nextInt(500)).append('\n');
        }
        return b.toString();
    }

    private static String cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        assertThat(code).as(err.toString()).isZero();
        return out.toString();
    }

    /** The job's output file, normalised by 'stackfold fold' as the CLI renders it. */
    private String sparkFolded(String... options) throws IOException {
        Path out = Files.createTempFile(dir, "spark", ".folded");
        List<String> args = new ArrayList<>(List.of(table.toString(), "-o", out.toString()));
        args.addAll(List.of(options));
        FleetJob.run(spark, FleetJob.Args.parse(args.toArray(String[]::new)));
        return cli("fold", out.toString());
    }

    private String duckdbFolded(String... options) {
        List<String> args = new ArrayList<>(List.of("query", table.toString()));
        args.addAll(List.of(options));
        return cli(args.toArray(String[]::new));
    }

    @Test
    void mergedProfilesAgreeWithDuckDB() throws IOException {
        for (String where : List.of("true", "service = 'api'", "service = 'db' and time >= '2026-11-02'",
                "host in ('h1', 'h3') and date = '2026-11-03'", "labels = 'version=2'")) {
            String duck = duckdbFolded("--where", where);
            assertThat(duck).isNotEmpty();
            assertThat(sparkFolded("--where", where)).as(where).isEqualTo(duck);
        }
    }

    @Test
    void differentialProfilesAgreeWithDuckDB() throws IOException {
        String[] q = {"--where", "labels = 'version=1' and service = 'web'", "--diff-where", "labels = 'version=2' and service = 'web'"};
        String duck = duckdbFolded(q);
        assertThat(duck.lines().findFirst().orElseThrow()).matches(".* \\d+ \\d+");
        // Compared line by line, not through 'fold': reading diff-folded drops lines whose after count is 0.
        Path out = Files.createTempFile(dir, "spark", ".diff.folded");
        List<String> args = new ArrayList<>(List.of(table.toString(), "-o", out.toString()));
        args.addAll(List.of(q));
        FleetJob.run(spark, FleetJob.Args.parse(args.toArray(String[]::new)));
        assertThat(Files.readAllLines(out)).containsExactlyInAnyOrderElementsOf(duck.lines().toList());
    }

    @Test
    void topNAgreesWithDuckDB() throws IOException {
        try (FleetQuery q = FleetQuery.open(table)) {
            for (String by : List.of("function", "host", "service", "date", "stack")) {
                Path out = Files.createTempFile(dir, "top", ".tsv");
                FleetJob.run(spark, FleetJob.Args.parse(new String[] {table.toString(), "--top", "4", "--by", by,
                        "--where", "service <> 'db'", "-o", out.toString()}));
                StringBuilder duck = new StringBuilder();
                for (FleetQuery.Top t : q.top(4, by, "service <> 'db'")) {
                    duck.append(t.key()).append('\t').append(t.samples()).append('\n');
                }
                assertThat(Files.readString(out)).as(by).isEqualTo(duck.toString());
            }
        }
    }

    @Test
    void badArgumentsAreNamed() {
        assertThatThrownBy(() -> FleetJob.Args.parse(new String[] {"dir"})).hasMessageContaining("usage");
        assertThatThrownBy(() -> FleetJob.Args.parse(new String[] {"dir", "-o", "x", "--top", "3", "--by", "a;b"}))
                .hasMessageContaining("--by");
        assertThatThrownBy(() -> FleetJob.Args.parse(new String[] {"dir", "--where"})).hasMessageContaining("needs a value");
    }

    /**
     * A day of the agent's output as {@code record --every 10 --split service --store} writes it: an
     * interval of 10 s per service (its own {@code time}, labels {@code interval_ms}), added to the
     * table together, one store (one Parquet file per partition) every 10 minutes here (the agent's
     * default is a minute; fewer files keep the test short). Spark over the day equals DuckDB's query:
     * the day merged, a service's last 5 minutes, a diff of two hours, the top functions.
     */
    @Test
    void aDayOfAgentOutputAgreesWithDuckDB() throws IOException {
        Path agent = dir.resolve("agent");
        SplittableRandom r = new SplittableRandom(33);
        java.time.Instant day = java.time.Instant.parse("2026-12-01T00:00:00Z");
        String[] services = {"web", "postgres"};
        org.stackfold.format.ProfileFormat folded = org.stackfold.format.Formats.byName("folded");
        List<org.stackfold.fleet.store.StoredProfile> batch = new ArrayList<>();
        for (int i = 0; i < 8640; i++) {
            java.time.Instant t = day.plusSeconds(10L * i);
            for (String service : services) {
                String text = randomFolded(r);
                org.stackfold.model.Profile p = folded.read(org.stackfold.io.Input.ofBytes("i.folded",
                        text.getBytes(StandardCharsets.UTF_8)), org.stackfold.format.FormatOptions.none());
                batch.add(new org.stackfold.fleet.store.StoredProfile("agent", p, org.stackfold.fleet.store.Labels.of(
                        java.util.Map.of("service", service, "host", "h1", "interval_ms", "10000")), t));
            }
            if (batch.size() == 60 * services.length || i == 8639) {
                org.stackfold.fleet.store.FleetStore.store(agent, batch);
                batch.clear();
            }
        }
        Path saved = table;
        table = agent;
        try {
            for (String where : List.of("true", "service = 'web' and time >= '2026-12-01 23:55:00'",
                    "service = 'postgres' and time >= '2026-12-01 12:00:00' and time < '2026-12-01 13:00:00'")) {
                String duck = duckdbFolded("--where", where);
                assertThat(duck).as(where).isNotEmpty();
                assertThat(sparkFolded("--where", where)).as(where).isEqualTo(duck);
            }
            String[] diff = {"--where", "service = 'web' and time >= '2026-12-01 03:00:00' and time < '2026-12-01 04:00:00'",
                    "--diff-where", "service = 'web' and time >= '2026-12-01 04:00:00' and time < '2026-12-01 05:00:00'"};
            String duck = duckdbFolded(diff);
            Path out = Files.createTempFile(dir, "spark", ".diff.folded");
            List<String> args = new ArrayList<>(List.of(agent.toString(), "-o", out.toString()));
            args.addAll(List.of(diff));
            FleetJob.run(spark, FleetJob.Args.parse(args.toArray(String[]::new)));
            assertThat(Files.readAllLines(out)).containsExactlyInAnyOrderElementsOf(duck.lines().toList());
            try (FleetQuery q = FleetQuery.open(agent)) {
                Path top = Files.createTempFile(dir, "top", ".tsv");
                FleetJob.run(spark, FleetJob.Args.parse(new String[] {agent.toString(), "--top", "5", "--where",
                        "service = 'postgres'", "-o", top.toString()}));
                StringBuilder d = new StringBuilder();
                for (FleetQuery.Top t : q.top(5, "function", "service = 'postgres'")) {
                    d.append(t.key()).append('\t').append(t.samples()).append('\n');
                }
                assertThat(Files.readString(top)).isEqualTo(d.toString());
            }
        } finally {
            table = saved;
        }
    }
}
