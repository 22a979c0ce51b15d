package org.stackfold.fleet.push;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one upload says about its profile: the application (Pyroscope's series name, OTLP's
 * {@code service.name}), labels, the profiled time range and the sampling frequency.
 */
public record Upload(String app, Map<String, String> labels, Instant from, Instant until, int sampleRate) {
    public Upload {
        labels = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(labels));
        if (from.isAfter(until)) {
            throw new IllegalArgumentException("from is after until");
        }
    }
}
