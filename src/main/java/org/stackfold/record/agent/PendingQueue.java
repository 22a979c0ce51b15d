package org.stackfold.record.agent;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.Formats;
import org.stackfold.format.ProfileFormat;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * The agent's profiles that could not be sent yet, on disk: one file per (interval, destination),
 * {@code SEQUENCE-DEST.pending}, a short header (start, duration, samples, labels) and the profile as
 * folded stacks. Bounded by total size and by age: past either limit the oldest files are dropped,
 * and each drop is counted. Memory holds only the file list, never the profiles. Used by one thread.
 * Files of an earlier run are picked up again (their sequence numbers continue).
 */
public final class PendingQueue {
    private static final String MAGIC = "stackfold-agent-pending 1";
    private static final ProfileFormat FOLDED = Formats.byName("folded");

    /** One queued profile: its file, destination index, size and interval start. */
    record Item(Path file, long sequence, int destination, long bytes, Instant start) {
    }

    private final Path dir;
    private final long maxBytes;
    private final Duration maxAge;
    private final List<Item> items = new ArrayList<>();
    private long sequence;
    private volatile long bytes;
    private volatile int size;
    private volatile long dropped;

    public PendingQueue(Path dir, long maxBytes, Duration maxAge) throws IOException {
        this.dir = dir;
        this.maxBytes = maxBytes;
        this.maxAge = maxAge;
        Files.createDirectories(dir);
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.pending")) {
            for (Path f : files) {
                String n = f.getFileName().toString();
                int dash = n.indexOf('-');
                try {
                    long seq = Long.parseLong(n.substring(0, dash));
                    int dest = Integer.parseInt(n.substring(dash + 1, n.length() - ".pending".length()));
                    items.add(new Item(f, seq, dest, Files.size(f), header(f).start));
                    sequence = Math.max(sequence, seq + 1);
                } catch (IOException | RuntimeException e) {
                    Files.deleteIfExists(f); // not ours, or cut short by a crash: not worth a warning each start
                }
            }
        }
        items.sort((a, b) -> Long.compare(a.sequence, b.sequence));
        recount();
    }

    public Path dir() {
        return dir;
    }

    /** Profiles waiting. */
    public synchronized int size() {
        return size;
    }

    public synchronized long bytes() {
        return bytes;
    }

    /** The size limit: past it the oldest profiles are dropped. */
    public long maxBytes() {
        return maxBytes;
    }

    /** Profiles dropped so far: past the size or age limit, or not writable. */
    public synchronized long dropped() {
        return dropped;
    }

    /** Counts a profile that could not even be queued (the disk is full). */
    synchronized void droppedOne() {
        dropped++;
    }

    /** Whether profiles of destination {@code d} are waiting. */
    synchronized boolean has(int d) {
        return oldest(d) != null;
    }

    /** Queues an interval for destination {@code d}; drops the oldest past the limits. */
    synchronized void add(int d, IntervalProfile p) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringBuilder labels = new StringBuilder();
        p.labels().forEach((k, v) -> labels.append(labels.isEmpty() ? "" : ",").append(k).append('=').append(v));
        out.write((MAGIC + "\nstart " + p.start().toEpochMilli() + "\nduration " + p.duration().toMillis()
                + "\nsamples " + p.samples() + "\nlabels " + labels + "\n").getBytes(StandardCharsets.UTF_8));
        FOLDED.write(p.profile(), out, FormatOptions.none());
        long seq = sequence++;
        Path file = dir.resolve(String.format("%012d-%d.pending", seq, d));
        Path temp = dir.resolve("." + file.getFileName() + ".tmp");
        try {
            Files.write(temp, out.toByteArray());
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
        items.add(new Item(file, seq, d, out.size(), p.start()));
        recount();
        trim(Instant.now());
    }

    /** Drops the oldest profiles past the age limit, then past the size limit. */
    synchronized void trim(Instant now) {
        while (!items.isEmpty()) {
            Item oldest = items.getFirst();
            boolean tooOld = Duration.between(oldest.start, now).compareTo(maxAge) > 0;
            if (!tooOld && bytes <= maxBytes) {
                break;
            }
            remove(oldest);
            dropped++;
        }
    }

    /** The oldest profile waiting for destination {@code d}, or null. */
    synchronized Item oldest(int d) {
        for (Item i : items) {
            if (i.destination == d) {
                return i;
            }
        }
        return null;
    }

    /** The oldest {@code max} profiles waiting for destination {@code d}, oldest first. */
    synchronized List<Item> oldest(int d, int max) {
        List<Item> out = new ArrayList<>();
        for (Item i : items) {
            if (i.destination == d && out.size() < max) {
                out.add(i);
            }
        }
        return out;
    }

    /** Reads a queued profile back. */
    IntervalProfile read(Item item) throws IOException {
        byte[] all = Files.readAllBytes(item.file);
        Header h = header(item.file, all);
        Profile profile = FOLDED.read(Input.ofBytes(item.file.toString(),
                java.util.Arrays.copyOfRange(all, h.length, all.length)), FormatOptions.none());
        return new IntervalProfile(profile, h.start, h.duration, h.labels, h.samples);
    }

    /** Removes a sent (or dropped) profile. */
    synchronized void remove(Item item) {
        items.remove(item);
        try {
            Files.deleteIfExists(item.file);
        } catch (IOException e) {
            // gone with its directory; the list no longer holds it either way
        }
        recount();
    }

    private void recount() {
        long b = 0;
        for (Item i : items) {
            b += i.bytes;
        }
        bytes = b;
        size = items.size();
    }

    private record Header(Instant start, Duration duration, long samples, Map<String, String> labels, int length) {
    }

    private static Header header(Path f) throws IOException {
        byte[] head;
        try (var in = Files.newInputStream(f)) {
            head = in.readNBytes(64 * 1024);
        }
        return header(f, head);
    }

    /** The header at the start of {@code head}: only its five lines are decoded, not the profile after them. */
    private static Header header(Path f, byte[] head) throws IOException {
        int end = 0;
        for (int lines = 0; end < head.length && lines < 5; end++) {
            if (head[end] == '\n') {
                lines++;
            }
        }
        String text = new String(head, 0, end, StandardCharsets.UTF_8) + "\n";
        String[] lines = text.split("\n", 6);
        if (lines.length < 6 || !lines[0].equals(MAGIC)) {
            throw new IOException(f + ": not a queued profile");
        }
        Instant start = Instant.ofEpochMilli(Long.parseLong(lines[1].substring("start ".length())));
        Duration duration = Duration.ofMillis(Long.parseLong(lines[2].substring("duration ".length())));
        long samples = Long.parseLong(lines[3].substring("samples ".length()));
        Map<String, String> labels = new TreeMap<>();
        String l = lines[4].substring("labels ".length());
        if (!l.isEmpty()) {
            for (String kv : l.split(",")) {
                int eq = kv.indexOf('=');
                labels.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        int length = 0;
        for (int i = 0; i < 5; i++) {
            length += lines[i].getBytes(StandardCharsets.UTF_8).length + 1;
        }
        return new Header(start, duration, samples, labels, length);
    }
}
