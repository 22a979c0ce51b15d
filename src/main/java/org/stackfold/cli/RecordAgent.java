package org.stackfold.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.stackfold.fleet.push.ProfilePusher;
import org.stackfold.fleet.push.PushException;
import org.stackfold.fleet.push.Upload;
import org.stackfold.fleet.store.Compactor;
import org.stackfold.fleet.store.FleetStore;
import org.stackfold.fleet.store.Labels;
import org.stackfold.fleet.store.RecordingStore;
import org.stackfold.fleet.store.StoredProfile;
import org.stackfold.io.InputException;
import org.stackfold.record.RecordOptions;
import org.stackfold.record.agent.Agent;
import org.stackfold.record.agent.Destination;
import org.stackfold.record.agent.FileNames;
import org.stackfold.record.agent.IntervalProfile;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * {@code record --every SECONDS}: the destinations of {@link Agent} as the command line names them
 * ({@code -o} patterns written as {@code record -o} writes a profile, {@code --store}, {@code --push})
 * and the signals: SIGINT/SIGTERM flush the last interval and stop, SIGHUP retries queued intervals.
 */
final class RecordAgent {
    private RecordAgent() {
    }

    /** The queue's directory when --queue is not given: systemd's StateDirectory, else the user's state directory. */
    static Path defaultQueue() {
        String state = System.getenv("STATE_DIRECTORY");
        if (state != null && !state.isBlank()) {
            return Path.of(state.split(":")[0], "queue");
        }
        String xdg = System.getenv("XDG_STATE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".local", "state");
        return base.resolve("stackfold").resolve("queue");
    }

    /** The exit status when the kernel refuses the program: the systemd unit's RestartPreventExitStatus. */
    static final int REFUSED = 3;

    static int run(RecordCommand c, RecordOptions options, PrintWriter err) throws IOException, InterruptedException {
        RecordingStore begun = RecordingStore.begin(c.store == null ? Path.of(".") : c.store, c.plainLabels(), c.command,
                c.pids);
        Map<String, String> labels = new java.util.TreeMap<>(Labels.map(c.plainLabels()));
        labels.putIfAbsent("service", begun.labels().service());
        if (!begun.labels().host().isEmpty()) {
            labels.putIfAbsent("host", begun.labels().host());
        }
        String host = labels.getOrDefault("host", "");
        List<Destination> destinations = new ArrayList<>();
        for (String pattern : c.outputs()) {
            destinations.add(new FileDestination(c, pattern, host));
        }
        if (c.store != null) {
            destinations.add(new StoreDestination(c.store, begun.source(), Duration.ofMillis((long) (c.storeEvery * 1000)),
                    Compactor.writerId(host), Duration.ofSeconds(c.compactEvery)));
        }
        if (c.push.given()) {
            destinations.add(new PushDestination(c, options.frequency()));
        }
        int health = c.healthEvery > 0 ? c.healthEvery : (int) Math.max(1, Math.ceil(60 / c.every));
        Agent agent = new Agent(options, new Agent.Settings(c.every, health, c.queue != null ? c.queue : defaultQueue(),
                c.queueMaxBytes(), Duration.ofSeconds(c.queueMaxAge), labels, c.splitMode(),
                org.stackfold.record.agent.LabelRule.rules(c.labels)), destinations, err)
                .attachAnyJvm(c.jvmAttach)
                .python(c.lines, org.stackfold.format.tachyon.TachyonOptions.from(org.stackfold.format.FormatOptions.none()
                        .set("tachyon.naming", c.tachyonNaming != null ? c.tachyonNaming : "cpython")).naming());
        SignalHandler stop = sig -> agent.stop();
        SignalHandler oldInt = Signal.handle(new Signal("INT"), stop);
        SignalHandler oldTerm = Signal.handle(new Signal("TERM"), stop);
        SignalHandler oldHup = Signal.handle(new Signal("HUP"), sig -> agent.reopen());
        try {
            agent.run(c.bpfStats);
        } catch (org.stackfold.record.bpf.ErrnoException e) {
            String m = e.getMessage();
            if (!m.startsWith("loading BPF program")) {
                throw e;
            }
            // After a kernel upgrade, say: one line for the journal, and an exit status the unit does not restart on.
            int nl = m.indexOf('\n');
            err.println("stackfold: agent: the kernel refused the BPF program (" + (nl < 0 ? m : m.substring(0, nl))
                    + ", kernel " + System.getProperty("os.version") + "); not restarting: 'sudo stackfold record -d 1'"
                    + " prints the verifier's log");
            err.flush();
            return REFUSED;
        } finally {
            Signal.handle(new Signal("INT"), oldInt);
            Signal.handle(new Signal("TERM"), oldTerm);
            Signal.handle(new Signal("HUP"), oldHup);
        }
        return 0;
    }

    /** {@code -o PATTERN}: each interval to the file its start names, in the format its name says. */
    private record FileDestination(RecordCommand c, String pattern, String host) implements Destination {
        @Override
        public String name() {
            return "-o " + pattern;
        }

        @Override
        public void send(IntervalProfile p) throws IOException {
            String file = FileNames.expand(pattern, p.start(), p.labels());
            try {
                c.write(p.profile(), file, c.err());
            } catch (InputException e) {
                throw new IOException(e.getMessage(), e);
            }
        }

        @Override
        public boolean queued() {
            return false;
        }
    }

    /**
     * {@code --store DIR}: each interval a profile of the table, at the interval's start, in files named
     * after this host ({@code writer}), which it compacts every {@code compactEvery} (zero: never).
     */
    private record StoreDestination(Path dir, String source, Duration batch, String writer, Duration compactEvery)
            implements Destination {
        @Override
        public Upkeep upkeep() {
            if (compactEvery.isZero()) {
                return null;
            }
            return new Upkeep() {
                @Override
                public Duration every() {
                    return compactEvery;
                }

                @Override
                public void prepare() throws IOException {
                    Compactor.prepare();
                }

                @Override
                public String run(java.time.Instant boundary, java.util.function.BooleanSupplier stop) throws IOException {
                    if (!java.nio.file.Files.isDirectory(dir)) {
                        return null; // nothing stored yet
                    }
                    try {
                        Compactor.Result r = Compactor.compact(dir, writer, boundary, stop);
                        return r.inputs() == 0 && !r.locked() ? null : r.describe();
                    } finally {
                        org.stackfold.io.ResidentPages.releaseCode("libduckdb_java");
                    }
                }
            };
        }

        @Override
        public String name() {
            return "--store " + dir;
        }

        @Override
        public void sendAll(List<IntervalProfile> ps) throws IOException {
            List<StoredProfile> rows = new ArrayList<>();
            for (IntervalProfile p : ps) {
                rows.add(new StoredProfile(source, p.profile(), Labels.of(p.labels()), p.start()));
            }
            try {
                FleetStore.store(dir, rows, writer);
            } catch (InputException e) {
                throw new IOException(e.getMessage(), e);
            } finally {
                // DuckDB's code (~30 MB resident after a store) is needed again only a minute later.
                org.stackfold.io.ResidentPages.releaseCode("libduckdb_java");
            }
        }

        @Override
        public void send(IntervalProfile p) throws IOException {
            sendAll(List.of(p));
        }
    }

    /** {@code --push URL}: one attempt an interval (the agent retries with its own back-off, from its queue). */
    private static final class PushDestination implements Destination {
        private final ProfilePusher pusher;
        private final String app;
        private final int frequency;
        private final String shown;

        PushDestination(RecordCommand c, int frequency) {
            c.push.options.attempts = 1;
            c.push.options.timeout = Math.min(c.push.options.timeout, Math.max(1, c.every));
            this.pusher = c.push.options.pusher(c.push.url());
            this.app = c.push.options.app;
            this.frequency = frequency;
            this.shown = ProfilePusher.shown(c.push.url().toString());
        }

        @Override
        public String name() {
            return "--push " + shown;
        }

        @Override
        public void send(IntervalProfile p) throws IOException, InterruptedException {
            try {
                pusher.push(p.profile(), new Upload(app, p.labels(), p.start(), p.end(), frequency));
            } catch (PushException e) {
                throw new IOException(e.getMessage(), e);
            }
        }
    }

    /** Reads {@code --config FILE}: {@code name = value} lines (or {@code name} for a flag), # comments; as options. */
    static List<String> configArgs(Path file) {
        List<String> args = new ArrayList<>();
        int n = 0;
        for (String line : org.stackfold.io.TextFiles.readLines(file)) {
            n++;
            String l = line.strip();
            if (l.isEmpty() || l.startsWith("#")) {
                continue;
            }
            int eq = l.indexOf('=');
            String name = (eq < 0 ? l : l.substring(0, eq)).strip();
            if (!name.matches("[a-z][a-z0-9-]*") || name.equals("config")) {
                throw new InputException(file + ":" + n + ": '" + org.stackfold.io.Printable.of(name)
                        + "' is not an option name (lines are NAME = VALUE, as --NAME VALUE)");
            }
            args.add("--" + name);
            if (eq >= 0) {
                args.add(l.substring(eq + 1).strip());
            }
        }
        return args;
    }
}
