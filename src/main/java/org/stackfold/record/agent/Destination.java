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

    /**
     * Work the destination does now and then on the agent's own low-priority thread, never on the
     * output thread (the fleet table's compaction); none by default.
     */
    default Upkeep upkeep() {
        return null;
    }

    /** Periodic work of a destination, run by the agent at each multiple of {@link #every} since the epoch. */
    interface Upkeep {
        /** How often: at each multiple of this since the epoch (3600 s: on the hour), and once when the agent starts. */
        java.time.Duration every();

        /**
         * Called once on the upkeep thread before it lowers its priority: what the work shares with
         * other threads (classes to initialise, a native library) is loaded at the agent's priority.
         */
        default void prepare() throws IOException {
        }

        /**
         * Does the work for what was written before {@code boundary} (the multiple just passed); returns
         * a line for the log, or null for nothing to say. {@code stop} turns true when the agent stops:
         * the work ends at its next safe point.
         */
        String run(java.time.Instant boundary, java.util.function.BooleanSupplier stop) throws IOException;
    }

    /** Whether an interval that could not be sent waits in the on-disk queue (the table, a server) or is dropped (a file). */
    default boolean queued() {
        return true;
    }
}
