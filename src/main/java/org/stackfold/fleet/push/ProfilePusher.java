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
        // Never follow a redirect: Java (like browsers) re-sends a 301/302/303 as a bodiless GET, and the
        // upload would "succeed" with nothing sent. A redirect fails with its status and Location.
        this.client = HttpClient.newBuilder().connectTimeout(target.timeout())
                .followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /**
     * Sends one profile; returns the number of attempts it took, or throws naming the URL and the last
     * failure (status and the first line of the answer, or why nothing came back).
     */
    public int push(Profile profile, Upload u) throws IOException, InterruptedException {
        if (profile.tree().isDifferential()) {
            throw new PushException(target.base() + ": a differential profile cannot be pushed; push its two sides");
        }
        URI base = withoutUserInfo(target.base());
        Payload p = target.protocol().payload(base, profile, u, target.gzip());
        String where = shown(p.uri());
        HttpRequest.Builder b = HttpRequest.newBuilder(p.uri()).timeout(target.timeout())
                .header("Content-Type", p.contentType()).header("User-Agent", "stackfold")
                .POST(HttpRequest.BodyPublishers.ofByteArray(p.body()));
        if (p.contentEncoding() != null) {
            b.header("Content-Encoding", p.contentEncoding());
        }
        String userInfo = target.base().getRawUserInfo();
        if (userInfo != null) {
            // http://user:password@host: HTTP basic authentication, never part of a message.
            b.header("Authorization", "Basic " + java.util.Base64.getEncoder().encodeToString(
                    java.net.URLDecoder.decode(userInfo, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8)));
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
                Answer r = exchange(request);
                int status = r.status();
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
                if (status / 100 == 3) {
                    failure += " (a redirect" + r.headers().firstValue("Location").map(l -> " to " + Printable.of(shown(l)))
                            .orElse("") + ": not followed, since a client re-sends it without the profile; give that URL)";
                    attempt++;
                    break;
                }
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
            } catch (HttpTimeoutException | java.util.concurrent.TimeoutException e) {
                failure = "no answer within " + target.timeout().toMillis() + " ms";
            } catch (IOException e) {
                failure = "cannot reach " + shown(base.toString()) + ": "
                        + Printable.of(e.getMessage() == null ? e.toString() : e.getMessage());
            }
        }
        int made = attempt - 1;
        throw new PushException(where + ": " + failure + (made == 1 ? " (not retried)" : " (after " + made + " attempts)"));
    }

    /** The most bytes of an answer read: its first line and an OTLP partial success are all that is used. */
    static final int MAX_ANSWER = 64 * 1024;

    /** An answer: status, headers, the head of its body. */
    record Answer(int status, java.net.http.HttpHeaders headers, byte[] body) {
    }

    /**
     * One attempt, ended within the timeout whatever the server does (stalls before its headers, drips
     * its body, sends an endless one): at most {@link #MAX_ANSWER} bytes of the body are read, the rest
     * is dropped with the connection.
     */
    private Answer exchange(HttpRequest request) throws IOException, InterruptedException,
            java.util.concurrent.TimeoutException {
        long deadline = System.nanoTime() + target.timeout().toNanos();
        java.util.concurrent.CompletableFuture<HttpResponse<java.io.InputStream>> sent =
                client.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream());
        HttpResponse<java.io.InputStream> r;
        try {
            r = sent.get(Math.max(1, deadline - System.nanoTime()), java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            sent.cancel(true);
            throw e;
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof IOException io) {
                throw io;
            }
            throw new IOException(c == null ? e.toString() : c.toString(), c);
        }
        java.io.InputStream in = r.body();
        java.util.concurrent.CompletableFuture<byte[]> head = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return in.readNBytes(MAX_ANSWER);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        try {
            return new Answer(r.statusCode(), r.headers(),
                    head.get(Math.max(1, deadline - System.nanoTime()), java.util.concurrent.TimeUnit.NANOSECONDS));
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof java.io.UncheckedIOException u ? u.getCause() : new IOException(e.getCause());
        } finally {
            in.close(); // drops what is left of the body and, for a dripping server, the connection
        }
    }

    /** The URI without {@code user:password@}. */
    static URI withoutUserInfo(URI u) {
        if (u.getRawUserInfo() == null) {
            return u;
        }
        try {
            return new URI(u.getScheme(), null, u.getHost(), u.getPort(), u.getPath(), u.getQuery(), u.getFragment());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** A URL as messages show it: without its query and without a password. */
    public static String shown(String s) {
        int q = s.indexOf('?');
        s = q < 0 ? s : s.substring(0, q);
        return s.replaceFirst("^([A-Za-z][A-Za-z0-9+.-]*://)[^/@]*@", "$1***@");
    }

    /** The URL without its query or password, as error lines show it. */
    private static String shown(URI uri) {
        return shown(uri.toString());
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
    private static String rejected(Answer r) {
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
