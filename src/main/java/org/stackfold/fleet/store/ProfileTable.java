package org.stackfold.fleet.store;

/**
 * The fleet table's layout, shared by the writer, the DuckDB queries and the Spark job (docs/fleet.md).
 * One denormalised row per (profile, stack): dictionary encoding keeps the repeated stack strings
 * small on disk, and every query is a scan and a group-by, with no join to shuffle on a cluster.
 */
public final class ProfileTable {
    private ProfileTable() {
    }

    /** Hive-style partition columns, in directory order: {@code DIR/date=2026-11-01/service=api/*.parquet}. */
    public static final String PARTITIONS = "date, service";

    /** Columns in the Parquet files; {@code date} and {@code service} live in the directory names. */
    public static final String COLUMNS = """
            time TIMESTAMP,
            date DATE,
            service VARCHAR,
            host VARCHAR,
            labels VARCHAR,
            profile VARCHAR,
            stack VARCHAR,
            leaf VARCHAR,
            value BIGINT""";

    /** Frames of a stack are joined root first with this, as in folded files. */
    public static final char SEPARATOR = ';';

    /** Rows per Parquet row group: large groups give dictionary pages many repeats of each stack. */
    public static final int ROW_GROUP_SIZE = 1 << 20;
}
