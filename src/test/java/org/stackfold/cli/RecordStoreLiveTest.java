package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.stackfold.cli.CliRun.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.record.Privileges;

/**
 * {@code record --store} and {@code record --push} end to end with a real, short recording (skipped,
 * with the reason, where eBPF is not allowed): what lands in the table, or reaches a local OTLP
 * receiver, is what {@code -o} wrote.
 */
class RecordStoreLiveTest {
    /** About half a second of CPU in dash, whatever the machine's load. */
    private static final String BUSY = "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done";

    @TempDir
    Path dir;

    @Test
    void aRecordedCommandIsStoredWithTheDefaultLabelsAndItsStartTime() throws IOException {
        String missing = Privileges.missing();
        assumeTrue(missing == null, missing);
        Path table = dir.resolve("fleet");
        Path folded = dir.resolve("cpu.folded");
        long before = Instant.now().getEpochSecond();
        CliRun r = run("record", "-F", "499", "-o", folded.toString(), "--store", table.toString(), "--label", "env=ci",
                "--", "/bin/sh", "-c", BUSY);
        long after = Instant.now().getEpochSecond();
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).contains("stored the profile").contains("service=sh");
        assertThat(Files.readString(folded)).as("the recording has samples").isNotBlank();

        CliRun merged = run("query", table.toString(), "--where", "service = 'sh' and labels = 'env=ci'");
        assertThat(merged.code()).as(merged.err()).isZero();
        CliRun fold = run("fold", folded.toString());
        assertThat(merged.out()).isEqualTo(fold.out());

        CliRun row = run("query", table.toString(), "--sql",
                // floor: a cast to BIGINT rounds, and a start at x.6 s would read as the second after
                "SELECT DISTINCT host, profile, CAST(floor(epoch(time)) AS BIGINT) AS t FROM samples");
        String host = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
        String[] fields = row.out().lines().skip(1).findFirst().orElseThrow().split("\t");
        assertThat(fields[0]).isEqualTo(host.replaceAll("[^A-Za-z0-9_.-]", "_"));
        assertThat(fields[1]).isEqualTo("record -- /bin/sh -c " + BUSY);
        assertThat(Long.parseLong(fields[2])).isBetween(before, after);
    }

    @Test
    void aRecordingIsPushedOverOtlpGzippedAsItWasWritten() throws Exception {
        String missing = Privileges.missing();
        assumeTrue(missing == null, missing);
        java.util.List<String> encodings = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.List<byte[]> bodies = new java.util.concurrent.CopyOnWriteArrayList<>();
        com.sun.net.httpserver.HttpServer server = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1development/profiles", exchange -> {
            encodings.add(String.valueOf(exchange.getRequestHeaders().getFirst("Content-Encoding")));
            try (var in = new java.util.zip.GZIPInputStream(exchange.getRequestBody())) {
                bodies.add(in.readAllBytes());
            }
            byte[] ok = io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceResponse
                    .getDefaultInstance().toByteArray();
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, ok.length == 0 ? -1 : ok.length);
            exchange.getResponseBody().write(ok);
            exchange.close();
        });
        server.start();
        try {
            Path folded = dir.resolve("cpu.folded");
            String url = "http://127.0.0.1:" + server.getAddress().getPort();
            CliRun r = run("record", "-F", "499", "-o", folded.toString(), "--push", url, "--push-protocol", "otlp",
                    "--push-gzip", "--", "/bin/sh", "-c", BUSY);
            assertThat(r.code()).as(r.err()).isZero();
            assertThat(r.err()).contains("pushed the recording to " + url);
            assertThat(encodings).containsExactly("gzip");
            // An export request and a ProfilesData file share their wire format: the body read back as a file.
            Path received = dir.resolve("received.otlp.pb");
            Files.write(received, bodies.getFirst());
            CliRun back = run("fold", received.toString());
            assertThat(back.code()).as(back.err()).isZero();
            assertThat(back.out()).isEqualTo(run("fold", folded.toString()).out());
        } finally {
            server.stop(0);
        }
    }
}
