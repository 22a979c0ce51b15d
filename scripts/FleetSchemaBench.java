import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;
import org.stackfold.collapse.InputFormats;
import org.stackfold.fleet.query.FleetQuery;
import org.stackfold.fleet.store.FleetStore;
import org.stackfold.fleet.store.Labels;
import org.stackfold.fleet.store.StoredProfile;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.Formats;
import org.stackfold.io.Input;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/**
 * The schema experiment of docs/fleet.md ("Why one denormalised table"), run by scripts/fleet-bench: the
 * same profiles stored as the shipped denormalised table (FleetStore) and as a normalised one (frames,
 * stacks and samples tables joined by ids), and the two reference queries asked of each with DuckDB.
 * Both paths load profiles the same way and write through DuckDB's Parquet writer with the same options,
 * so only the layout differs. Each run is its own process (timed from outside with /usr/bin/time); it
 * also prints the process CPU time of the store or query alone, without JVM start-up.
 *
 * <pre>
 * store  denormalised|normalised MANIFEST TABLE
 * store-each denormalised|normalised MANIFEST TABLE   (one store a profile, as record --store does)
 * merge  denormalised|normalised TABLE WHERE OUT.folded
 * top    denormalised|normalised TABLE N OUT.tsv
 * </pre>
 *
 * The normalised ids are 64-bit hashes of the content (a frame's name, kind and place; a stack's frame
 * ids), so that stores from many hosts agree on them without coordination, as the append-only
 * denormalised table needs none. Each store writes the stacks and frames it saw, so stores that share
 * stacks write them again: the stacks and frames views drop the repeats.
 */
public final class FleetSchemaBench {
    public static void main(String[] a) throws Exception {
        boolean normalised = switch (a[1]) {
            case "normalised" -> true;
            case "denormalised" -> false;
            default -> throw new IllegalArgumentException("layout: normalised or denormalised, not " + a[1]);
        };
        // A query runs once cold (loading DuckDB's natives), then WARM times more: the scan, join and
        // aggregation alone, which is what grows with a table.
        int runs = a[0].startsWith("store") ? 1 : 1 + WARM;
        long coldCpu = 0, coldWall = 0, warmCpu = 0, warmWall = 0;
        String what = "";
        for (int run = 0; run < runs; run++) {
            long cpu = cpu();
            long wall = System.nanoTime();
            what = switch (a[0]) {
                case "store" -> store(normalised, manifest(Path.of(a[2])), Path.of(a[3]));
                case "store-each" -> {
                    String w = "";
                    for (Entry e : manifest(Path.of(a[2]))) {
                        w = store(normalised, List.of(e), Path.of(a[3]));
                    }
                    yield "one at a time, the last: " + w;
                }
                case "merge" -> merge(normalised, Path.of(a[2]), a[3], Path.of(a[4]));
                case "top" -> top(normalised, Path.of(a[2]), Integer.parseInt(a[3]), Path.of(a[4]));
                default -> throw new IllegalArgumentException("store, merge or top, not " + a[0]);
            };
            if (run == 0) {
                coldCpu = cpu() - cpu;
                coldWall = System.nanoTime() - wall;
            } else {
                warmCpu += cpu() - cpu;
                warmWall += System.nanoTime() - wall;
            }
        }
        System.out.printf("%s %s: %s; first %.3f s CPU, %.3f s wall (without JVM start)%s%n", a[0], a[1], what,
                coldCpu / 1e9, coldWall / 1e9, runs == 1 ? "" : String.format("; then %.3f s CPU, %.3f s wall a run",
                        warmCpu / 1e9 / WARM, warmWall / 1e9 / WARM));
    }

    private static final int WARM = 5;

    /** CPU time of the whole process, DuckDB's native threads included. */
    private static long cpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    // ---- storing

    private record Entry(String path, Labels labels, Instant time) {
    }

    /** The manifest format of 'stackfold store --manifest': TIME PATH NAME=VALUE... */
    private static List<Entry> manifest(Path manifest) throws IOException {
        List<Entry> entries = new ArrayList<>();
        for (String line : Files.readAllLines(manifest)) {
            String[] f = line.strip().split("\\s+");
            if (f.length < 2 || f[0].startsWith("#")) {
                continue;
            }
            entries.add(new Entry(manifest.toAbsolutePath().getParent().resolve(f[1]).toString(),
                    Labels.parse(List.of(f).subList(2, f.length)), OffsetDateTime.parse(f[0]).toInstant()));
        }
        return entries;
    }

