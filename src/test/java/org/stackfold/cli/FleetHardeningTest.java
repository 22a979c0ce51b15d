package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stackfold.cli.CliRun.run;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.fleet.store.Sql;

/**
 * The fleet table as a database (issue 28, items 5-9): atomic files, literal paths, one --where
 * condition, exact labels, escaped output, table errors as one line, a bounded manifest.
 */
class FleetHardeningTest {
    @TempDir
    Path dir;

    private Path file(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    private void store(Path table, Path in, String... labels) {
        String[] args = new String[3 + 2 * labels.length];
        args[0] = "store";
        args[1] = in.toString();
        args[2] = "--to=" + table;
        for (int i = 0; i < labels.length; i++) {
            args[3 + 2 * i] = "--label";
            args[4 + 2 * i] = labels[i];
        }
        CliRun r = run(args);
        assertThat(r.code()).as(r.err()).isZero();
    }

    private static void oneLine(CliRun r, int code) {
        assertThat(r.code()).as(r.err()).isEqualTo(code);
        assertThat(r.err().strip().lines().count()).as(r.err()).isEqualTo(1);
        assertThat(r.err()).doesNotContain("internal error").doesNotContain("\tat ");
    }

    @Test
    void partialFilesAndStagingDirectoriesAreNeverRead() throws IOException {
        Path table = dir.resolve("fleet");
        store(table, file("p.folded", "a;b 5\na;c 3\n"), "service=api");
        try (Stream<Path> s = Files.walk(table)) {
            assertThat(s.map(p -> table.relativize(p).toString())).as("no staging directory left")
                    .noneMatch(n -> n.contains(".stackfold-staging"));
        }
        // What Ctrl-C during an older store left, and another store's staging directory while it writes.
        Path partition = Files.list(Files.list(table).findFirst().orElseThrow()).findFirst().orElseThrow();
        Files.createFile(partition.resolve("profiles_interrupted.parquet"));
        Path staging = Files.createDirectories(table.resolve(".stackfold-staging-other/date=2026-01-01/service=api"));
        Files.write(staging.resolve("profiles_half.parquet"), new byte[] {'P', 'A', 'R', '1', 0, 0});
        CliRun r = run("query", table.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("a;b 5\na;c 3\n");
    }

    @Test
    void pathsAreTakenLiterally() throws IOException {
        store(dir.resolve("fleetA"), file("a.folded", "from;fleetA 1\n"), "service=a");
        store(dir.resolve("fleet[A]"), file("b.folded", "from;brackets 2\n"), "service=b");
        CliRun r = run("query", dir.resolve("fleet[A]").toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("from;brackets 2\n");
        Path tilde = dir.resolve("~");
        store(tilde, file("t.folded", "from;tilde 3\n"), "service=t");
        r = run("query", tilde.toString());
        assertThat(r.out()).isEqualTo("from;tilde 3\n");
    }

    @Test
    void whereIsOneConditionAndSqlTheEscapeHatch() throws IOException {
        Path table = dir.resolve("fleet");
        store(table, file("p.folded", "a;b 5\n"), "service=api");
        Path pwned = dir.resolve("pwned.csv");
        for (String where : new String[] {
                "true); COPY (SELECT 1) TO " + Sql.string(pwned.toString()) + "; SELECT (1",
                "true) OR (true",
                "true -- ",
                "true /* ",
                "$$x$$ = 'x'"}) {
            CliRun r = run("query", table.toString(), "--where", where);
            oneLine(r, 2);
            assertThat(r.err()).contains("--where");
        }
        assertThat(pwned).doesNotExist();
        CliRun ok = run("query", table.toString(), "--where", "service = 'api' and stack like '%;b' and leaf <> ';'");
        assertThat(ok.code()).as(ok.err()).isZero();
        CliRun sql = run("query", table.toString(), "--sql", "COPY (SELECT 1 AS x) TO " + Sql.string(pwned.toString()));
        assertThat(sql.code()).as(sql.err()).isZero();
        assertThat(pwned).exists();
    }

    @Test
    void labelsMatchExactly() throws IOException {
        Path table = dir.resolve("fleet");
        store(table, file("v1.folded", "v;one 1\n"), "service=api", "version=1");
        store(table, file("v10.folded", "v;ten 10\n"), "service=api", "version=10");
        store(table, file("sub.folded", "v;sub 100\n"), "service=api", "subversion=1");
        CliRun r = run("query", table.toString(), "--label", "version=1");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("v;one 1\n");
        r = run("query", table.toString(), "--label", "version=1", "--diff-label", "version=10");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("v;one 1 0\nv;ten 0 10\n");
        r = run("query", table.toString(), "--label", "service=api", "--top", "5");
        assertThat(r.out()).contains("111 samples");
        oneLine(run("query", table.toString(), "--label", "version"), 2);
    }

    @Test
    void storedControlBytesComeBackEscaped() throws IOException {
        Path table = dir.resolve("fleet");
        store(table, file("p.folded", "main;evil\u001b[2J\u0007\tfake 5\n"), "service=api");
        for (String[] args : new String[][] {{"--top", "3"}, {"--sql", "SELECT leaf, value FROM samples"}}) {
            String[] all = new String[args.length + 2];
            all[0] = "query";
            all[1] = table.toString();
            System.arraycopy(args, 0, all, 2, args.length);
            CliRun r = run(all);
            assertThat(r.code()).as(r.err()).isZero();
            assertThat(r.out()).as(args[0]).doesNotContain("\u001b").doesNotContain("\u0007").contains("\\x1b[2J\\x07\\x09fake");
        }
    }

    /** A table another program wrote, with a NULL stack or a negative value: one line, never past 100%. */
    @Test
    void nullsAndNegativeValuesAreTableErrors() throws Exception {
        for (String bad : new String[] {"NULL::VARCHAR, 5::BIGINT", "'a;b', -3::BIGINT", "'a;b', NULL::BIGINT"}) {
            Path table = Files.createDirectories(dir.resolve("t" + Math.abs(bad.hashCode())));
            try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement()) {
                s.execute("COPY (SELECT TIMESTAMP '2026-11-01 00:00:00' AS time, 'h' AS host, '' AS labels, 'p' AS profile,"
                        + " x.stack AS stack, 'b' AS leaf, x.value AS value FROM (SELECT " + bad + ") AS x(stack, value)"
                        + " UNION ALL SELECT TIMESTAMP '2026-11-01 00:00:00', 'h', '', 'p', 'a;c', 'c', 10)"
                        + " TO " + Sql.string(table.resolve("part.parquet").toString()) + " (FORMAT parquet)");
            }
            // A NULL stack matters to a merged profile only; --top by function reads leaf and value.
            String[][] runs = bad.startsWith("NULL::VARCHAR") ? new String[][] {{}} : new String[][] {{}, {"--top", "3"}};
            for (String[] args : runs) {
                String[] all = new String[args.length + 2];
                all[0] = "query";
                all[1] = table.toString();
                System.arraycopy(args, 0, all, 2, args.length);
                CliRun r = run(all);
                assertThat(r.code()).as(bad + " " + String.join(" ", args) + ": " + r.out() + r.err()).isEqualTo(1);
                oneLine(r, 1);
                assertThat(r.err()).as(bad).contains(table.toString());
            }
        }
    }

    @Test
    void outputsByNameAndAManifestThatNeverEnds() throws IOException {
        Path table = dir.resolve("fleet");
        store(table, file("p.folded", "a;b 5\na;c 3\n"), "service=api");
        Path pb = dir.resolve("x.pb.gz");
        CliRun r = run("query", table.toString(), "-o", pb.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(run("fold", pb.toString()).out()).isEqualTo("a;b 5\na;c 3\n");
        Path svg = dir.resolve("x.svg.gz");
        r = run("query", table.toString(), "-o", svg.toString());
        assertThat(r.code()).as(r.err()).isZero();
        try (InputStream in = new GZIPInputStream(Files.newInputStream(svg))) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).startsWith("<?xml");
        }
        r = run("store", "--manifest", "/dev/zero", "--to", table.toString(), "--label", "service=x");
        oneLine(r, 1);
        assertThat(r.err()).contains("/dev/zero");
        r = run("query", "--help");
        assertThat(r.err() + r.out()).doesNotContain("picocli WARN");
    }
}
