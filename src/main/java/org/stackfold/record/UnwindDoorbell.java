package org.stackfold.record;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import org.stackfold.record.bpf.Bpf;
import org.stackfold.record.bpf.BpfMap;
import org.stackfold.record.bpf.ErrnoException;
import org.stackfold.record.bpf.Syscalls;

/**
 * How the BPF programs wake the unwind worker: a one-page {@code BPF_MAP_TYPE_RINGBUF} they write a
 * record to ({@code bpf_ringbuf_output} with {@code BPF_RB_FORCE_WAKEUP}) when they put a pid into one
 * of the worker's maps for the first time ({@code BPF_NOEXIST}), and that the worker blocks on with
 * {@code poll(2)}. The records only ring the bell: what to do is in the maps, so the worker skips them
 * by moving its consumer position to the producer's. An idle worker sleeps in {@code poll} and costs
 * nothing; {@link #close} wakes it through an eventfd. A full ring drops a record, never a pid: the
 * ring is not empty then, so the next {@link #await} returns at once.
 */
final class UnwindDoorbell implements AutoCloseable {
    static final int RING_BYTES = 4096;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    final BpfMap ring;
    private final int stopFd;
    private final long consumer;
    private final long producer;
    private final MemorySegment consumerPos;
    private final MemorySegment producerPos;
    private volatile boolean closed;

    UnwindDoorbell() throws ErrnoException {
        BpfMap r = BpfMap.create("sf_wake", Bpf.MAP_TYPE_RINGBUF, 0, 0, RING_BYTES);
        int stop = -1;
        long c = 0, p = 0;
        try {
            stop = Syscalls.eventFd();
            c = Syscalls.mmapShared(r.fd(), Syscalls.PAGE, true, 0, "mapping the unwind worker's ring buffer");
            // The producer page and the data (mapped twice by the kernel) are read-only.
            p = Syscalls.mmapShared(r.fd(), Syscalls.PAGE + 2L * RING_BYTES, false, Syscalls.PAGE,
                    "mapping the unwind worker's ring buffer");
        } catch (ErrnoException | RuntimeException e) {
            if (c != 0) {
                Syscalls.munmap(c, Syscalls.PAGE);
            }
            Syscalls.close(stop);
            r.close();
            throw e;
        }
        ring = r;
        stopFd = stop;
        consumer = c;
        producer = p;
        consumerPos = MemorySegment.ofAddress(c).reinterpret(8);
        producerPos = MemorySegment.ofAddress(p).reinterpret(8);
    }

    /**
     * Waits until a program rings, {@code timeoutMillis} pass (&lt; 0: no limit) or {@link #close} is
     * called; skips what was written. True when it rang (or may have), false on a timeout.
     */
    boolean await(int timeoutMillis) throws ErrnoException {
        if (closed) {
            return false;
        }
        int ready = Syscalls.pollIn(new int[] {ring.fd(), stopFd}, timeoutMillis);
        skip();
        return (ready & 1) != 0;
    }

    /** Moves the consumer position to the producer's: every record so far is read. */
    void skip() {
        long prod = (long) LONG.getAcquire(producerPos, 0L);
        LONG.setRelease(consumerPos, 0L, prod);
    }

    /** Whether {@link #close} was called. */
    boolean closed() {
        return closed;
    }

    /** Wakes a waiting {@link #await} for good (the worker then ends). */
    void stop() {
        closed = true;
        try {
            Syscalls.signal(stopFd);
        } catch (ErrnoException ignored) {
            // The descriptor is ours and open: writing 1 to it does not fail.
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            Syscalls.munmap(producer, Syscalls.PAGE + 2L * RING_BYTES);
            Syscalls.munmap(consumer, Syscalls.PAGE);
        } catch (ErrnoException ignored) {
            // Our own mappings of our own descriptor.
        }
        Syscalls.close(stopFd);
        ring.close();
    }
}
