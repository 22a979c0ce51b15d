package org.stackfold.fleet.push;

import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import org.stackfold.io.Printable;
import org.stackfold.model.Profile;

/**
 * Sends profiles to a continuous-profiling server in one of the {@link Protocol}s, each upload with
 * retries: connection errors, timeouts, HTTP 429 and 5xx are tried again after a back-off that
 * doubles from {@link Target#firstBackoff()}, or after the server's {@code Retry-After} where it sends
 * one (seconds or an HTTP date, at most {@link #MAX_RETRY_AFTER}); other answers fail at once. This
 * is the entry point for {@code push} and {@code record --push}.
 */
public final class ProfilePusher {
    /** The longest {@code Retry-After} honoured; a server asking for more fails the upload. */
    public static final Duration MAX_RETRY_AFTER = Duration.ofMinutes(5);

    /** Where and how to send: the server's base URL, protocol, retries, the time each attempt may take. */
    public record Target(URI base, Protocol protocol, int attempts, Duration timeout, Duration firstBackoff,
                         boolean gzip) {
        public Target {
            if (attempts < 1) {
                throw new IllegalArgumentException("at least one attempt");
            }
        }
    }

    private final Target target;
    private final HttpClient client;

    public ProfilePusher(Target target) {
        this.target = target;
        this.client = HttpClient.newBuilder().connectTimeout(target.timeout())
                .followRedirects(HttpClient.Redirect.NORMAL).build();
    }

    /**
     * Sends one profile; returns the number of attempts it took, or throws naming the URL and the last
     * failure (status and the first line of the answer, or why nothing came back).
     */
    public int push(Profile profile, Upload u) throws IOException, InterruptedException {
        if (profile.tree().isDifferential()) {
            throw new PushException(target.base() + ": a differential profile cannot be pushed; push its two sides");
        }
        Payload p = target.protocol().payload(target.base(), profile, u, target.gzip());
        String where = shown(p.uri());
        HttpRequest.Builder b = HttpRequest.newBuilder(p.uri()).timeout(target.timeout())
                .header("Content-Type", p.contentType()).header("User-Agent", "stackfold")
                .POST(HttpRequest.BodyPublishers.ofByteArray(p.body()));
        if (p.contentEncoding() != null) {
            b.header("Content-Encoding", p.contentEncoding());
        }
        HttpRequest request = b.build();
        Duration backoff = target.firstBackoff();
        Duration wait = Duration.ZERO;
        String failure = null;
        int attempt = 1;
        for (; attempt <= target.attempts(); attempt++) {
            if (attempt > 1) {
                Thread.sleep(wait);
                backoff = backoff.multipliedBy(2);
            }
            wait = backoff;
            try {
                HttpResponse<byte[]> r = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
                int status = r.statusCode();
                if (status / 100 == 2) {
                    String rejected = target.protocol() == Protocol.OTLP ? rejected(r) : null;
                    if (rejected == null) {
                        return attempt;
                    }
                    failure = rejected;
                    attempt++;
                    break;
                }
                failure = "HTTP " + status + firstLine(r.body());
                if (status != 429 && status / 100 != 5) {
                    attempt++;
                    break;
                }
                Duration asked = retryAfter(r.headers().firstValue("Retry-After").orElse(null), Instant.now());
                if (asked != null) {
                    if (asked.compareTo(MAX_RETRY_AFTER) > 0) {
                        failure += " (the server asks to wait " + asked.toSeconds() + " s, more than "
                                + MAX_RETRY_AFTER.toSeconds() + " s)";
                        attempt++;
                        break;
                    }
                    wait = asked;
                }
            } catch (HttpTimeoutException e) {
                failure = "no answer within " + target.timeout().toMillis() + " ms";
            } catch (IOException e) {
                failure = "cannot reach " + target.base() + ": " + Printable.of(e.getMessage() == null ? e.toString() : e.getMessage());
            }
        }
        int made = attempt - 1;
        throw new PushException(where + ": " + failure + (made == 1 ? " (not retried)" : " (after " + made + " attempts)"));
    }

    /** The URL without its query, as error lines show it. */
    private static String shown(URI uri) {
        String s = uri.toString();
        int q = s.indexOf('?');
        return q < 0 ? s : s.substring(0, q);
    }

    /**
     * The delay a {@code Retry-After} header asks for (RFC 9110: seconds, or an HTTP date), or null where
     * there is none or it cannot be read.
     */
    static Duration retryAfter(String value, Instant now) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String v = value.strip();
        if (v.matches("\\d{1,12}")) {
            return Duration.ofSeconds(Long.parseLong(v));
        }
        try {
            Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            return at.isAfter(now) ? Duration.between(now, at) : Duration.ZERO;
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /** An OTLP answer's partial success that rejected profiles, as a failure, or null. */
    private static String rejected(HttpResponse<byte[]> r) {
        String type = r.headers().firstValue("Content-Type").orElse("");
        if (!type.contains("protobuf") || r.body().length == 0) {
            return null;
        }
        try {
            var partial = ExportProfilesServiceResponse.parseFrom(r.body()).getPartialSuccess();
            if (partial.getRejectedProfiles() > 0) {
                return "the server rejected " + partial.getRejectedProfiles() + " profiles"
                        + (partial.getErrorMessage().isEmpty() ? "" : ": " + Printable.of(partial.getErrorMessage()));
            }
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            return null; // an answer we cannot read is no reason to fail an accepted upload
        }
        return null;
    }

    private static String firstLine(byte[] body) {
        String text = body == null ? "" : new String(body, StandardCharsets.UTF_8);
        String line = text.lines().findFirst().orElse("").strip();
        if (line.length() > 200) {
            line = line.substring(0, 200) + "...";
        }
        return line.isEmpty() ? "" : ": " + Printable.of(line);
    }
}
