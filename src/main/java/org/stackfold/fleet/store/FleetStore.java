package org.stackfold.fleet.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;
import org.stackfold.io.InputException;

/**
 * Writes profiles into a fleet table directory (docs/fleet.md): rows are appended to an in-memory
 * DuckDB table, then DuckDB's Parquet writer copies them out, Hive-partitioned by date and
 * service, zstd-compressed and dictionary-encoded. Each call adds new files (a uuid in the name),
 * so stores from many processes add up without rewriting what is there.
 *
 * <p>This is the entry point for {@code record --store DIR}: build {@link StoredProfile}s and call
 * {@link #store(Path, Iterable)}.
 */
public final class FleetStore {
    private FleetStore() {
    }

    /** Rows written per profile set: what a caller can report. */
    public record Written(int profiles, long rows, long samples) {
    }

    /**
     * Stores the profiles, one at a time: a lazy {@code Iterable} that reads each profile in its
     * {@code next()} keeps one profile in memory however many are stored (an {@link UncheckedIOException}
     * from it comes out as its cause).
     */
    public static Written store(Path dir, Iterable<StoredProfile> profiles) throws IOException {
        return store(dir, profiles, null);
    }

    /**
     * Stores the profiles as {@link #store(Path, Iterable)}, in files named after {@code writer} (a
     * {@link Compactor#writerId}, or null for none): {@code profiles_WRITER_<uuid>.parquet}, which the
     * writer's {@link Compactor} may later rewrite (the agent's; never another writer's).
     */
    public static Written store(Path dir, Iterable<StoredProfile> profiles, String writer) throws IOException {
        if (writer != null && !writer.equals(Compactor.writerId(writer))) {
            throw new IllegalArgumentException("not a writer id: " + writer);
        }
        dir = dir.toAbsolutePath(); // taken literally: DuckDB would expand a leading ~
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new IOException(dir + ": cannot create the table directory: " + e.getMessage(), e);
        }
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:")) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE samples (" + ProfileTable.COLUMNS + ")");
            }
            long[] counts = new long[3];
            try (DuckDBAppender a = c.unwrap(DuckDBConnection.class).createAppender("main", "samples")) {
                for (StoredProfile sp : profiles) {
                    counts[2]++;
                    LocalDateTime time = LocalDateTime.ofInstant(sp.time(), ZoneOffset.UTC);
                    Labels l = sp.labels();
                    ProfileRows.each(sp, (stack, leaf, value) -> {
                        a.beginRow().append(time).append(time.toLocalDate()).append(l.service()).append(l.host())
                                .append(l.others()).append(sp.source()).append(stack).append(leaf).append(value).endRow();
                        counts[0]++;
                        counts[1] += value;
                    });
                }
            }
            if (counts[0] > 0) {
                copyAtomically(c, dir, writer);
            }
            return new Written((int) counts[2], counts[0], counts[1]);
        } catch (InputException e) {
            throw e;
        } catch (UncheckedIOException e) {
            throw e.getCause();
        } catch (SQLException e) {
            throw new IOException(dir + ": writing the table failed: " + e.getMessage(), e);
        } catch (Exception e) {
            if (e instanceof IOException io) {
                throw io;
            }
            throw new IOException(dir + ": writing the table failed: " + e, e);
        }
    }

    /** Hidden directories in a table are never read: where a store stages its files before they are moved into place. */
    public static final String STAGING_PREFIX = ".stackfold-staging-";

    /**
     * DuckDB writes the Parquet files into a hidden staging directory inside the table (same file
     * system), then each complete file is renamed into its partition: a reader never sees a partial
     * file, and an interrupted store (Ctrl-C, a full disk) leaves only the staging directory, which
     * readers skip and a shutdown hook removes.
     */
    private static void copyAtomically(Connection c, Path dir, String writer) throws SQLException, IOException {
        Path staging = dir.resolve(STAGING_PREFIX + java.util.UUID.randomUUID());
        Thread cleanup = new Thread(() -> deleteTree(staging), "stackfold-staging-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
        try {
            try (Statement s = c.createStatement()) {
                s.execute("COPY (SELECT * FROM samples ORDER BY service, date, stack) TO " + Sql.string(staging.toString())
                        + " (FORMAT parquet, PARTITION_BY (" + ProfileTable.PARTITIONS + "), COMPRESSION zstd,"
                        + " ROW_GROUP_SIZE " + ProfileTable.ROW_GROUP_SIZE + ","
                        + " OVERWRITE_OR_IGNORE true, FILENAME_PATTERN 'profiles_" + (writer == null ? "" : writer + "_") + "{uuid}')");
            }
            java.util.List<Path> files;
            try (var walk = Files.walk(staging)) {
                files = walk.filter(Files::isRegularFile).toList();
            }
            for (Path f : files) {
                Path target = dir.resolve(staging.relativize(f).toString());
                Files.createDirectories(target.getParent());
                Files.move(f, target, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            }
        } finally {
            deleteTree(staging);
            try {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            } catch (IllegalStateException e) {
                // shutting down: the hook runs anyway
            }
        }
    }

    /** Deletes a directory tree, best effort (a store's or a compaction's staging directory). */
    static void deleteTree(Path root) {
        if (!Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (var walk = Files.walk(root)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | UncheckedIOException e) {
            // best effort: readers skip hidden directories, and a compaction's recovery tries again
        }
    }
}
