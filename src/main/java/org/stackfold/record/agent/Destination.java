package org.stackfold.record.agent;

import java.io.IOException;

/** Where the agent sends each interval's profile: a file, the fleet table, a server. */
public interface Destination {
    /** How messages name it: {@code -o cpu-%Y.folded}, {@code --store fleet}, {@code --push http://...}. */
    String name();

    /** Sends one interval; throws with one line saying why it could not. */
    void send(IntervalProfile interval) throws IOException, InterruptedException;

    /** Whether an interval that could not be sent waits in the on-disk queue (the table, a server) or is dropped (a file). */
    default boolean queued() {
        return true;
    }
}
