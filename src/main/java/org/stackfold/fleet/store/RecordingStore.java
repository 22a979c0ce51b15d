package org.stackfold.fleet.store;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.stackfold.model.Profile;

/**
 * What {@code record --store DIR} adds to a fleet table: the recorded profile with its labels and the
 * time the recording started. {@link #begin} runs before the recording, so a mistyped label fails at
 * once instead of after a long recording, and a recorded process's name is read while it lives;
 * {@link #store} runs after it.
 *
 * <p>Labels not given default as docs/fleet.md says: {@code host} to this machine's host name,
 * {@code service} to the recorded command's name, else the first recorded process's name, else
 * {@value #WHOLE_SYSTEM} for a whole-system recording.
 */
public final class RecordingStore {
    /** The service of a whole-system recording without a service label. */
    static final String WHOLE_SYSTEM = "system";

    private final Path dir;
    private final Labels labels;
    private final String source;
    private final Instant started;

    private RecordingStore(Path dir, Labels labels, String source, Instant started) {
        this.dir = dir;
        this.labels = labels;
        this.source = source;
        this.started = started;
    }

    /**
     * Checks the labels and notes the start time; {@code command} and {@code pids} are what is recorded
     * (both empty: the whole system).
     */
    public static RecordingStore begin(Path dir, List<String> labels, List<String> command, List<Integer> pids) {
        Labels l = labels(labels, command, pids, RecordingStore::processName, hostName());
        return new RecordingStore(dir, l, source(command, pids), Instant.now());
    }

    /** The labels the profile is stored with (host and service filled in). */
    public Labels labels() {
        return labels;
    }

    /** The {@code profile} column's value: what was recorded. */
    public String source() {
        return source;
    }

    /** Adds the recorded profile to the table and says so on {@code err}. */
    public FleetStore.Written store(Profile profile, PrintWriter err) throws IOException {
        FleetStore.Written w = FleetStore.store(dir, List.of(new StoredProfile(source, profile, labels, started)));
        if (w.rows() == 0) {
            err.println("stackfold: the recording has no samples; nothing stored in " + dir);
        } else {
            err.printf("stackfold: stored the profile (%d stacks, %d samples) in %s as service=%s host=%s%s%n",
                    w.rows(), w.samples(), dir, labels.service(), labels.host(),
                    labels.others().isEmpty() ? "" : " " + labels.others());
        }
        return w;
    }

    /** The labels given, with {@code host} and {@code service} filled in when missing. */
    static Labels labels(List<String> given, List<String> command, List<Integer> pids,
                         IntFunction<String> processName, String hostName) {
        Map<String, String> all = Labels.map(given);
        if (!all.containsKey("host") && hostName != null) {
            String host = labelValue(hostName);
            if (!host.isEmpty()) {
                all.put("host", host);
            }
        }
        if (!all.containsKey("service")) {
            String name = "";
            if (!command.isEmpty()) {
                name = labelValue(Path.of(command.getFirst()).getFileName().toString());
            } else if (!pids.isEmpty()) {
                name = labelValue(processName.apply(pids.getFirst()));
            }
            all.put("service", name.isEmpty() ? WHOLE_SYSTEM : name);
        }
        return Labels.of(all);
    }

    /**
     * A name made fit for a label value: characters other than letters, digits, {@code _ . -} become
     * {@code _} (a {@code /} in a process name like {@code kworker/0:1} would nest partition
     * directories), as does a {@code ..}; {@code null} and blank names give "".
     */
    static String labelValue(String name) {
        if (name == null) {
            return "";
        }
        StringBuilder b = new StringBuilder();
        for (char c : name.strip().toCharArray()) {
            boolean ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.'
                    || c == '-';
            b.append(ok ? c : '_');
        }
        return b.toString().replace("..", "__");
    }

    /** The {@code profile} column: what was recorded. */
    static String source(List<String> command, List<Integer> pids) {
        if (!command.isEmpty()) {
            return "record -- " + String.join(" ", command);
        }
        if (!pids.isEmpty()) {
            List<String> p = new ArrayList<>();
            pids.forEach(pid -> p.add(pid.toString()));
            return "record -p " + String.join(",", p);
        }
        return "record";
    }

    /** A process's name ({@code comm}), or null once it has gone. */
    private static String processName(int pid) {
        try {
            return proc(Path.of("/proc", Integer.toString(pid), "comm")).strip();
        } catch (IOException e) {
            return null;
        }
    }

    /** A /proc file through a stream (they report a size of 0, and Files.readString may return only a first byte). */
    private static String proc(Path p) throws IOException {
        try (java.io.InputStream in = Files.newInputStream(p)) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    /** The kernel's host name (no DNS lookup, unlike InetAddress), else HOSTNAME, else none. */
    private static String hostName() {
        try {
            return proc(Path.of("/proc/sys/kernel/hostname")).strip();
        } catch (IOException e) {
            return System.getenv("HOSTNAME");
        }
    }
}
