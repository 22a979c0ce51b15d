package org.stackfold.record.agent;

import java.io.IOException;

/** Where the agent sends each interval's profile: a file, the fleet table, a server. */
public interface Destination {
    /** How messages name it: {@code -o cpu-%Y.folded}, {@code --store fleet}, {@code --push http://...}. */
    String name();

    /** Sends one interval; throws with one line saying why it could not. */
    void send(IntervalProfile interval) throws IOException, InterruptedException;

    /**
     * How long intervals wait in the queue to be sent together (zero: each at once). The fleet table
     * takes a minute's intervals in one store: one Parquet file a minute instead of one an interval.
     */
    default java.time.Duration batch() {
        return java.time.Duration.ZERO;
    }

    /** Sends several intervals, oldest first (a batch); by default one at a time. */
    default void sendAll(java.util.List<IntervalProfile> intervals) throws IOException, InterruptedException {
        for (IntervalProfile p : intervals) {
            send(p);
        }
    }

    /** Whether an interval that could not be sent waits in the on-disk queue (the table, a server) or is dropped (a file). */
    default boolean queued() {
        return true;
    }
}
