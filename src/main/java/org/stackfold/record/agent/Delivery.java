package org.stackfold.record.agent;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Sends intervals to one {@link Destination}, on the agent's output thread: a failure puts the
 * interval in the {@link PendingQueue} (or drops it, for a file) and backs off (5 s, doubling to 5
 * minutes); once the back-off is over the oldest queued interval is tried again first, so intervals
 * arrive in order. Failures are reported on stderr once a minute at most, with what is queued and
 * dropped, and a recovery once.
 */
final class Delivery {
    static final Duration FIRST_BACKOFF = Duration.ofSeconds(5);
    static final Duration MAX_BACKOFF = Duration.ofMinutes(5);
    static final Duration REPORT_EVERY = Duration.ofMinutes(1);

    private final Destination destination;
    private final int index;
    private final PendingQueue queue;
    private final PrintWriter err;
    private Duration backoff = Duration.ZERO;
    private Instant retryAt = Instant.MIN;
    private Instant reportedAt = Instant.MIN;
    private long failures;
    private long suppressed;
    private volatile long sent;
    private volatile long dropped;

    Delivery(Destination destination, int index, PendingQueue queue, PrintWriter err) {
        this.destination = destination;
        this.index = index;
        this.queue = destination.queued() ? queue : null;
        this.err = err;
    }

    long sent() {
        return sent;
    }

    long dropped() {
        return dropped;
    }

    /** SIGHUP: the next retry is now. */
    void backoffOver() {
        retryAt = Instant.MIN;
    }

    /**
     * Profiles a batch sends at most, and their queued bytes at most (a long outage is caught up a
     * batch at a time, in bounded memory; with --split, an interval is many profiles).
     */
    static final int BATCH_MAX = 4096;
    static final long BATCH_BYTES = 16 << 20;

    /** Sends {@code p} now, or queues it behind earlier ones while they wait (or until its batch is due). */
    void deliver(IntervalProfile p, Instant now) throws InterruptedException {
        boolean batched = queue != null && !destination.batch().isZero();
        if (queue != null && (batched || now.isBefore(retryAt) || queue.has(index))) {
            if (enqueue(p, null) || !batched) {
                retry(now, false);
                return;
            }
            // The queue cannot take it (a full disk): the batch is this interval alone, now.
        }
        try {
            destination.send(p);
            succeeded();
        } catch (IOException | RuntimeException e) {
            failed(e, now);
            enqueue(p, e);
        }
    }

    /**
     * Sends queued intervals, oldest first, while they go through (once the back-off is over); a
     * batched destination's once the oldest has waited its batch time, or at once with {@code flush}.
     */
    void retry(Instant now, boolean flush) throws InterruptedException {
        if (queue == null) {
            return;
        }
        queue.trim(now);
        boolean batched = !destination.batch().isZero();
        while (!now.isBefore(retryAt)) {
            List<PendingQueue.Item> items = queue.oldest(index, batched ? BATCH_MAX : 1);
            if (items.isEmpty()) {
                return;
            }
            long bytes = 0;
            for (int i = 0; i < items.size(); i++) {
                bytes += items.get(i).bytes();
                if (i > 0 && bytes > BATCH_BYTES) {
                    items = items.subList(0, i);
                    break;
                }
            }
            // A batch is due after its time, or once it fills half the queue: a batch waiting for its
            // time in a queue too small for it would lose its oldest intervals to the size limit, one
            // by one, and never be sent (nor its destination's failure ever be seen).
            if (batched && !flush && bytes <= BATCH_BYTES && items.size() < BATCH_MAX
                    && queue.bytes() <= queue.maxBytes() / 2
                    && Duration.between(items.getFirst().start(), now).compareTo(destination.batch()) < 0) {
                return; // not due yet
            }
            List<IntervalProfile> ps = new ArrayList<>();
            List<PendingQueue.Item> read = new ArrayList<>();
            for (PendingQueue.Item item : items) {
                try {
                    ps.add(queue.read(item));
                    read.add(item);
                } catch (IOException | RuntimeException e) {
                    queue.remove(item); // unreadable (the directory went away): nothing to retry
                }
            }
            if (ps.isEmpty()) {
                continue;
            }
            try {
                destination.sendAll(ps);
                for (PendingQueue.Item item : read) {
                    queue.remove(item);
                }
                sent += ps.size() - 1; // succeeded() counts one
                succeeded();
            } catch (IOException | RuntimeException e) {
                failed(e, now);
                return;
            }
        }
    }

    /** Queues an interval (a file's is dropped); false where the queue could not take it (counted as dropped). */
    private boolean enqueue(IntervalProfile p, Exception cause) {
        if (queue == null) {
            dropped++;
            return false;
        }
        try {
            queue.add(index, p);
            return true;
        } catch (IOException | RuntimeException e) {
            queue.droppedOne();
            report(Instant.now(), "could not queue an interval in " + queue.dir() + ": " + oneLine(e));
            return false;
        }
    }

    private void succeeded() {
        sent++;
        if (failures > 0) {
            err.println("stackfold: agent: " + destination.name() + ": sending again after " + failures
                    + " failure" + (failures == 1 ? "" : "s"));
            err.flush();
        }
        failures = 0;
        suppressed = 0;
        backoff = Duration.ZERO;
        retryAt = Instant.MIN;
        reportedAt = Instant.MIN;
    }

    private void failed(Exception e, Instant now) {
        failures++;
        backoff = backoff.isZero() ? FIRST_BACKOFF : min(backoff.multipliedBy(2), MAX_BACKOFF);
        retryAt = now.plus(backoff);
        String queued = queue == null ? "the interval is dropped (" + dropped + " so far)"
                : queue.size() + " interval" + (queue.size() == 1 ? "" : "s") + " queued, " + queue.dropped() + " dropped";
        report(now, oneLine(e) + "; " + queued + "; next try in " + backoff.toSeconds() + " s");
    }

    /** One line on stderr, at most once a minute per destination (the rest counted and said with the next). */
    private void report(Instant now, String message) {
        if (now.isBefore(reportedAt.plus(REPORT_EVERY))) {
            suppressed++;
            return;
        }
        reportedAt = now;
        err.println("stackfold: agent: " + destination.name() + ": " + message
                + (suppressed > 0 ? " (" + suppressed + " more failures in the last minute)" : ""));
        err.flush();
        suppressed = 0;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    static String oneLine(Throwable e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
