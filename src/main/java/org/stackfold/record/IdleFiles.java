package org.stackfold.record;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What the walker keeps of files no process maps any more (their unwind table and program headers),
 * for the next process that maps them: on a host with process churn (~30 new processes a second on a
 * build server) the same compilers, shells and tools start again and again, and each start built
 * their tables again (an {@code .eh_frame} table copied into a new BPF map: half of the unwind
 * worker's time). Least recently released first out, bounded by files, bytes and age; an entry is
 * handed back only if its file is still the one it was built from ({@link Identity}: size,
 * modification and change time), else it is dropped and the file read again. Not thread-safe.
 *
 * @param <V> what is kept of a file
 */
final class IdleFiles<V> {
    /** Size, modification and change time of a file in nanoseconds: a file rewritten in place (or a new file on a reused inode) differs. */
    record Identity(long size, long mtime, long ctime) {
        /** The identity of {@code file} (followed if a link, as /proc/PID/map_files entries are), or null when it cannot be read. */
        static Identity of(Path file) {
            try {
                Map<String, Object> a = Files.readAttributes(file, "unix:size,lastModifiedTime,ctime");
                return new Identity(((Number) a.get("size")).longValue(),
                        ((FileTime) a.get("lastModifiedTime")).to(TimeUnit.NANOSECONDS),
                        ((FileTime) a.get("ctime")).to(TimeUnit.NANOSECONDS));
            } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
                return null;
            }
        }
    }

    private record Entry<V>(V value, long bytes, Identity identity, long since) {
    }

    private final int maxFiles;
    private final long maxBytes;
    private final long maxAgeNanos;
    private final LinkedHashMap<String, Entry<V>> entries = new LinkedHashMap<>();
    private long bytes;

    IdleFiles(int maxFiles, long maxBytes, long maxAgeNanos) {
        this.maxFiles = maxFiles;
        this.maxBytes = maxBytes;
        this.maxAgeNanos = maxAgeNanos;
    }

    /**
     * Keeps {@code value} of the file {@code key} (no process maps it now), as {@code identity} was when it
     * was read; returns what no longer fits (oldest first, possibly {@code value} itself), for the caller to free.
     */
    List<V> put(String key, V value, long bytes, Identity identity, long now) {
        List<V> out = new ArrayList<>();
        Entry<V> old = entries.remove(key);
        if (old != null) {
            this.bytes -= old.bytes();
            out.add(old.value());
        }
        if (identity == null || maxFiles <= 0 || bytes > maxBytes) {
            out.add(value); // cannot be checked later, or never fits
            return out;
        }
        entries.put(key, new Entry<>(value, bytes, identity, now));
        this.bytes += bytes;
        out.addAll(expire(now));
        return out;
    }

    /** Whether {@code key} is kept here (no process maps it). */
    boolean contains(String key) {
        return entries.containsKey(key);
    }

    /** Its identity as it was read, or null when not kept. */
    Identity identity(String key) {
        Entry<V> e = entries.get(key);
        return e == null ? null : e.identity();
    }

    /** Takes the file's value out (a process maps it again); null when not kept. */
    V take(String key) {
        Entry<V> e = entries.remove(key);
        if (e == null) {
            return null;
        }
        bytes -= e.bytes();
        return e.value();
    }

    /** Takes out the oldest entry (its slot is needed), or null when there is none. */
    V takeOldest() {
        Iterator<Map.Entry<String, Entry<V>>> it = entries.entrySet().iterator();
        if (!it.hasNext()) {
            return null;
        }
        Entry<V> e = it.next().getValue();
        it.remove();
        bytes -= e.bytes();
        return e.value();
    }

    /** The key of the oldest entry, or null. */
    String oldestKey() {
        return entries.isEmpty() ? null : entries.keySet().iterator().next();
    }

    /** Takes out what is over the limits or older than the age limit at {@code now}, oldest first. */
    List<V> expire(long now) {
        List<V> out = new ArrayList<>();
        for (Iterator<Entry<V>> it = entries.values().iterator(); it.hasNext(); ) {
            Entry<V> e = it.next();
            if (entries.size() <= maxFiles && bytes <= maxBytes && now - e.since() < maxAgeNanos) {
                break; // the rest are younger
            }
            it.remove();
            bytes -= e.bytes();
            out.add(e.value());
        }
        return out;
    }

    int size() {
        return entries.size();
    }

    long bytes() {
        return bytes;
    }
}
