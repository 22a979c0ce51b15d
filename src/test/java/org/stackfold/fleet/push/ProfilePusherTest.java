package org.stackfold.fleet.push;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesPartialSuccess;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceResponse;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.profiles.v1development.ProfilesData;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.folded.FoldedReader;
import org.stackfold.format.otlp.OtlpReader;
import org.stackfold.format.pprof.PprofFormat;
import org.stackfold.io.Input;
import org.stackfold.model.CallTree;
import org.stackfold.model.Profile;

/**
 * Each protocol against a server on 127.0.0.1 that checks every request as the servers' sources and
 * docs describe it (Pyroscope v2.2.1's /ingest handler and pprof form, OTLP/HTTP's
 * ExportProfilesServiceRequest decoded with the official classes) and records what it received.
 */
class ProfilePusherTest {
    private static final Instant FROM = Instant.parse("2026-11-01T12:00:00Z");
    private static final Instant UNTIL = Instant.parse("2026-11-01T12:01:00Z");
    private static final String INPUT = "main;run;work 5\nmain;idle 2\nmain;run;\u00e9t\u00e9 1\n";

    private HttpServer server;
    private final List<String> problems = Collections.synchronizedList(new ArrayList<>());
    private final List<Received> received = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger requests = new AtomicInteger();

    record Received(String path, Map<String, String> query, String contentType, String encoding, byte[] body) {
    }

    /** What the server answers: status, headers, body. */
    record Answer(int status, Map<String, String> headers, byte[] body) {
        static Answer ok() {
            return new Answer(200, Map.of(), new byte[0]);
        }
    }

