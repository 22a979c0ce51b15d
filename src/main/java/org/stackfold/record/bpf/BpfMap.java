package org.stackfold.record.bpf;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * A BPF map this process created, read and written through raw bpf(2) commands. Not thread-safe:
 * one thread drains a map (the attribute buffer is reused).
 */
public final class BpfMap implements AutoCloseable {
    private final String name;
    private final int fd;
    private final int keySize;
    private final int valueSize;
    private final int maxEntries;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment attr = arena.allocate(Bpf.ATTR_SIZE, 8);

    private BpfMap(String name, int fd, int keySize, int valueSize, int maxEntries) {
        this.name = name;
        this.fd = fd;
        this.keySize = keySize;
        this.valueSize = valueSize;
        this.maxEntries = maxEntries;
    }

    /** BPF_MAP_CREATE: {@code map_type@0 key_size@4 value_size@8 max_entries@12 map_flags@16 map_name[16]@28}. */
    public static BpfMap create(String name, int type, int keySize, int valueSize, int maxEntries) throws ErrnoException {
        return create(name, type, keySize, valueSize, maxEntries, 0, -1);
    }

    /** As {@link #create(String, int, int, int, int)} with {@code map_flags@16} and {@code inner_map_fd@20} (-1: none). */
    public static BpfMap create(String name, int type, int keySize, int valueSize, int maxEntries, int flags,
                                int innerMapFd) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = a.allocate(Bpf.ATTR_SIZE, 8);
            attr.set(ValueLayout.JAVA_INT, 0, type);
            attr.set(ValueLayout.JAVA_INT, 4, keySize);
            attr.set(ValueLayout.JAVA_INT, 8, valueSize);
            attr.set(ValueLayout.JAVA_INT, 12, maxEntries);
            attr.set(ValueLayout.JAVA_INT, 16, flags);
            if (innerMapFd >= 0) {
                attr.set(ValueLayout.JAVA_INT, 20, innerMapFd);
            }
            byte[] n = name.getBytes(StandardCharsets.US_ASCII);
            MemorySegment.copy(n, 0, attr, ValueLayout.JAVA_BYTE, 28, Math.min(n.length, 15));
            int fd = (int) Syscalls.bpf(Bpf.MAP_CREATE, attr, "creating BPF map " + name + " (" + maxEntries
                    + " entries of " + valueSize + " bytes)");
            return new BpfMap(name, fd, keySize, valueSize, maxEntries);
        }
    }

    public int fd() {
        return fd;
    }

    public String name() {
        return name;
    }

    public int keySize() {
        return keySize;
    }

    public int valueSize() {
        return valueSize;
    }

    public int maxEntries() {
        return maxEntries;
    }

    /** {@code map_fd@0 key@8 value|next_key@16 flags@24}. */
    private MemorySegment elemAttr(MemorySegment key, MemorySegment value, long flags) {
        attr.fill((byte) 0);
        attr.set(ValueLayout.JAVA_INT, 0, fd);
        attr.set(ValueLayout.JAVA_LONG, 8, key == null ? 0 : key.address());
        attr.set(ValueLayout.JAVA_LONG, 16, value == null ? 0 : value.address());
        attr.set(ValueLayout.JAVA_LONG, 24, flags);
        return attr;
    }

    /** Copies the value of {@code key} into {@code value}; false when the key is absent. */
    public boolean lookup(MemorySegment key, MemorySegment value) throws ErrnoException {
        return absentIsFalse(Bpf.MAP_LOOKUP_ELEM, key, value, 0, "looking up");
    }

    /** Atomically reads and removes {@code key}; false when it is absent (hash maps, Linux 5.14 and later). */
    public boolean lookupAndDelete(MemorySegment key, MemorySegment value) throws ErrnoException {
        return absentIsFalse(Bpf.MAP_LOOKUP_AND_DELETE_ELEM, key, value, 0, "draining");
    }

    /** The key after {@code key} (the first key when null) into {@code next}; false at the end. */
    public boolean nextKey(MemorySegment key, MemorySegment next) throws ErrnoException {
        return absentIsFalse(Bpf.MAP_GET_NEXT_KEY, key, next, 0, "iterating");
    }

    /** Removes {@code key}; false when it was absent. */
    public boolean delete(MemorySegment key) throws ErrnoException {
        return absentIsFalse(Bpf.MAP_DELETE_ELEM, key, null, 0, "deleting from");
    }

    /** Receives one batch: its entries are the first {@code n} of the key and value buffers. */
    public interface BatchSink {
        void accept(int n) throws java.io.IOException;
    }

    /**
     * BPF_MAP_LOOKUP_AND_DELETE_BATCH (or BPF_MAP_LOOKUP_BATCH when {@code delete} is false) over the whole
     * map, {@code keys.byteSize() / keySize} entries a call at most: each call's keys and values land at
     * the start of {@code keys} and {@code values} and go to {@code sink} before the next call. Returns how
     * many entries were read. Hash maps, Linux 5.6 and later: older kernels and other map types refuse the
     * command ({@link #batchRefused}), and the caller then uses the per-entry calls.
     */
    public long batch(boolean delete, MemorySegment keys, MemorySegment values, BatchSink sink)
            throws java.io.IOException {
        int capacity = (int) Math.min(keys.byteSize() / keySize, values.byteSize() / valueSize);
        long total = 0;
        // The batch token of a hash map is a bucket index (u32); two 8-byte slots used in turn.
        MemorySegment tokens = batchTokens();
        long in = 0;
        for (int turn = 0; ; turn++) {
            MemorySegment out = tokens.asSlice(8L * (turn & 1), 8);
            attr.fill((byte) 0);
            attr.set(ValueLayout.JAVA_LONG, 0, in);
            attr.set(ValueLayout.JAVA_LONG, 8, out.address());
            attr.set(ValueLayout.JAVA_LONG, 16, keys.address());
            attr.set(ValueLayout.JAVA_LONG, 24, values.address());
            attr.set(ValueLayout.JAVA_INT, 32, capacity);
            attr.set(ValueLayout.JAVA_INT, 36, fd);
            // The end of the map is ENOENT, every drain: an answer, not an exception (an exception a call
            // was a tenth of the agent's drain thread on an idle machine).
            long r = Syscalls.callOrErrno(Syscalls.SYS_BPF, delete ? Bpf.MAP_LOOKUP_AND_DELETE_BATCH : Bpf.MAP_LOOKUP_BATCH,
                    attr.address(), attr.byteSize(), 0, 0);
            if (r < 0 && r != -ErrnoException.ENOENT) {
                throw new ErrnoException((delete ? "draining" : "reading") + " BPF map " + name + " in batches", (int) -r);
            }
            boolean end = r < 0; // the end of the map: count says how many came with it
            int n = attr.get(ValueLayout.JAVA_INT, 32);
            if (n > 0) {
                total += n;
                sink.accept(n);
            }
            if (end) {
                return total;
            }
            in = out.address();
        }
    }

    private MemorySegment tokens;

    private MemorySegment batchTokens() {
        if (tokens == null) {
            tokens = arena.allocate(16, 8);
        }
        return tokens;
    }

    /** Whether an errno from {@link #batch} means the kernel has no batch operation for this map (use per-entry calls). */
    public static boolean batchRefused(ErrnoException e) {
        int n = e.errno();
        return n == ErrnoException.EINVAL || n == ErrnoException.ENOSYS || n == ENOTSUPP || n == EOPNOTSUPP
                || n == ErrnoException.EPERM;
    }

    /** The kernel's internal ENOTSUPP (524) and EOPNOTSUPP (95). */
    private static final int ENOTSUPP = 524, EOPNOTSUPP = 95;

    /**
     * BPF_MAP_UPDATE_BATCH (or, with {@code values} null, BPF_MAP_DELETE_BATCH) of the first {@code n}
     * keys (and values) of the buffers, in one call: the kernel goes through them in order and stops at
     * the first that fails. Returns {@code n}; an entry that failed throws an {@link BatchException}
     * saying how many went through before it. Linux 5.6 and later (LPM tries: the generic batch
     * commands); a kernel without them refuses at once ({@link #batchRefused}, none done).
     */
    public int batchWrite(MemorySegment keys, MemorySegment values, int n, long elemFlags) throws ErrnoException {
        if (n == 0) {
            return 0;
        }
        attr.fill((byte) 0);
        attr.set(ValueLayout.JAVA_LONG, 16, keys.address());
        attr.set(ValueLayout.JAVA_LONG, 24, values == null ? 0 : values.address());
        attr.set(ValueLayout.JAVA_INT, 32, n);
        attr.set(ValueLayout.JAVA_INT, 36, fd);
        attr.set(ValueLayout.JAVA_LONG, 40, elemFlags);
        try {
            Syscalls.bpf(values == null ? Bpf.MAP_DELETE_BATCH : Bpf.MAP_UPDATE_BATCH, attr,
                    (values == null ? "deleting from" : "updating") + " BPF map " + name + " in a batch");
        } catch (ErrnoException e) {
            throw new BatchException(e, attr.get(ValueLayout.JAVA_INT, 32));
        }
        return n;
    }

    /** A batch write that stopped: {@link #done} entries went through, the next one failed with this errno. */
    public static final class BatchException extends ErrnoException {
        private final int done;

        BatchException(ErrnoException e, int done) {
            super(e);
            this.done = done;
        }

        public int done() {
            return done;
        }
    }

    public void update(MemorySegment key, MemorySegment value, long flags) throws ErrnoException {
        Syscalls.bpf(Bpf.MAP_UPDATE_ELEM, elemAttr(key, value, flags), "updating BPF map " + name);
    }

    private boolean absentIsFalse(int cmd, MemorySegment key, MemorySegment value, long flags, String what)
            throws ErrnoException {
        MemorySegment a = elemAttr(key, value, flags);
        long r = Syscalls.callOrErrno(Syscalls.SYS_BPF, cmd, a.address(), a.byteSize(), 0, 0);
        if (r >= 0) {
            return true;
        } else if (r == -ErrnoException.ENOENT) {
            return false; // no exception nor message for the expected answer (the end of every iteration)
        }
        throw new ErrnoException(what + " BPF map " + name, (int) -r);
    }

    /**
     * Copies {@code bytes} to the start of this array map's values through a shared mapping of the map
     * (created with {@link Bpf#F_MMAPABLE}; values are 8-byte aligned, so 8-byte values are contiguous).
     */
    public void writeMapped(MemorySegment bytes) throws ErrnoException {
        long length = Math.max(Syscalls.PAGE, (bytes.byteSize() + Syscalls.PAGE - 1) / Syscalls.PAGE * Syscalls.PAGE);
        long address = Syscalls.mmapShared(fd, length, "mapping BPF map " + name);
        try {
            MemorySegment.copy(bytes, 0, MemorySegment.ofAddress(address).reinterpret(length), 0, bytes.byteSize());
        } finally {
            Syscalls.munmap(address, length);
        }
    }

    @Override
    public void close() {
        Syscalls.close(fd);
        arena.close();
    }
}
