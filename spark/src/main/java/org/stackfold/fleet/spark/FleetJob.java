package org.stackfold.fleet.spark;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The fleet queries of {@code stackfold query} on Spark, over the same Parquet table (docs/fleet.md):
 * a merged profile (folded; with {@code --diff-where}, two counts a line) or a top-N table
 * ({@code KEY<TAB>SAMPLES} lines). Results are small (one line per distinct stack), so the driver
 * writes them as one file through Hadoop's FileSystem: a local path, hdfs:// or s3a://.
 *
 * <pre>spark-submit --class org.stackfold.fleet.spark.FleetJob stackfold-spark.jar DIR [--where SQL]
 *     [--diff-where SQL] [--top N [--by COLUMN]] -o OUT</pre>
 */
public final class FleetJob {
    private static final Pattern COLUMN = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    /** The parsed command line. */
    record Args(String table, String where, String diffWhere, Integer top, String by, String output) {
        static Args parse(String[] a) {
            String table = null, where = null, diffWhere = null, by = "function", output = null;
            Integer top = null;
            for (int i = 0; i < a.length; i++) {
                switch (a[i]) {
                    case "--where" -> where = value(a, ++i);
                    case "--diff-where" -> diffWhere = value(a, ++i);
                    case "--top" -> top = Integer.valueOf(value(a, ++i));
                    case "--by" -> by = value(a, ++i);
                    case "-o", "--output" -> output = value(a, ++i);
                    default -> {
                        if (a[i].startsWith("-") || table != null) {
                            throw new IllegalArgumentException("unexpected argument '" + a[i] + "'; " + USAGE);
                        }
                        table = a[i];
                    }
                }
            }
            if (table == null || output == null) {
                throw new IllegalArgumentException(USAGE);
            }
            if (top != null && (top < 1 || diffWhere != null)) {
                throw new IllegalArgumentException("--top must be at least 1 and takes no --diff-where");
            }
            String column = by.equals("function") ? "leaf" : by;
            if (!COLUMN.matcher(column).matches()) {
                throw new IllegalArgumentException("--by takes a column name, not '" + by + "'");
            }
            return new Args(table, where, diffWhere, top, column, output);
        }

        private static String value(String[] a, int i) {
            if (i >= a.length) {
                throw new IllegalArgumentException("option " + a[i - 1] + " needs a value");
            }
            return a[i];
        }
    }

    static final String USAGE = "usage: FleetJob DIR [--where SQL] [--diff-where SQL] [--top N [--by COLUMN]] -o OUT";

    private FleetJob() {
    }

    public static void main(String[] argv) throws IOException {
        Args args;
        try {
            args = Args.parse(argv);
        } catch (IllegalArgumentException e) {
            System.err.println("stackfold-spark: " + e.getMessage());
            System.exit(2);
            return;
        }
        SparkSession spark = SparkSession.builder().appName("stackfold fleet query").getOrCreate();
        try {
            run(spark, args);
        } finally {
            spark.stop();
        }
    }

    static void run(SparkSession spark, Args a) throws IOException {
        spark.read().parquet(a.table()).createOrReplaceTempView("samples");
        String where = condition(a.where());
        List<Row> rows;
        if (a.top() != null) {
            rows = spark.sql("SELECT CAST(" + a.by() + " AS STRING) AS k, CAST(sum(value) AS BIGINT) AS n FROM samples s"
                    + " WHERE " + where + " GROUP BY k ORDER BY n DESC, k LIMIT " + a.top()).collectAsList();
        } else if (a.diffWhere() != null) {
            String after = condition(a.diffWhere());
            rows = spark.sql("SELECT stack, CAST(coalesce(sum(value) FILTER (WHERE " + where + "), 0) AS BIGINT),"
                    + " CAST(coalesce(sum(value) FILTER (WHERE " + after + "), 0) AS BIGINT) FROM samples s"
                    + " WHERE " + where + " OR " + after + " GROUP BY stack ORDER BY stack").collectAsList();
        } else {
            rows = spark.sql("SELECT stack, CAST(sum(value) AS BIGINT) FROM samples s WHERE " + where
                    + " GROUP BY stack ORDER BY stack").collectAsList();
        }
        Path out = new Path(a.output());
        FileSystem fs = out.getFileSystem(spark.sparkContext().hadoopConfiguration());
        try (OutputStream os = fs.create(out, true); PrintStream p = new PrintStream(os, false, StandardCharsets.UTF_8)) {
            for (Row r : rows) {
                StringBuilder line = new StringBuilder();
                for (int i = 0; i < r.length(); i++) {
                    line.append(i == 0 ? "" : a.top() != null ? "\t" : " ").append(r.get(i));
                }
                p.print(line.append('\n'));
            }
        }
    }

    private static String condition(String where) {
        return where == null || where.isBlank() ? "(true)" : "(" + where + ")";
    }
}
