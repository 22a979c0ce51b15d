package org.stackfold.fleet.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.BooleanSupplier;

/**
 * Rewrites the small files one writer (an agent's host) added to a fleet table into one file per
 * partition, so that queries open a few files instead of thousands (docs/fleet.md, "Compaction").
 *
 * <p>Only the writer's own files are touched: those named {@code profiles_WRITER_<uuid>.parquet} (what
 * {@link FleetStore#store(Path, Iterable, String)} writes) and {@code compacted_WRITER_<uuid>.parquet}
 * (what this writes). A run, under the writer's lock ({@code .stackfold-compact/WRITER.lock}):
 * <ol>
 * <li>finishes or undoes what an interrupted run left ({@link #recover});</li>
 * <li>picks, in each partition, the writer's store files written before {@code before} (and, in a
 * partition of a day before {@code before}'s, its compacted files as well): two or more make a unit;</li>
 * <li>writes each unit's rows (at most {@link #maxInputBytes} of input files) into one file in a staging directory (DuckDB, zstd, rows sorted by stack,
 * as the store writes them), synced;</li>
 * <li>writes the journal (outputs and inputs) as {@code .prepared}: readers ignore the outputs;</li>
 * <li>renames each output into its partition, then the journal to {@code .committed}: readers ignore
 * the inputs;</li>
 * <li>deletes the inputs, then renames the journal to {@code .done} (deleted by the next run).</li>
 * </ol>
 * A run that stops anywhere (kill -9, a full disk) leaves a table {@link TableFiles#list} reads with
 * each sample once; the next run's recovery undoes a prepared one and finishes a committed one.
 */
public final class Compactor {
    private Compactor() {
    }

    /** A step of a run, after which a test's {@link Hook} may stop it (as a crash would) or look at the table. */
    public enum Step { STAGED, PREPARED, OUTPUT_RENAMED, COMMITTED, INPUT_DELETED, DONE }

    /** Called after each step; what it throws ends the run there, with no clean-up (as kill -9). */
    public interface Hook {
        void after(Step step) throws IOException;
    }

    /** What a run did. */
    public record Result(int partitions, int outputs, int inputs, long bytesIn, long bytesOut, boolean locked) {
        /** One line for a log. */
        public String describe() {
            if (locked) {
                return "another compaction of the same host's files holds the lock; skipped";
            }
            return String.format(java.util.Locale.ROOT, "compacted %,d files of %,d partitions into %,d (%,.1f MB into %,.1f MB)",
                    inputs, partitions, outputs, bytesIn / 1e6, bytesOut / 1e6);
        }
    }

    static final String STORE_PREFIX = "profiles_", COMPACTED_PREFIX = "compacted_", PARQUET = ".parquet";

    /** How long a done journal is kept at least: longer than any listing of the table takes. */
    static final Duration KEEP_DONE = Duration.ofMinutes(1);

    /**
     * A writer id for file names from a host label: letters, digits, {@code . -} kept, anything else
     * {@code -} (with a hash of the label appended then, so two hosts never share an id); {@code host}
     * when the label is empty. Never holds {@code _}, which separates it from the uuid.
     */
    public static String writerId(String host) {
        if (host == null || host.isEmpty()) {
            return "host";
        }
        StringBuilder b = new StringBuilder();
        boolean changed = host.length() > 64;
        for (char c : host.substring(0, Math.min(64, host.length())).toCharArray()) {
            boolean ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-';
            b.append(ok ? c : '-');
            changed |= !ok;
        }
        if (changed) {
            b.append('-').append(String.format("%08x", host.hashCode()));
        }
        return b.toString();
    }

    /** Whether {@code name} is one of the writer's files, and which kind. */
    static boolean isStoreFile(String name, String writer) {
        return ours(name, STORE_PREFIX + writer + "_");
    }

    static boolean isCompactedFile(String name, String writer) {
        return ours(name, COMPACTED_PREFIX + writer + "_");
    }

