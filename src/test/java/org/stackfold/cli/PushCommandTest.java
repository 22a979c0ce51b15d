package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stackfold.cli.CliRun.run;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * push against a local Pyroscope stand-in on 127.0.0.1 that checks each request against the
 * documented ingest protocol (POST /ingest; name, from, until, format query parameters; folded body).
 */
class PushCommandTest {
    @TempDir
    Path dir;

    private HttpServer server;
    private final List<String> problems = Collections.synchronizedList(new ArrayList<>());
    private final List<Map<String, String>> queries = Collections.synchronizedList(new ArrayList<>());
    private final List<String> bodies = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger requests = new AtomicInteger();
    private final CountDownLatch released = new CountDownLatch(1);

    /** Starts the server; {@code status} maps the request number (1-based) to the status to answer, 0 = never answer. */
    private String start(IntUnaryOperator status) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", ex -> handle(ex, status.applyAsInt(requests.incrementAndGet())));
        server.setExecutor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
        server.start();
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void handle(HttpExchange ex, int status) throws IOException {
        byte[] body = ex.getRequestBody().readAllBytes();
        check(ex, new String(body, StandardCharsets.UTF_8));
        if (status == 0) {
            try {
                released.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        byte[] answer = (status == 200 ? "" : "ingest rejected: bad things\nsecond line").getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(status == 0 ? 503 : status, answer.length == 0 ? -1 : answer.length);
        ex.getResponseBody().write(answer);
        ex.close();
    }

    private void check(HttpExchange ex, String body) {
        if (!ex.getRequestMethod().equals("POST")) {
            problems.add("method " + ex.getRequestMethod());
        }
        if (!ex.getRequestURI().getPath().equals("/ingest")) {
            problems.add("path " + ex.getRequestURI().getPath());
        }
        Map<String, String> q = new LinkedHashMap<>();
        for (String pair : ex.getRequestURI().getRawQuery().split("&")) {
            int eq = pair.indexOf('=');
            q.put(pair.substring(0, eq), URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        for (String required : List.of("name", "from", "until")) {
            if (!q.containsKey(required)) {
                problems.add("missing " + required);
            }
        }
        if (!q.get("name").matches("[^{}]+\\{([^=,{}]+=[^=,{}]+(,[^=,{}]+=[^=,{}]+)*)?\\}")) {
            problems.add("name " + q.get("name"));
        }
        if (Long.parseLong(q.get("from")) > Long.parseLong(q.get("until"))) {
            problems.add("from after until");
        }
        if (!"folded".equals(q.getOrDefault("format", "folded"))) {
            problems.add("format " + q.get("format"));
        }
        if (!body.lines().allMatch(l -> l.matches("\\S.* \\d+"))) {
            problems.add("body not folded: " + body);
        }
        queries.add(q);
        bodies.add(body);
    }

    @AfterEach
    void stop() {
        released.countDown();
        if (server != null) {
            server.stop(0);
        }
    }

    private Path file(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    @Test
    void sendsEachProfileAsADocumentedIngestRequest() throws IOException {
        String url = start(n -> 200);
        Path a = file("a.folded", "main;f 3\nmain;g 1\nmain;f 2\n");
        Path b = file("b.folded", "x;y 7\n");
        CliRun r = run("push", url, a.toString(), b.toString(), "--app", "shop.cpu", "--label", "env=prod",
                "--label", "host=h1", "--start", "2026-11-01T12:00:00Z", "--end", "2026-11-01T12:01:00Z");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(problems).isEmpty();
        assertThat(queries).hasSize(2);
        Map<String, String> q = queries.getFirst();
        assertThat(q.get("name")).isEqualTo("shop.cpu{env=prod,host=h1}");
        assertThat(q.get("from")).isEqualTo("1793534400");
        assertThat(q.get("until")).isEqualTo("1793534460");
        assertThat(q.get("format")).isEqualTo("folded");
        assertThat(q.get("sampleRate")).isEqualTo("100");
        assertThat(bodies).containsExactly("main;f 5\nmain;g 1\n", "x;y 7\n");
        assertThat(r.err()).contains("pushed 2 of 2 profiles");
    }

    @Test
    void retriesServerErrorsAndThenSucceeds() throws IOException {
        String url = start(n -> n < 3 ? 503 : 200);
        CliRun r = run("push", url, file("a.folded", "main;f 3\n").toString(), "--attempts", "3");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(requests.get()).isEqualTo(3);
        assertThat(problems).isEmpty();
    }

    @Test
    void aRejectedUploadIsOneLineAndTheOthersStillGo() throws IOException {
        String url = start(n -> n == 1 ? 400 : 200);
        Path a = file("a.folded", "main;f 3\n");
        Path b = file("b.folded", "main;g 3\n");
        CliRun r = run("push", url, a.toString(), b.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(requests.get()).isEqualTo(2);
        assertThat(r.err()).contains("stackfold: push " + a + " to " + url + "/ingest: HTTP 400: ingest rejected: bad things (not retried)")
                .contains("pushed 1 of 2 profiles").hasLineCount(2);
    }

    @Test
    void retriesRunOutWithTheLastReason() throws IOException {
        String url = start(n -> 500);
        CliRun r = run("push", url, file("a.folded", "main;f 3\n").toString(), "--attempts", "2");
        assertThat(r.code()).isEqualTo(1);
        assertThat(requests.get()).isEqualTo(2);
        assertThat(r.err()).contains("HTTP 500: ingest rejected: bad things (after 2 attempts)");
    }

    @Test
    void aServerThatNeverAnswersTimesOut() throws IOException {
        String url = start(n -> 0);
        CliRun r = run("push", url, file("a.folded", "main;f 3\n").toString(), "--attempts", "1", "--timeout", "0.5");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).contains("no answer within 500 ms");
    }

    @Test
    void nobodyListeningIsNamed() throws IOException {
        String url = start(n -> 200);
        server.stop(0);
        CliRun r = run("push", url, file("a.folded", "main;f 3\n").toString(), "--attempts", "1");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).contains("cannot reach " + url);
    }

    @Test
    void otlpAndPprofGoWhereTheirProtocolsSay() throws IOException {
        List<String> paths = Collections.synchronizedList(new ArrayList<>());
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", ex -> {
            ex.getRequestBody().readAllBytes();
            paths.add(ex.getRequestURI().getPath() + " " + ex.getRequestHeaders().getFirst("Content-Type").replaceAll(";.*", ""));
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        server.start();
        String url = "http://127.0.0.1:" + server.getAddress().getPort();
        Path a = file("a.folded", "main;f 3\n");
        assertThat(run("push", url, a.toString(), "--protocol", "otlp", "--gzip", "--app", "shop").code()).isZero();
        assertThat(run("push", url, a.toString(), "--protocol", "pyroscope-pprof").code()).isZero();
        assertThat(paths).containsExactly("/v1development/profiles application/x-protobuf", "/ingest multipart/form-data");
    }

    @Test
    void badArgumentsAreUsageErrors() throws IOException {
        Path a = file("a.folded", "main;f 3\n");
        assertThat(run("push", "http://127.0.0.1:1", a.toString(), "--protocol", "grpc").code()).isEqualTo(2);
        assertThat(run("push", "http://127.0.0.1:1", a.toString(), "--gzip").code()).isEqualTo(2);
        assertThat(run("push", "http://127.0.0.1:1", a.toString(), "--sample-rate", "0").code()).isEqualTo(2);
        assertThat(run("push", "ftp://x", a.toString()).code()).isEqualTo(2);
        assertThat(run("push", "http://127.0.0.1:1", a.toString(), "--label", "bad").code()).isEqualTo(2);
        assertThat(run("push", "http://127.0.0.1:1", a.toString(), "--start", "2026-11-02", "--end", "2026-11-01").code())
                .isEqualTo(2);
    }
}
