package org.stackfold.fleet.push;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.stream.Collectors;
import org.stackfold.format.folded.FoldedWriter;
import org.stackfold.model.Profile;

/**
 * Sends profiles to Grafana Pyroscope's HTTP ingest API ({@code POST /ingest}), in folded format,
 * as documented for Pyroscope 1.x ("Pyroscope server HTTP API", v1.2 to v1.13 and latest): the
 * query names the series ({@code name=APP{k=v,...}}), the time range in Unix seconds
 * ({@code from}, {@code until}), {@code format=folded}, {@code sampleRate} and {@code spyName};
 * the body is {@code stack count} lines. Grafana Alloy's {@code pyroscope.receive_http} accepts
 * the same request.
 *
 * <p>Failures that may pass (connection errors, timeouts, HTTP 429 and 5xx) are retried with
 * doubling back-off; others fail at once. This is the entry point for {@code record --push URL}.
 */
public final class PyroscopeIngest {
    /** Where and how to send: the server's base URL, retries and the time each attempt may take. */
    public record Target(URI base, int attempts, Duration timeout, Duration firstBackoff) {
        public Target {
            if (attempts < 1) {
                throw new IllegalArgumentException("at least one attempt");
            }
        }
    }

    /** One upload: the series' application name, labels, time range and sample rate. */
    public record Upload(String app, Map<String, String> labels, Instant from, Instant until, int sampleRate) {
    }

    /** An upload that failed for good, with why (the last attempt's answer). */
    public static final class PushException extends IOException {
        public PushException(String message) {
            super(message);
        }
    }

    private final Target target;
    private final HttpClient client;

    public PyroscopeIngest(Target target) {
        this.target = target;
        this.client = HttpClient.newBuilder().connectTimeout(target.timeout())
                .followRedirects(HttpClient.Redirect.NORMAL).build();
    }

    /** The request URI for an upload: {@code BASE/ingest?name=...&from=...&until=...}. */
    public URI uri(Upload u) {
        String name = u.app() + "{" + u.labels().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(",")) + "}";
        String base = target.base().toString().replaceAll("/+$", "");
        return URI.create(base + "/ingest?name=" + enc(name) + "&from=" + u.from().getEpochSecond()
                + "&until=" + u.until().getEpochSecond() + "&format=folded&sampleRate=" + u.sampleRate()
                + "&spyName=stackfold&units=samples&aggregationType=sum");
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /** Sends one profile; returns the number of attempts it took, or throws naming the last failure. */
    public int push(Profile profile, Upload u) throws IOException, InterruptedException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        new FoldedWriter(false).write(profile, body);
        HttpRequest request = HttpRequest.newBuilder(uri(u)).timeout(target.timeout())
                .header("Content-Type", "text/plain; charset=utf-8")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray())).build();
        Duration backoff = target.firstBackoff();
        String failure = null;
        int attempt = 1;
        for (; attempt <= target.attempts(); attempt++) {
            if (attempt > 1) {
                Thread.sleep(backoff);
                backoff = backoff.multipliedBy(2);
            }
            try {
                HttpResponse<String> r = client.send(request, HttpResponse.BodyHandlers.ofString());
                int status = r.statusCode();
                if (status / 100 == 2) {
                    return attempt;
                }
                failure = "HTTP " + status + firstLine(r.body());
                if (status != 429 && status / 100 != 5) {
                    attempt++;
                    break;
                }
            } catch (HttpTimeoutException e) {
                failure = "no answer within " + target.timeout().toMillis() + " ms";
            } catch (IOException e) {
                failure = "cannot reach " + target.base() + ": " + (e.getMessage() == null ? e.toString() : e.getMessage());
            }
        }
        int made = attempt - 1;
        throw new PushException(failure + (made == 1 ? " (not retried)" : " (after " + made + " attempts)"));
    }

    private static String firstLine(String body) {
        String line = body == null ? "" : body.lines().findFirst().orElse("").strip();
        return line.isEmpty() ? "" : ": " + (line.length() > 200 ? line.substring(0, 200) + "..." : line);
    }
}