    private static boolean ours(String name, String prefix) {
        if (!name.startsWith(prefix) || !name.endsWith(PARQUET)) {
            return false;
        }
        String rest = name.substring(prefix.length(), name.length() - PARQUET.length());
        return !rest.isEmpty() && rest.chars().allMatch(c -> c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c == '-');
    }

    /**
     * Loads DuckDB (its driver and native library) now: a caller that compacts at a low priority does
     * this first at its own, or a store on another thread could wait for the low-priority thread to
     * finish initialising the classes they share.
     */
    public static void prepare() throws IOException {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:")) {
            c.isValid(1);
        } catch (SQLException e) {
            throw new IOException("DuckDB: " + e.getMessage(), e);
        }
    }

    /** Compacts the writer's files written before {@code before}; {@code stop} is asked between partitions. */
    public static Result compact(Path dir, String writer, Instant before, BooleanSupplier stop) throws IOException {
        return compact(dir, writer, before, stop, null);
    }

    static Result compact(Path dir, String writer, Instant before, BooleanSupplier stop, Hook hook) throws IOException {
        if (!writer.equals(writerId(writer))) {
            throw new IllegalArgumentException("not a writer id: " + writer);
        }
        dir = dir.toAbsolutePath();
        Path jd = Files.createDirectories(dir.resolve(TableFiles.COMPACT_DIR));
        try (FileChannel lockFile = FileChannel.open(jd.resolve(writer + ".lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE)) {
            FileLock lock;
            try {
                lock = lockFile.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null; // this JVM holds it
            }
            if (lock == null) {
                return new Result(0, 0, 0, 0, 0, true);
            }
            recover(dir, writer);
            return run(dir, jd, writer, before, stop, hook);
        }
    }

    /** One partition's inputs and its output's name. */
    private record Unit(String partition, List<String> inputs, String output) {
    }

    private static Result run(Path dir, Path jd, String writer, Instant before, BooleanSupplier stop, Hook hook)
            throws IOException {
        LocalDate today = LocalDate.ofInstant(before, ZoneOffset.UTC);
        Map<String, List<String>> store = new TreeMap<>(), compacted = new TreeMap<>();
        for (String f : TableFiles.list(dir)) {
            Path p = Path.of(f);
            if (p.getParent() == null) {
                continue;
            }
            String name = p.getFileName().toString(), partition = p.getParent().toString();
            boolean s = isStoreFile(name, writer), c = isCompactedFile(name, writer);
            if (!s && !c) {
                continue;
            }
            try {
                if (!Files.getLastModifiedTime(dir.resolve(f)).toInstant().isBefore(before)) {
                    continue;
                }
            } catch (NoSuchFileException e) {
                continue;
            }
            (s ? store : compacted).computeIfAbsent(partition, k -> new ArrayList<>()).add(f);
        }
        List<Unit> units = new ArrayList<>();
        java.util.Set<String> partitions = new java.util.TreeSet<>(store.keySet());
        partitions.addAll(compacted.keySet());
        for (String partition : partitions) {
            List<String> inputs = new ArrayList<>(store.getOrDefault(partition, List.of()));
            if (closed(partition, today)) {
                inputs.addAll(compacted.getOrDefault(partition, List.of()));
            }
            // Units of at most maxInputBytes of input: DuckDB's memory for a unit grows with its rows.
            List<String> unit = new ArrayList<>();
            long bytes = 0;
            for (String f : inputs) {
                long size;
                try {
                    size = Files.size(dir.resolve(f));
                } catch (NoSuchFileException e) {
                    continue;
                }
                if (!unit.isEmpty() && bytes + size > maxInputBytes) {
                    addUnit(units, partition, unit, writer);
                    unit = new ArrayList<>();
                    bytes = 0;
                }
                unit.add(f);
                bytes += size;
            }
            addUnit(units, partition, unit, writer);
        }
        if (units.isEmpty()) {
            return new Result(0, 0, 0, 0, 0, false);
        }
        String run = writer + "_" + UUID.randomUUID();
        Path staging = Files.createDirectories(jd.resolve(run + ".staging"));
        List<Unit> written = new ArrayList<>();
        long bytesIn = 0, bytesOut = 0;
        int inputs = 0;
        Path link = org.stackfold.io.TempFiles.directory().resolve(org.stackfold.io.TempFiles.prefix() + "compact-" + UUID.randomUUID());
        org.stackfold.io.TempFiles.register(link);
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:")) {
            // Paths go through a link of our own: DuckDB reads every path as a glob (a table named 'fleet[A]').
            Files.createSymbolicLink(link, dir);
            try (Statement s = c.createStatement()) {
                s.execute("SET threads = 1"); // the agent's background work: one thread, its priority
                s.execute("SET preserve_insertion_order = false");
                s.execute("SET memory_limit = '256MB'"); // beyond, spills to the staging directory, or fails
                s.execute("SET temp_directory = " + Sql.string(staging.resolve("spill").toString()));
                for (Unit u : units) {
                    if (stop.getAsBoolean()) {
                        break;
                    }
                    StringBuilder list = new StringBuilder("[");
                    for (String f : u.inputs()) {
                        list.append(list.length() > 1 ? ", " : "").append(Sql.string(link.resolve(f).toString()));
                        bytesIn += Files.size(dir.resolve(f));
                    }
                    list.append(']');
                    Path out = staging.resolve(Path.of(u.output()).getFileName() + ".part");
                    s.execute("COPY (SELECT * FROM read_parquet(" + list + ", hive_partitioning = false, union_by_name = true)"
                            + " ORDER BY stack, time) TO " + Sql.string(out.toString()) + " (FORMAT parquet, COMPRESSION zstd,"
                            + " ROW_GROUP_SIZE " + ProfileTable.ROW_GROUP_SIZE + ")");
                    try (FileChannel ch = FileChannel.open(out, StandardOpenOption.WRITE)) {
                        ch.force(true);
                    }
                    bytesOut += Files.size(out);
                    inputs += u.inputs().size();
                    written.add(u);
                }
            }
        } catch (SQLException e) {
            FleetStore.deleteTree(staging);
            throw new IOException(dir + ": compacting the table failed: " + e.getMessage().lines().findFirst().orElse(""), e);
        } catch (IOException e) {
            FleetStore.deleteTree(staging);
            throw e;
        } finally {
            org.stackfold.io.TempFiles.delete(link);
        }
        FleetStore.deleteTree(staging.resolve("spill"));
        step(hook, Step.STAGED);
        if (written.isEmpty()) {
            FleetStore.deleteTree(staging);
            return new Result(0, 0, 0, 0, 0, false);
        }
        // The journal: from here, a crash is undone (prepared) or finished (committed) by the next run.
        List<String> outs = new ArrayList<>(), ins = new ArrayList<>();
        for (Unit u : written) {
            outs.add(u.output());
            ins.addAll(u.inputs());
        }
        Path tmp = jd.resolve(run + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(new TableFiles.Journal(outs, ins).text().getBytes(StandardCharsets.UTF_8)));
            ch.force(true);
        }
        Path journal = move(tmp, jd.resolve(run + "." + TableFiles.Journal.PREPARED));
        sync(jd);
        step(hook, Step.PREPARED);
        for (Unit u : written) {
            Path target = dir.resolve(u.output());
            Files.move(staging.resolve(target.getFileName() + ".part"), target, StandardCopyOption.ATOMIC_MOVE);
            sync(target.getParent());
            step(hook, Step.OUTPUT_RENAMED);
        }
        journal = move(journal, jd.resolve(run + "." + TableFiles.Journal.COMMITTED));
        sync(jd);
        step(hook, Step.COMMITTED);
        finish(dir, jd, run, journal, hook);
        return new Result((int) written.stream().map(Unit::partition).distinct().count(), written.size(), inputs,
                bytesIn, bytesOut, false);
    }

    /** A committed run: its inputs deleted, its journal done. */
    private static void finish(Path dir, Path jd, String run, Path journal, Hook hook) throws IOException {
        for (String f : TableFiles.Journal.read(journal).inputs()) {
            Files.deleteIfExists(dir.resolve(f));
            step(hook, Step.INPUT_DELETED);
        }
        move(journal, jd.resolve(run + "." + TableFiles.Journal.DONE));
        FleetStore.deleteTree(jd.resolve(run + ".staging"));
        step(hook, Step.DONE);
    }

    private static void addUnit(List<Unit> units, String partition, List<String> inputs, String writer) {
        if (inputs.size() >= 2) {
            units.add(new Unit(partition, inputs, partition + "/" + COMPACTED_PREFIX + writer + "_" + UUID.randomUUID() + PARQUET));
        }
    }

    /**
     * Input bytes (Parquet, compressed) of one output at most: DuckDB's memory for a rewrite grows with
     * its rows (35 minutes of this machine's busiest service, 6.9 MB of files holding 167 MB of stack
     * text, needed more than 128 MB and less than 256 MB); a busier partition gets several outputs.
     */
    static volatile long maxInputBytes = 4L << 20;

    /** A partition {@code date=YYYY-MM-DD/...} of a day before {@code today}: no store of this writer adds to it now. */
    private static boolean closed(String partition, LocalDate today) {
        String first = partition.split("/", 2)[0];
        if (!first.startsWith("date=")) {
            return false;
        }
        try {
            return LocalDate.parse(first.substring(5)).isBefore(today);
        } catch (java.time.format.DateTimeParseException e) {
            return false;
        }
    }

    /**
     * Under the writer's lock: a prepared run is undone (journal to aborted, outputs removed, journal
     * and staging deleted); a committed one finished; done journals older than {@link #KEEP_DONE}, stray
     * temporary journals and staging directories deleted. Other writers' journals are left alone.
     */
    static void recover(Path dir, String writer) throws IOException {
        Path jd = dir.resolve(TableFiles.COMPACT_DIR);
        Map<String, String> journals = TableFiles.journals(dir);
        for (Map.Entry<String, String> j : journals.entrySet()) {
            String run = j.getKey();
            if (!run.startsWith(writer + "_")) {
                continue;
            }
            Path journal = jd.resolve(run + "." + j.getValue());
            switch (j.getValue()) {
                case TableFiles.Journal.PREPARED, TableFiles.Journal.ABORTED -> {
                    if (j.getValue().equals(TableFiles.Journal.PREPARED)) {
                        journal = move(journal, jd.resolve(run + "." + TableFiles.Journal.ABORTED));
                        sync(jd);
                    }
                    for (String f : TableFiles.Journal.read(journal).outputs()) {
                        Files.deleteIfExists(dir.resolve(f));
                    }
                    FleetStore.deleteTree(jd.resolve(run + ".staging"));
                    Files.delete(journal);
                }
                case TableFiles.Journal.COMMITTED -> finish(dir, jd, run, journal, null);
                default -> {
                    Instant modified = Files.getLastModifiedTime(journal).toInstant();
                    if (modified.isBefore(Instant.now().minus(KEEP_DONE))) {
                        Files.deleteIfExists(journal);
                    }
                }
            }
        }
        // No run of this writer is under way (the caller holds its lock): what is left of one goes.
        try (var list = Files.newDirectoryStream(jd, writer + "_*")) {
            for (Path p : list) {
                String name = p.getFileName().toString();
                if (name.endsWith(".tmp") || name.endsWith(".staging")) {
                    FleetStore.deleteTree(p);
                }
            }
        }
    }

    private static void step(Hook hook, Step step) throws IOException {
        if (hook != null) {
            hook.after(step);
        }
    }

    private static Path move(Path from, Path to) throws IOException {
        return Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
    }

    /** fsync of a directory: the renames in it survive a power loss (a crash of the process needs none). */
    private static void sync(Path directory) {
        try (FileChannel ch = FileChannel.open(directory, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // some file systems refuse to sync a directory: the order of the steps still holds for readers
        }
    }
}
