package org.stackfold.format.otlp;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What an OTLP profile says beyond the samples, which Stackfold's profile model does not hold: when it
 * was taken, the resource it describes ({@code service.name} and other resource attributes) and the
 * sampling period.
 *
 * @param start         the profile's {@code time_unix_nano}; null: the time of writing minus the duration
 * @param durationNanos the profile's {@code duration_nano}; negative: the timeline's span, else 0
 * @param resource      resource attributes, written in this order
 * @param sampleRateHz  the sampling frequency, written as {@code period} of type (cpu, nanoseconds); 0: none
 * @param observations  whether a timeline may be written as per-observation values and timestamps; false
 *                      gives one value a sample, which Pyroscope's OTLP receiver (v2.2.1) requires
 */
public record OtlpMeta(Instant start, long durationNanos, Map<String, String> resource, int sampleRateHz,
                       boolean observations) {
    public OtlpMeta {
        resource = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(resource));
    }

    /** What {@code convert} writes: the time of writing, the duration the timeline shows, no resource. */
    public static OtlpMeta defaults() {
        return new OtlpMeta(null, -1, Map.of(), 0, true);
    }
}