    private static Profile load(String path) throws IOException {
        try (Input in = Input.open(path)) {
            return InputFormats.choose(in, null).read(in, FormatOptions.none());
        }
    }

    private static String store(boolean normalised, List<Entry> entries, Path table) throws Exception {
        return normalised ? storeNormalised(entries, table) : storeDenormalised(entries, table);
    }

    private static String storeDenormalised(List<Entry> entries, Path table) throws IOException {
        Iterable<StoredProfile> profiles = () -> entries.stream().map(e -> {
            try {
                return new StoredProfile(e.path(), load(e.path()), e.labels(), e.time());
            } catch (IOException x) {
                throw new java.io.UncheckedIOException(x);
            }
        }).iterator();
        FleetStore.Written w = FleetStore.store(table, profiles);
        return w.profiles() + " profiles, " + w.rows() + " rows";
    }

    private static String storeNormalised(List<Entry> entries, Path table) throws Exception {
        Map<Long, Boolean> framesSeen = new HashMap<>();
        Map<Long, Boolean> stacksSeen = new HashMap<>();
        long rows = 0;
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:")) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE frames (frame_id BIGINT, name VARCHAR, kind VARCHAR, file VARCHAR, line INTEGER)");
                s.execute("CREATE TABLE stacks (stack_id BIGINT, frame_ids BIGINT[], depth INTEGER)");
                s.execute("CREATE TABLE samples (time TIMESTAMP, date DATE, service VARCHAR, host VARCHAR, labels VARCHAR,"
                        + " profile VARCHAR, stack_id BIGINT, value BIGINT)");
            }
            DuckDBConnection d = c.unwrap(DuckDBConnection.class);
            try (DuckDBAppender frames = d.createAppender("main", "frames");
                 DuckDBAppender stacks = d.createAppender("main", "stacks");
                 DuckDBAppender samples = d.createAppender("main", "samples")) {
                for (Entry e : entries) {
                    Profile p = load(e.path());
                    FrameTable ft = p.frames();
                    long[] frameIds = new long[ft.size()];
                    for (int f = 0; f < ft.size(); f++) {
                        String file = ft.hasLocation(f) ? ft.file(f) : null;
                        int line = ft.hasLocation(f) ? ft.line(f) : 0;
                        frameIds[f] = mix(hash(ft.name(f)) * 31 + ft.kind(f).ordinal() * 7L + hash(file) + line);
                        if (framesSeen.putIfAbsent(frameIds[f], true) == null) {
                            frames.beginRow().append(frameIds[f]).append(ft.name(f)).append(ft.kind(f).name().toLowerCase())
                                    .append(file).append(line).endRow();
                        }
                    }
                    LocalDateTime time = LocalDateTime.ofInstant(e.time(), ZoneOffset.UTC);
                    Labels l = e.labels();
                    CallTree tree = p.tree();
                    for (int node = 1; node < tree.size(); node++) {
                        long self = tree.self(node);
                        if (self == 0) {
                            continue;
                        }
                        int[] path = tree.stack(node);
                        long[] ids = new long[path.length];
                        long stackId = 17;
                        for (int i = 0; i < path.length; i++) {
                            ids[i] = frameIds[path[i]];
                            stackId = mix(stackId * 31 + ids[i]);
                        }
                        if (stacksSeen.putIfAbsent(stackId, true) == null) {
                            stacks.beginRow().append(stackId).append(ids).append(ids.length).endRow();
                        }
                        samples.beginRow().append(time).append(time.toLocalDate()).append(l.service()).append(l.host())
                                .append(l.others()).append(e.path()).append(stackId).append(self).endRow();
                        rows++;
                    }
                }
            }
            String options = "FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1048576";
            try (Statement s = c.createStatement()) {
                Files.createDirectories(table.resolve("frames"));
                Files.createDirectories(table.resolve("stacks"));
                String file = UUID.randomUUID() + ".parquet";
                s.execute("COPY (SELECT * FROM frames ORDER BY name) TO '" + table.resolve("frames/frames_" + file) + "' (" + options + ")");
                s.execute("COPY (SELECT * FROM stacks ORDER BY frame_ids) TO '" + table.resolve("stacks/stacks_" + file) + "' (" + options + ")");
                s.execute("COPY (SELECT * FROM samples ORDER BY service, date, stack_id) TO '" + table.resolve("samples") + "' ("
                        + options + ", PARTITION_BY (date, service), OVERWRITE_OR_IGNORE true, FILENAME_PATTERN 'profiles_{uuid}')");
            }
        }
        return entries.size() + " profiles, " + rows + " rows, " + stacksSeen.size() + " stacks, " + framesSeen.size() + " frames";
    }

    private static long hash(String s) {
        if (s == null) {
            return 0;
        }
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < s.length(); i++) {
            h = (h ^ s.charAt(i)) * 0x100000001b3L;
        }
        return h;
    }

    /** SplitMix64's finaliser. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    // ---- querying

    private static Connection normalisedViews(Path table) throws SQLException {
        Connection c = DriverManager.getConnection("jdbc:duckdb:");
        try (Statement s = c.createStatement()) {
            s.execute("CREATE VIEW samples AS SELECT * FROM read_parquet('" + table.resolve("samples/**/*.parquet")
                    + "', hive_partitioning = true)");
            s.execute("CREATE VIEW stacks AS SELECT stack_id, any_value(frame_ids) AS frame_ids, any_value(depth) AS depth"
                    + " FROM read_parquet('" + table.resolve("stacks/*.parquet") + "') GROUP BY stack_id");
            s.execute("CREATE VIEW frames AS SELECT frame_id, any_value(name) AS name FROM read_parquet('"
                    + table.resolve("frames/*.parquet") + "') GROUP BY frame_id");
        }
        return c;
    }

    private static String merge(boolean normalised, Path table, String where, Path out) throws Exception {
        Profile p;
        if (!normalised) {
            try (FleetQuery q = FleetQuery.open(table)) {
                p = q.merge(where);
            }
        } else {
            p = new Profile();
            FrameTable ft = p.frames();
            try (Connection c = normalisedViews(table); Statement s = c.createStatement()) {
                s.execute("CREATE TEMP TABLE hits AS SELECT stack_id, CAST(sum(value) AS BIGINT) AS n FROM samples WHERE "
                        + where + " GROUP BY stack_id");
                // Only the frames the matching stacks use, named once each.
                Map<Long, Integer> local = new HashMap<>();
                try (ResultSet rs = s.executeQuery("SELECT frame_id, name FROM frames SEMI JOIN (SELECT unnest(frame_ids) AS frame_id"
                        + " FROM hits JOIN stacks USING (stack_id)) USING (frame_id)")) {
                    while (rs.next()) {
                        local.put(rs.getLong(1), ft.plain(rs.getString(2)));
                    }
                }
                CallTree tree = p.tree();
                try (ResultSet rs = s.executeQuery("SELECT n, frame_ids FROM hits JOIN stacks USING (stack_id)")) {
                    while (rs.next()) {
                        Array ids = rs.getArray(2);
                        Object[] frames = (Object[]) ids.getArray();
                        int[] path = new int[frames.length];
                        for (int i = 0; i < frames.length; i++) {
                            path[i] = local.get((Long) frames[i]);
                        }
                        tree.addSelf(tree.path(path, 0, path.length), rs.getLong(1));
                    }
                }
            }
        }
        try (OutputStream o = Files.newOutputStream(out)) {
            Formats.byName("folded").write(p, o, FormatOptions.none());
        }
        return p.tree().totalSamples() + " samples";
    }

    private static String top(boolean normalised, Path table, int n, Path out) throws Exception {
        List<String> lines = new ArrayList<>();
        if (!normalised) {
            try (FleetQuery q = FleetQuery.open(table)) {
                q.top(n, "function", null).forEach(t -> lines.add(t.key() + "\t" + t.samples()));
            }
        } else {
            try (Connection c = normalisedViews(table); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("WITH a AS (SELECT stack_id, sum(value) AS n FROM samples GROUP BY stack_id)"
                         + " SELECT f.name AS k, CAST(sum(a.n) AS BIGINT) AS n FROM a JOIN stacks s USING (stack_id)"
                         + " JOIN frames f ON f.frame_id = s.frame_ids[s.depth] GROUP BY k ORDER BY n DESC, k LIMIT " + n)) {
                while (rs.next()) {
                    lines.add(rs.getString(1) + "\t" + rs.getLong(2));
                }
            }
        }
        Files.write(out, lines);
        return lines.size() + " functions";
    }
}
