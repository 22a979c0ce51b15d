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
                try (Statement s = c.createStatement()) {
                    s.execute("COPY (SELECT * FROM samples ORDER BY service, date, stack) TO " + Sql.string(dir.toString())
                            + " (FORMAT parquet, PARTITION_BY (" + ProfileTable.PARTITIONS + "), COMPRESSION zstd,"
                            + " ROW_GROUP_SIZE " + ProfileTable.ROW_GROUP_SIZE + ","
                            + " OVERWRITE_OR_IGNORE true, FILENAME_PATTERN 'profiles_{uuid}')");
                }
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
}
