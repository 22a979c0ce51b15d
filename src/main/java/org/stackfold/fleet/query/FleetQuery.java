package org.stackfold.fleet.query;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.stackfold.fleet.store.ProfileTable;
import org.stackfold.fleet.store.Sql;
import org.stackfold.io.InputException;
import org.stackfold.io.UsageException;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/**
 * Questions over a fleet table directory, answered by DuckDB in-process. The table is the view
 * {@code samples} over every Parquet file under the directory, with the Hive partition columns
 * {@code date} and {@code service}; filters on them skip whole directories.
 */
public final class FleetQuery implements AutoCloseable {
    private static final Pattern COLUMN = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final Path dir;
    private final Connection connection;

    private FleetQuery(Path dir, Connection connection) {
        this.dir = dir;
        this.connection = connection;
    }

    public static FleetQuery open(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new InputException(dir + ": not a table directory (write one with 'stackfold store ... --to " + dir + "')");
        }
        try (var files = Files.walk(dir)) {
            if (files.noneMatch(f -> f.getFileName().toString().endsWith(".parquet"))) {
                throw new InputException(dir + ": no .parquet files in the table directory");
            }
        }
        try {
            Connection c = DriverManager.getConnection("jdbc:duckdb:");
            try (Statement s = c.createStatement()) {
                s.execute("CREATE VIEW samples AS SELECT * FROM read_parquet("
                        + Sql.string(dir.resolve("**").resolve("*.parquet").toString())
                        + ", hive_partitioning = true, union_by_name = true)");
            }
            return new FleetQuery(dir, c);
        } catch (SQLException e) {
            throw failure(dir, e);
        }
    }

    /** The stacks of the rows that match {@code where} (SQL over the table's columns), summed into one profile. */
    public Profile merge(String where) throws IOException {
        Profile p = new Profile();
        String sql = "SELECT stack, CAST(sum(value) AS BIGINT) FROM samples WHERE " + condition(where) + " GROUP BY stack";
        forEachRow(sql, rs -> add(p, rs.getString(1), 0, rs.getLong(2)));
        return p;
    }

    /**
     * A differential profile: column 0 (before) sums the rows matching {@code before}, column 1
     * (after) those matching {@code after}; a row matching both counts on both sides.
     */
    public Profile diff(String before, String after) throws IOException {
        Profile p = Profile.differential();
        String b = condition(before);
        String a = condition(after);
        String sql = "SELECT stack, CAST(coalesce(sum(value) FILTER (WHERE " + b + "), 0) AS BIGINT),"
                + " CAST(coalesce(sum(value) FILTER (WHERE " + a + "), 0) AS BIGINT)"
                + " FROM samples WHERE (" + b + ") OR (" + a + ") GROUP BY stack";
        forEachRow(sql, rs -> {
            int node = add(p, rs.getString(1), 0, rs.getLong(2));
            p.tree().addSelf(node, 1, rs.getLong(3));
        });
        return p;
    }

    /** One row of a top-N answer. */
    public record Top(String key, long samples) {
    }

    /**
     * The {@code limit} values of {@code by} (a column, or {@code function} for the leaf frame) with
     * the most samples among the rows matching {@code where}; ties in key order.
     */
    public List<Top> top(int limit, String by, String where) throws IOException {
        String column = topColumn(by);
        List<Top> rows = new ArrayList<>();
        String sql = "SELECT CAST(" + column + " AS VARCHAR) AS k, CAST(sum(value) AS BIGINT) AS n FROM samples WHERE "
                + condition(where) + " GROUP BY k ORDER BY n DESC, k LIMIT " + limit;
        forEachRow(sql, rs -> rows.add(new Top(rs.getString(1), rs.getLong(2))));
        return rows;
    }

    /** Samples in the rows matching {@code where}: the denominator of top-N percentages. */
    public long samples(String where) throws IOException {
        long[] n = new long[1];
        forEachRow("SELECT CAST(coalesce(sum(value), 0) AS BIGINT) FROM samples WHERE " + condition(where),
                rs -> n[0] = rs.getLong(1));
        return n[0];
    }

    /** The column {@code --by} names: {@code function} means the leaf frame. */
    public static String topColumn(String by) {
        String column = by.equals("function") ? "leaf" : by;
        if (!COLUMN.matcher(column).matches()) {
            throw new UsageException("--by takes a column name (function, host, service, date, profile, stack, ...), not '" + by + "'");
        }
        return column;
    }

    /**
     * Raw SQL over the view {@code samples}: a header row, then one row per result, values as text. A
     * statement without a result (a {@code COPY} that compacts the table) gives the header {@code rows}
     * and the number of rows it wrote.
     */
    public List<List<String>> sql(String sql) throws IOException {
        List<List<String>> out = new ArrayList<>();
        try (Statement s = connection.createStatement()) {
            if (!s.execute(sql)) {
                out.add(List.of("rows"));
                out.add(List.of(Long.toString(s.getUpdateCount())));
                return out;
            }
            ResultSet rs = s.getResultSet();
            ResultSetMetaData md = rs.getMetaData();
            List<String> header = new ArrayList<>();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                header.add(md.getColumnLabel(i));
            }
            out.add(header);
            while (rs.next()) {
                List<String> row = new ArrayList<>(header.size());
                for (int i = 1; i <= header.size(); i++) {
                    Object v = rs.getObject(i);
                    row.add(v == null ? "NULL" : v.toString());
                }
                out.add(row);
            }
        } catch (SQLException e) {
            throw failure(dir, e);
        }
        return out;
    }

    private static String condition(String where) {
        return where == null || where.isBlank() ? "true" : "(" + where + ")";
    }

    private interface RowHandler {
        void row(ResultSet rs) throws SQLException;
    }

    private void forEachRow(String sql, RowHandler handler) throws IOException {
        try (PreparedStatement s = connection.prepareStatement(sql); ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                handler.row(rs);
            }
        } catch (SQLException e) {
            throw failure(dir, e);
        }
    }

    /** Adds a stored stack to column {@code column}; returns its node. */
    private static int add(Profile p, String stack, int column, long value) {
        FrameTable frames = p.frames();
        List<Integer> ids = new ArrayList<>();
        int from = 0;
        for (int i = 0; i <= stack.length(); i++) {
            if (i == stack.length() || stack.charAt(i) == ProfileTable.SEPARATOR) {
                ids.add(frames.plain(stack.substring(from, i)));
                from = i + 1;
            }
        }
        int[] path = ids.stream().mapToInt(Integer::intValue).toArray();
        CallTree tree = p.tree();
        int node = tree.path(path, 0, path.length);
        tree.addSelf(node, column, value);
        return node;
    }

    /** A DuckDB error as one line naming the table (a bad --where is the common case). */
    private static InputException failure(Path dir, SQLException e) {
        String msg = String.valueOf(e.getMessage()).lines().findFirst().orElse("").strip();
        return new InputException(dir + ": query failed: " + msg);
    }

    @Override
    public void close() throws IOException {
        try {
            connection.close();
        } catch (SQLException e) {
            throw failure(dir, e);
        }
    }
}