    private URI start(IntFunction<Answer> answers) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", ex -> handle(ex, answers.apply(requests.incrementAndGet())));
        server.setExecutor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
        server.start();
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    private void handle(HttpExchange ex, Answer a) throws IOException {
        byte[] body = ex.getRequestBody().readAllBytes();
        if (!ex.getRequestMethod().equals("POST")) {
            problems.add("method " + ex.getRequestMethod());
        }
        Map<String, String> q = new LinkedHashMap<>();
        String raw = ex.getRequestURI().getRawQuery();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                int eq = pair.indexOf('=');
                q.put(pair.substring(0, eq), URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        received.add(new Received(ex.getRequestURI().getPath(), q, ex.getRequestHeaders().getFirst("Content-Type"),
                ex.getRequestHeaders().getFirst("Content-Encoding"), body));
        a.headers().forEach((k, v) -> ex.getResponseHeaders().add(k, v));
        ex.sendResponseHeaders(a.status(), a.body().length == 0 ? -1 : a.body().length);
        ex.getResponseBody().write(a.body());
        ex.close();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    static Profile folded(String text) throws IOException {
        return new FoldedReader(FoldedReader.Mode.AUTO, true, 1, w -> { })
                .read(Input.ofBytes("x.folded", text.getBytes(StandardCharsets.UTF_8))).profile();
    }

    /** Folded stacks and their counts: what every protocol must carry unchanged. */
    static Map<String, Long> stacks(Profile p) {
        Map<String, Long> out = new TreeMap<>();
        CallTree t = p.tree();
        for (int n = 1; n < t.size(); n++) {
            if (t.self(n) != 0) {
                List<String> names = new ArrayList<>();
                for (int f : t.stack(n)) {
                    names.add(p.frames().name(f));
                }
                out.merge(String.join(";", names), t.self(n), Long::sum);
            }
        }
        return out;
    }

    private ProfilePusher pusher(URI url, Protocol p, int attempts, boolean gzip) {
        return new ProfilePusher(new ProfilePusher.Target(url, p, attempts, Duration.ofSeconds(5), Duration.ofMillis(1), gzip));
    }

    private static Upload upload() {
        return new Upload("shop", Map.of("env", "prod"), FROM, UNTIL, 99);
    }

    @Test
    void pprofGoesToIngestAsTheMultipartFormPyroscopeReads() throws Exception {
        URI url = start(n -> Answer.ok());
        Profile p = folded(INPUT);
        assertThat(pusher(url, Protocol.PYROSCOPE_PPROF, 1, false).push(p, upload())).isEqualTo(1);
        assertThat(problems).isEmpty();
        Received r = received.getFirst();
        assertThat(r.path()).isEqualTo("/ingest");
        assertThat(r.query()).containsEntry("name", "shop{env=prod}").containsEntry("from", "1793534400")
                .containsEntry("until", "1793534460").containsEntry("sampleRate", "99").containsEntry("spyName", "stackfold")
                // with format=pprof Pyroscope would read the form itself as pprof
                .doesNotContainKey("format");
        assertThat(r.contentType()).startsWith("multipart/form-data; boundary=");
        Map<String, byte[]> parts = multipart(r.body(), r.contentType().substring(r.contentType().indexOf("boundary=") + 9));
        assertThat(parts).containsOnlyKeys("profile", "sample_type_config");
        Profile sent = new PprofFormat().read(Input.ofBytes("profile", parts.get("profile")), FormatOptions.none());
        assertThat(stacks(sent)).isEqualTo(stacks(p));
        Map<String, Map<String, String>> config = json(parts.get("sample_type_config"));
        assertThat(config).containsOnlyKeys("samples");
        assertThat(config.get("samples")).containsEntry("units", "samples").containsEntry("aggregation", "sum")
                .containsEntry("display-name", "cpu_samples").containsEntry("sampled", "true");
    }

    @Test
    void foldedGoesToIngestAsBefore() throws Exception {
        URI url = start(n -> Answer.ok());
        pusher(url, Protocol.PYROSCOPE, 1, false).push(folded(INPUT), upload());
        Received r = received.getFirst();
        assertThat(r.query()).containsEntry("format", "folded").containsEntry("name", "shop{env=prod}");
        assertThat(r.contentType()).isEqualTo("text/plain; charset=utf-8");
        assertThat(stacks(folded(new String(r.body(), StandardCharsets.UTF_8)))).isEqualTo(stacks(folded(INPUT)));
    }

    @Test
    void otlpIsAnExportRequestWithTheResourceTimeRangeAndSamples() throws Exception {
        for (boolean gzip : new boolean[] {false, true}) {
            received.clear();
            URI url = start(n -> new Answer(200, Map.of("Content-Type", "application/x-protobuf"),
                    ExportProfilesServiceResponse.getDefaultInstance().toByteArray()));
            Profile p = folded(INPUT);
            pusher(url, Protocol.OTLP, 1, gzip).push(p, upload());
            server.stop(0);
            Received r = received.getFirst();
            assertThat(r.path()).isEqualTo("/v1development/profiles");
            assertThat(r.contentType()).isEqualTo("application/x-protobuf");
            assertThat(r.encoding()).isEqualTo(gzip ? "gzip" : null);
            byte[] body = gzip ? new GZIPInputStream(new ByteArrayInputStream(r.body())).readAllBytes() : r.body();
            ExportProfilesServiceRequest req = ExportProfilesServiceRequest.parseFrom(body);
            Map<String, String> attrs = new LinkedHashMap<>();
            for (KeyValue kv : req.getResourceProfiles(0).getResource().getAttributesList()) {
                attrs.put(kv.getKey(), kv.getValue().getStringValue());
            }
            assertThat(attrs).containsExactly(Map.entry("service.name", "shop"), Map.entry("env", "prod"));
            var prof = req.getResourceProfiles(0).getScopeProfiles(0).getProfiles(0);
            assertThat(prof.getTimeUnixNano()).isEqualTo(FROM.getEpochSecond() * 1_000_000_000L);
            assertThat(prof.getDurationNano()).isEqualTo(60_000_000_000L);
            assertThat(prof.getPeriod()).isEqualTo(1_000_000_000L / 99);
            assertThat(req.getDictionary().getStringTable(prof.getPeriodType().getTypeStrindex())).isEqualTo("cpu");
            ProfilesData data = ProfilesData.newBuilder().addAllResourceProfiles(req.getResourceProfilesList())
                    .setDictionary(req.getDictionary()).build();
            assertThat(stacks(new OtlpReader(null).read(data, "request"))).isEqualTo(stacks(p));
        }
    }

    @Test
    void otlpSamplesHaveOneValueEachEvenWithATimeline() throws Exception {
        URI url = start(n -> Answer.ok());
        Profile p = folded("main;a 2\nmain;b 1\n");
        org.stackfold.model.Timeline tl = new org.stackfold.model.Timeline("microseconds");
        tl.add(1, 0, 10, 0, 2, 1);
        tl.add(1, 0, 20, 0, 3, 1);
        tl.add(2, 0, 30, 0, 2, 1);
        p.setTimeline(tl);
        pusher(url, Protocol.OTLP, 1, false).push(p, upload());
        ExportProfilesServiceRequest req = ExportProfilesServiceRequest.parseFrom(received.getFirst().body());
        var prof = req.getResourceProfiles(0).getScopeProfiles(0).getProfiles(0);
        // Pyroscope's converter wants as many values as sample types: one
        assertThat(prof.getSamplesList()).allSatisfy(s -> {
            assertThat(s.getValuesCount()).isEqualTo(1);
            assertThat(s.getTimestampsUnixNanoCount()).isZero();
        });
        assertThat(prof.getSamplesList()).extracting(s -> s.getValues(0)).containsExactlyInAnyOrder(2L, 1L);
    }

    @Test
    void aBaseUrlWithTheOtlpPathIsUsedAsItIs() throws Exception {
        URI url = start(n -> Answer.ok());
        pusher(URI.create(url + "/v1development/profiles"), Protocol.OTLP, 1, false).push(folded(INPUT), upload());
        assertThat(received.getFirst().path()).isEqualTo("/v1development/profiles");
    }

    @Test
    void rejectedProfilesInAPartialSuccessFailTheUpload() throws Exception {
        byte[] answer = ExportProfilesServiceResponse.newBuilder().setPartialSuccess(ExportProfilesPartialSuccess.newBuilder()
                .setRejectedProfiles(1).setErrorMessage("unknown sample type")).build().toByteArray();
        URI url = start(n -> new Answer(200, Map.of("Content-Type", "application/x-protobuf"), answer));
        assertThatThrownBy(() -> pusher(url, Protocol.OTLP, 3, false).push(folded(INPUT), upload()))
                .isInstanceOf(PushException.class)
                .hasMessage(url + "/v1development/profiles: the server rejected 1 profiles: unknown sample type (not retried)");
        assertThat(requests.get()).isEqualTo(1);
    }

    @Test
    void retryAfterIsHonouredAndTooLongAWaitFails() throws Exception {
        URI url = start(n -> n == 1 ? new Answer(429, Map.of("Retry-After", "0"), "slow down".getBytes(StandardCharsets.UTF_8))
                : Answer.ok());
        assertThat(pusher(url, Protocol.OTLP, 3, false).push(folded(INPUT), upload())).isEqualTo(2);
        server.stop(0);
        requests.set(0);
        URI url2 = start(n -> new Answer(503, Map.of("Retry-After", "3600"), "maintenance\nuntil noon".getBytes(StandardCharsets.UTF_8)));
        assertThatThrownBy(() -> pusher(url2, Protocol.PYROSCOPE_PPROF, 4, false).push(folded(INPUT), upload()))
                .isInstanceOf(PushException.class)
                .hasMessage(url2 + "/ingest: HTTP 503: maintenance (the server asks to wait 3600 s, more than 300 s) (not retried)");
        assertThat(requests.get()).isEqualTo(1);
    }

    @Test
    void retryAfterReadsSecondsAndHttpDates() {
        Instant now = Instant.parse("2026-11-01T12:00:00Z");
        assertThat(ProfilePusher.retryAfter("120", now)).isEqualTo(Duration.ofSeconds(120));
        assertThat(ProfilePusher.retryAfter(" 7 ", now)).isEqualTo(Duration.ofSeconds(7));
        assertThat(ProfilePusher.retryAfter("Sun, 01 Nov 2026 12:00:30 GMT", now)).isEqualTo(Duration.ofSeconds(30));
        assertThat(ProfilePusher.retryAfter("Sun, 01 Nov 2026 11:00:00 GMT", now)).isEqualTo(Duration.ZERO);
        assertThat(ProfilePusher.retryAfter("soon", now)).isNull();
        assertThat(ProfilePusher.retryAfter("-1", now)).isNull();
        assertThat(ProfilePusher.retryAfter(null, now)).isNull();
    }

    @Test
    void serverErrorsAreRetriedAndTheLastOneIsNamed() throws Exception {
        URI url = start(n -> new Answer(502, Map.of(), "bad gateway \u001b[31m".getBytes(StandardCharsets.UTF_8)));
        assertThatThrownBy(() -> pusher(url, Protocol.OTLP, 3, false).push(folded(INPUT), upload()))
                .isInstanceOf(PushException.class)
                .hasMessageStartingWith(url + "/v1development/profiles: HTTP 502: bad gateway ")
                .hasMessageEndingWith(" (after 3 attempts)")
                .hasMessageNotContaining("\u001b");
        assertThat(requests.get()).isEqualTo(3);
    }

    @Test
    void aDifferentialProfileIsNotSent() throws Exception {
        URI url = start(n -> Answer.ok());
        Profile diff = Profile.differential();
        assertThatThrownBy(() -> pusher(url, Protocol.OTLP, 1, false).push(diff, upload()))
                .isInstanceOf(PushException.class).hasMessageContaining("a differential profile cannot be pushed");
        assertThat(requests.get()).isZero();
    }

    @Test
    void protocolsByName() {
        assertThat(Protocol.byName("pyroscope-pprof")).isEqualTo(Protocol.PYROSCOPE_PPROF);
        assertThatThrownBy(() -> Protocol.byName("grpc")).hasMessageContaining("known: pyroscope, pyroscope-pprof, otlp");
    }

    /** A multipart/form-data body's parts by field name, as Go's mime/multipart reads them. */
    private Map<String, byte[]> multipart(byte[] body, String boundary) {
        Map<String, byte[]> parts = new LinkedHashMap<>();
        byte[] delim = ("--" + boundary).getBytes(StandardCharsets.US_ASCII);
        int pos = indexOf(body, delim, 0);
        assertThat(pos).isZero();
        while (true) {
            pos += delim.length;
            if (body[pos] == '-' && body[pos + 1] == '-') {
                assertThat(pos + 4).isEqualTo(body.length); // "--\r\n" closes the body
                return parts;
            }
            int headersEnd = indexOf(body, "\r\n\r\n".getBytes(StandardCharsets.US_ASCII), pos);
            String headers = new String(body, pos, headersEnd - pos, StandardCharsets.US_ASCII);
            int next = indexOf(body, ("\r\n--" + boundary).getBytes(StandardCharsets.US_ASCII), headersEnd);
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("Content-Disposition: form-data; name=\"([^\"]+)\"; filename=\"[^\"]+\"")
                    .matcher(headers);
            if (!m.find()) {
                problems.add("part headers " + headers);
                return parts;
            }
            parts.put(m.group(1), java.util.Arrays.copyOfRange(body, headersEnd + 4, next));
            pos = next + 2;
        }
    }

    private static int indexOf(byte[] b, byte[] what, int from) {
        outer:
        for (int i = from; i <= b.length - what.length; i++) {
            for (int j = 0; j < what.length; j++) {
                if (b[i + j] != what[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("not found");
    }

    private static Map<String, Map<String, String>> json(byte[] b) throws IOException {
        Map<String, Map<String, String>> out = new LinkedHashMap<>();
        try (JsonParser p = new JsonFactory().createParser(b)) {
            assertThat(p.nextToken()).isEqualTo(JsonToken.START_OBJECT);
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String key = p.currentName();
                p.nextToken();
                Map<String, String> fields = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String f = p.currentName();
                    p.nextToken();
                    fields.put(f, p.getText());
                }
                out.put(key, fields);
            }
        }
        return out;
    }
}
