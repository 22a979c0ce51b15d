package org.stackfold.record.agent;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.stackfold.model.Profile;

/**
 * One interval of the agent: its profile, when it began and how long it lasted, and its labels
 * ({@code host}, {@code service}, {@code interval_s}, and what the user gave).
 */
public record IntervalProfile(Profile profile, Instant start, Duration duration, Map<String, String> labels,
                              long samples) {
    public Instant end() {
        return start.plus(duration);
    }
}
