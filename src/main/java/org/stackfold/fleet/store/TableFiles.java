package org.stackfold.fleet.store;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The files of a fleet table as {@code query} reads them: regular, non-empty {@code .parquet} files
 * outside hidden directories, less what a compaction in progress says is not (yet, or no longer) part
 * of the table (docs/fleet.md, "Compaction").
 *
 * <p>A compaction ({@link Compactor}) keeps a journal in {@code DIR/.stackfold-compact/}, one file per
 * run whose name ends with its state: {@code .prepared} (its outputs may be appearing in their
 * partitions: they are not read, its inputs are), {@code .committed} (every output is in: the inputs,
 * being deleted, are not read), {@code .done} (inputs gone; kept until the next run), {@code .aborted}
 * (outputs being removed: not read). The journals are listed before and after the table's files; when
 * the two lists differ (a compaction changed state while the files were listed), the files are listed
 * again. So a listing never holds both a compaction's inputs and its outputs, nor neither.
 */
public final class TableFiles {
    private TableFiles() {
    }

    /** The hidden directory of compaction journals and staged outputs (skipped by every reader). */
    public static final String COMPACT_DIR = ".stackfold-compact";

    /** Attempts at a listing during which no compaction changed state. */
    static final int ATTEMPTS = 40;

    /** A test's hook, run after the first journal listing and before the files are listed. */
    static volatile Runnable beforeWalk;

    /**
     * The table's files, relative to {@code dir}, sorted: regular non-empty {@code .parquet} files
     * outside hidden directories, without glob characters in their paths, as compactions in progress
     * leave them (each sample in exactly one listed file).
     */
    public static List<String> list(Path dir) throws IOException {
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            Map<String, String> before = journals(dir);
            Runnable hook = beforeWalk;
            if (hook != null) {
                hook.run();
            }
            List<String> files = walk(dir);
            Map<String, String> after = journals(dir);
            if (!before.equals(after)) {
                pause(attempt);
                continue;
            }
            Set<String> hidden = new HashSet<>();
            try {
                for (Map.Entry<String, String> j : after.entrySet()) {
                    String state = j.getValue();
                    if (state.equals(Journal.DONE)) {
                        continue;
                    }
                    Journal journal = Journal.read(dir.resolve(COMPACT_DIR).resolve(j.getKey() + "." + state));
                    hidden.addAll(state.equals(Journal.COMMITTED) ? journal.inputs() : journal.outputs());
                }
            } catch (NoSuchFileException e) {
                pause(attempt); // its state changed since: list again
                continue;
            }
            if (hidden.isEmpty()) {
                return files;
            }
            List<String> out = new ArrayList<>(files.size());
            for (String f : files) {
                if (!hidden.contains(f)) {
                    out.add(f);
                }
            }
            return out;
        }
        throw new IOException(dir + ": compactions kept changing the table while its files were listed ("
                + ATTEMPTS + " attempts)");
    }

    private static void pause(int attempt) throws IOException {
        try {
            Thread.sleep(Math.min(500, 5L << Math.min(attempt, 7)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while listing the table");
        }
    }

    /** The journals of compactions: run (the name before the state) to state, from the names alone. */
    static Map<String, String> journals(Path dir) throws IOException {
        Map<String, String> out = new TreeMap<>();
        Path jd = dir.resolve(COMPACT_DIR);
        if (!Files.isDirectory(jd)) {
            return out;
        }
        try (var list = Files.newDirectoryStream(jd)) {
            for (Path p : list) {
                String name = p.getFileName().toString();
                int dot = name.lastIndexOf('.');
                if (dot > 0 && Journal.STATES.contains(name.substring(dot + 1))) {
                    out.put(name.substring(0, dot), name.substring(dot + 1));
                }
            }
        } catch (NoSuchFileException e) {
            return out;
        }
        return out;
    }

    /** Every candidate file, relative to {@code dir}, sorted. */
    static List<String> walk(Path dir) throws IOException {
        List<String> out = new ArrayList<>();
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes a) {
                return !d.equals(dir) && d.getFileName().toString().startsWith(".")
                        ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes a) {
                String name = f.getFileName().toString();
                String rel = dir.relativize(f).toString();
                if (a.isRegularFile() && a.size() > 0 && name.endsWith(".parquet") && !name.startsWith(".")
                        && rel.chars().noneMatch(ch -> "*?[]{}\\~".indexOf(ch) >= 0)) {
                    out.add(rel);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path f, IOException e) {
                return FileVisitResult.CONTINUE; // a file removed while we looked (a compaction)
            }
        });
        Collections.sort(out);
        return out;
    }

    /**
     * A compaction's journal: its outputs and inputs, paths relative to the table. Written once (to a
     * temporary name, then renamed); its state is the suffix of its name and changes by renames.
     */
    record Journal(List<String> outputs, List<String> inputs) {
        static final String PREPARED = "prepared", COMMITTED = "committed", DONE = "done", ABORTED = "aborted";
        static final Set<String> STATES = Set.of(PREPARED, COMMITTED, DONE, ABORTED);
        static final String HEADER = "stackfold-compaction 1";

        static Journal read(Path p) throws IOException {
            List<String> outputs = new ArrayList<>(), inputs = new ArrayList<>();
            List<String> lines = Files.readAllLines(p);
            if (lines.isEmpty() || !lines.getFirst().equals(HEADER)) {
                throw new IOException(p + ": not a compaction journal (its first line is not '" + HEADER + "')");
            }
            for (String line : lines.subList(1, lines.size())) {
                if (line.startsWith("output ")) {
                    outputs.add(line.substring(7));
                } else if (line.startsWith("input ")) {
                    inputs.add(line.substring(6));
                } else if (!line.isEmpty()) {
                    throw new IOException(p + ": a compaction journal's line is neither 'output' nor 'input': " + line);
                }
            }
            return new Journal(outputs, inputs);
        }

        String text() {
            StringBuilder b = new StringBuilder(HEADER).append('\n');
            outputs.forEach(o -> b.append("output ").append(o).append('\n'));
            inputs.forEach(i -> b.append("input ").append(i).append('\n'));
            return b.toString();
        }
    }
}
