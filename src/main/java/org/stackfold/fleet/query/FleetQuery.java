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
import org.stackfold.fleet.store.TableFiles;
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
    private final Path link;

    private FleetQuery(Path dir, Connection connection, Path link) {
        this.dir = dir;
        this.connection = connection;
        this.link = link;
    }

    public static FleetQuery open(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new InputException(dir + ": not a table directory (write one with 'stackfold store ... --to " + dir + "')");
        }
        // DuckDB reads every path as a glob and expands a leading ~: the table is reached through a
        // symbolic link of our own whose name holds neither, and each file is named on its own.
        Path link = org.stackfold.io.TempFiles.directory().resolve(org.stackfold.io.TempFiles.prefix() + "table-"
                + java.util.UUID.randomUUID());
        org.stackfold.io.TempFiles.register(link);
        Connection c = null;
        try {
            Files.createSymbolicLink(link, dir.toAbsolutePath());
            c = DriverManager.getConnection("jdbc:duckdb:");
            FleetQuery q = new FleetQuery(dir, c, link);
            q.retrying(() -> {
                q.view();
                return null;
            });
            return q;
        } catch (SQLException e) {
            close(c);
            org.stackfold.io.TempFiles.delete(link);
            throw failure(dir, e);
        } catch (IOException | RuntimeException e) {
            close(c);
            org.stackfold.io.TempFiles.delete(link);
            throw e;
        }
    }

    private static void close(Connection c) {
        try {
            if (c != null) {
                c.close();
            }
        } catch (SQLException e) {
            // closing after a failure: the failure is the message
        }
    }

    /** The files the view names now. */
    private List<String> files = List.of();

    /** (Re)defines the view {@code samples} over the table's files as they are now. */
    private void view() throws IOException, SQLException {
        List<String> listed = tableFiles(dir);
        if (listed.isEmpty()) {
            throw new InputException(dir + ": no .parquet files in the table directory");
        }
        StringBuilder list = new StringBuilder("[");
        for (String f : listed) {
            list.append(list.length() > 1 ? ", " : "").append(Sql.string(link.resolve(f).toString()));
        }
        list.append(']');
        files = listed;
        try (Statement s = connection.createStatement()) {
            s.execute("CREATE OR REPLACE VIEW samples AS SELECT * FROM read_parquet(" + list
                    + ", hive_partitioning = true, union_by_name = true)");
        }
    }

    private interface Attempt<T> {
        T run() throws IOException, SQLException;
    }

    /**
     * Runs {@code attempt}; where DuckDB failed and a file the view names has gone meanwhile (a
     * compaction replaced it: its rows are in a file the view does not name yet), the view is defined
     * again over the files as they are now and the attempt made again, from the start.
     */
    private <T> T retrying(Attempt<T> attempt) throws IOException, SQLException {
        for (int i = 0; ; i++) {
            try {
                return attempt.run();
            } catch (SQLException e) {
                if (i >= ATTEMPTS || !vanished()) {
                    throw e;
                }
                view();
            }
        }
    }

    private static final int ATTEMPTS = 20;

    private boolean vanished() {
        for (String f : files) {
            if (!Files.exists(dir.resolve(f))) {
                return true;
            }
        }
        return false;
    }

    /**
     * The table's files, relative to its directory ({@link TableFiles#list}): regular {@code .parquet}
     * files, not empty, outside hidden directories (a store's staging directory) and without glob
     * characters in their names, as compactions in progress leave them.
     */
    static List<String> tableFiles(Path dir) throws IOException {
        return TableFiles.list(dir);
    }

    /** The stacks of the rows that match {@code where} (SQL over the table's columns), summed into one profile. */
    public Profile merge(String where) throws IOException {
        String sql = "SELECT stack, CAST(sum(value) AS BIGINT), min(value), count(*) - count(value) FROM samples WHERE "
                + condition(where) + " GROUP BY stack";
        return ask(() -> {
            Profile p = new Profile();
            forEachRow(sql, rs -> {
                checkRow(rs, 3);
                add(p, rs.getString(1), 0, rs.getLong(2));
            });
            return p;
        });
    }

    /**
     * A differential profile: column 0 (before) sums the rows matching {@code before}, column 1
     * (after) those matching {@code after}; a row matching both counts on both sides.
     */
    public Profile diff(String before, String after) throws IOException {
        String b = condition(before);
        String a = condition(after);
        String sql = "SELECT stack, CAST(coalesce(sum(value) FILTER (WHERE " + b + "), 0) AS BIGINT),"
                + " CAST(coalesce(sum(value) FILTER (WHERE " + a + "), 0) AS BIGINT), min(value), count(*) - count(value)"
                + " FROM samples WHERE (" + b + ") OR (" + a + ") GROUP BY stack";
        return ask(() -> {
            Profile p = Profile.differential();
            forEachRow(sql, rs -> {
                checkRow(rs, 4);
                int node = add(p, rs.getString(1), 0, rs.getLong(2));
                p.tree().addSelf(node, 1, rs.getLong(3));
            });
            return p;
        });
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
        String sql = "SELECT CAST(" + column + " AS VARCHAR) AS k, CAST(sum(value) AS BIGINT) AS n FROM samples WHERE "
                + condition(where) + " GROUP BY k ORDER BY n DESC, k NULLS LAST LIMIT " + limit;
        return ask(() -> {
            List<Top> rows = new ArrayList<>();
            forEachRow(sql, rs -> rows.add(new Top(rs.getString(1) == null ? "NULL" : rs.getString(1), rs.getLong(2))));
            return rows;
        });
    }

    /** Samples in the rows matching {@code where}: the denominator of top-N percentages. */
    public long samples(String where) throws IOException {
        String sql = "SELECT CAST(coalesce(sum(value), 0) AS BIGINT), 'all', min(value), count(*) - count(value)"
                + " FROM samples WHERE " + condition(where);
        return ask(() -> {
            long[] n = new long[1];
            // Checked here, the denominator of --top: a negative or missing value would give shares past 100%.
            forEachRow(sql, rs -> {
                checkRow(rs, 3);
                n[0] = rs.getLong(1);
            });
            return n[0];
        });
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
        return ask(() -> statement(sql));
    }

    private List<List<String>> statement(String sql) throws SQLException {
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
        }
        return out;
    }

    private static String condition(String where) {
        return where == null || where.isBlank() ? "true" : "(" + oneCondition(where) + ")";
    }

    /**
     * Checks that {@code where} is one SQL expression that stays inside the parentheses it is put in:
     * no {@code ;} (a second statement), no comment ({@code --}, {@code /*}) that could hide the
     * closing parenthesis, no dollar-quoted string, parentheses balanced, all outside string literals
     * and quoted names. {@code --sql} is the way to run statements of one's own.
     */
    public static String oneCondition(String where) {
        int depth = 0;
        for (int i = 0; i < where.length(); i++) {
            char c = where.charAt(i);
            if (c == '\'' || c == '"') {
                int end = i + 1;
                while (true) {
                    if (end >= where.length()) {
                        throw new UsageException("--where: a quote at character " + (i + 1) + " is not closed");
                    }
                    if (where.charAt(end) == c) {
                        if (end + 1 < where.length() && where.charAt(end + 1) == c) {
                            end += 2; // a doubled quote inside
                            continue;
                        }
                        break;
                    }
                    end++;
                }
                i = end;
                continue;
            }
            String what = null;
            if (c == ';') {
                what = "';' (one condition, not statements: use --sql for those)";
            } else if (c == '-' && i + 1 < where.length() && where.charAt(i + 1) == '-'
                    || c == '/' && i + 1 < where.length() && where.charAt(i + 1) == '*') {
                what = "a comment";
            } else if (c == '$') {
                what = "'$'";
            } else if (c == '(') {
                depth++;
            } else if (c == ')' && --depth < 0) {
                what = "a ')' without its '('";
            } else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
                what = "a control character";
            }
            if (what != null) {
                throw new UsageException("--where takes one SQL condition; " + what + " at character " + (i + 1));
            }
        }
        if (depth != 0) {
            throw new UsageException("--where: " + depth + " '(' not closed");
        }
        return where;
    }

    /**
     * The condition that rows carry every label of {@code labels} exactly: {@code service} and
     * {@code host} compare their columns, other labels match one whole {@code k=v} element of the
     * {@code labels} column (so version=1 matches neither version=10 nor subversion=1).
     */
    public static String labelCondition(java.util.Map<String, String> labels) {
        StringBuilder b = new StringBuilder();
        labels.forEach((k, v) -> {
            b.append(b.isEmpty() ? "" : " AND ");
            if (k.equals("service") || k.equals("host")) {
                b.append(k).append(" = ").append(Sql.string(v));
            } else {
                b.append("list_contains(string_split(coalesce(labels, ''), ','), ").append(Sql.string(k + "=" + v)).append(')');
            }
        });
        return b.isEmpty() ? null : b.toString();
    }

    /** Both conditions (either may be null or blank). */
    public static String and(String a, String b) {
        boolean hasA = a != null && !a.isBlank();
        boolean hasB = b != null && !b.isBlank();
        if (hasA && hasB) {
            return "(" + oneCondition(a) + ") AND (" + oneCondition(b) + ")";
        }
        return hasA ? a : hasB ? b : null;
    }

    /**
     * A group's min(value) and count of NULL values (columns {@code minColumn} and the next): a table
     * row with a negative or NULL value, or a NULL stack (column 1, where it is one), is the table's error.
     */
    private void checkRow(ResultSet rs, int minColumn) throws SQLException {
        if (rs.getLong(minColumn + 1) > 0) {
            throw new SQLException("a row has no value (NULL); the table was not written by 'stackfold store'");
        }
        long min = rs.getLong(minColumn);
        if (!rs.wasNull() && min < 0) {
            throw new SQLException("a row has the negative value " + min + "; the table was not written by 'stackfold store'");
        }
        if (minColumn > 2 && rs.getMetaData().getColumnLabel(1).equals("stack") && rs.getString(1) == null) {
            throw new SQLException("a row has no stack (NULL); the table was not written by 'stackfold store'");
        }
    }

    private interface RowHandler {
        void row(ResultSet rs) throws SQLException;
    }

    private void forEachRow(String sql, RowHandler handler) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement(sql); ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                handler.row(rs);
            }
        }
    }

    /** An answer, made again from the start where files went meanwhile ({@link #retrying}); errors as one line. */
    private <T> T ask(Attempt<T> attempt) throws IOException {
        try {
            return retrying(attempt);
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
        } finally {
            org.stackfold.io.TempFiles.delete(link);
        }
    }
}
