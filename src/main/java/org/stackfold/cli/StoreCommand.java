package org.stackfold.cli;

import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.stackfold.fleet.store.FleetStore;
import org.stackfold.fleet.store.Labels;
import org.stackfold.fleet.store.StoredProfile;
import org.stackfold.io.UsageException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "store", mixinStandardHelpOptions = true,
        description = {"Add profiles to a fleet table: Parquet files partitioned by date and service (docs/fleet.md).",
                "Each input is one profile with the given labels and time; 'stackfold query' reads the table."},
        footer = {"", "Examples:",
                "  stackfold store cpu.folded --to fleet --label service=api --label host=h1",
                "  stackfold store a.pb.gz b.jfr --to fleet --label service=db --time 2026-11-01T12:00:00Z"})
final class StoreCommand implements Callable<Integer> {
    @Parameters(arity = "0..*", paramLabel = "IN", description = "Profiles, each stored as one ('-' for stdin).")
    List<String> inputs = new ArrayList<>();

    @Option(names = "--manifest", paramLabel = "FILE",
            description = {"Bulk load: one profile a line, 'TIME PATH NAME=VALUE...' (a line's labels override --label's).",
                    "One call writes one set of files, however many profiles."})
    Path manifest;

    @Option(names = "--to", required = true, paramLabel = "DIR", description = "The table directory (created if missing).")
    Path to;

    @Option(names = "--label", paramLabel = "NAME=VALUE",
            description = "A label (repeatable); service is required, host has its own column.")
    List<String> labels = new ArrayList<>();

    @Option(names = "--time", paramLabel = "T",
            description = "When the profiles were taken: 2026-11-01T12:00:00Z, an offset time, a date, or Unix seconds (default now).")
    String time;

    @Mixin
    ReadOptions read;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (inputs.isEmpty() && manifest == null) {
            throw new UsageException("give profiles to store, or --manifest FILE");
        }
        Instant at = time == null ? Instant.now() : parseTime(time);
        ProfileLoader.checkStdinOnce(inputs);
        // What to load, then loaded one at a time while storing: a fleet's worth never sits in memory.
        List<Pending> pending = new ArrayList<>();
        if (!inputs.isEmpty()) {
            Labels l = Labels.parse(labels);
            for (String name : inputs) {
                pending.add(new Pending(name, l, at));
            }
        }
        if (manifest != null) {
            readManifest(pending);
        }
        Iterable<StoredProfile> profiles = () -> pending.stream().map(p -> {
            try {
                return load(p.name(), p.labels(), p.time());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }).iterator();
        FleetStore.Written w = FleetStore.store(to, profiles);
        spec.commandLine().getErr().printf("stackfold: stored %d profiles, %d stacks, %d samples in %s%n",
                w.profiles(), w.rows(), w.samples(), to);
        return 0;
    }

    private StoredProfile load(String name, Labels l, Instant at) throws java.io.IOException {
        return new StoredProfile(name.equals("-") ? "<stdin>" : name,
                ProfileLoader.load(name, read.formatOptions(), read.from), l, at);
    }

    private record Pending(String name, Labels labels, Instant time) {
    }

    private void readManifest(List<Pending> pending) throws java.io.IOException {
        List<String> lines = org.stackfold.io.TextFiles.readLines(manifest); // bounded: --manifest /dev/zero is an error naming it
        for (int i = 0; i < lines.size(); i++) {
            String[] f = lines.get(i).strip().split("\\s+");
            if (f.length == 1 && f[0].isEmpty() || f[0].startsWith("#")) {
                continue;
            }
            if (f.length < 2) {
                throw new org.stackfold.io.InputException(manifest + ":" + (i + 1) + ": expected 'TIME PATH NAME=VALUE...'");
            }
            Labels l;
            Instant at;
            try {
                java.util.Map<String, String> all = Labels.map(labels);
                all.putAll(Labels.map(List.of(f).subList(2, f.length)));
                l = Labels.of(all);
                at = parseTime(f[0]);
            } catch (UsageException e) {
                throw new org.stackfold.io.InputException(manifest + ":" + (i + 1) + ": " + e.getMessage());
            }
            pending.add(new Pending(manifest.toAbsolutePath().getParent().resolve(f[1]).toString(), l, at));
        }
    }

    static Instant parseTime(String t) {
        try {
            if (t.matches("[0-9]{1,12}")) {
                return Instant.ofEpochSecond(Long.parseLong(t));
            }
            if (t.matches("[0-9]{4}-[0-9]{2}-[0-9]{2}")) {
                return LocalDate.parse(t).atStartOfDay(ZoneOffset.UTC).toInstant();
            }
            return OffsetDateTime.parse(t).toInstant();
        } catch (DateTimeParseException e) {
            throw new UsageException("--time '" + t + "' is not a time (2026-11-01T12:00:00Z, 2026-11-01 or Unix seconds)");
        }
    }
}
