package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stackfold.cli.CliRun.run;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * push against misbehaving servers on 127.0.0.1 (issue 28, items 11-13): raw sockets that stall, drip,
 * send endless bodies, redirect or fail. Each server answers a bounded number of connections and stops
 * with the test.
 */
class PushHardeningTest {
    @TempDir
    Path dir;
    private ServerSocket server;
    private Thread thread;
    private final AtomicInteger connections = new AtomicInteger();
    private final StringBuilder requests = new StringBuilder();

    interface Behaviour {
        void answer(InputStream in, OutputStream out) throws Exception;
    }

    @BeforeEach
    void open() throws IOException {
        server = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
    }

    @AfterEach
    void close() throws Exception {
        server.close();
        if (thread != null) {
            thread.interrupt();
            thread.join(10_000);
        }
    }

    private String url() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    private void serve(Behaviour b) {
        thread = Thread.ofPlatform().daemon().start(() -> {
            for (int i = 0; i < 20 && !server.isClosed(); i++) {
                try (Socket s = server.accept()) {
                    connections.incrementAndGet();
                    s.setSoTimeout(20_000);
                    InputStream in = s.getInputStream();
                    String head = readHead(in);
                    synchronized (requests) {
                        requests.append(head.lines().findFirst().orElse("")).append('\n');
                    }
                    int length = 0;
                    for (String line : head.split("\r\n")) {
                        if (line.toLowerCase().startsWith("content-length:")) {
                            length = Integer.parseInt(line.substring(15).strip());
                        }
                    }
                    in.readNBytes(length);
                    b.answer(in, s.getOutputStream());
                } catch (Exception e) {
                    // the client hung up, or the test is over
                }
            }
        });
    }

    private static String readHead(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        while (b.length() < 65536 && !b.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                break;
            }
            b.append((char) c);
        }
        return b.toString();
    }

    private Path profile() throws IOException {
        Path p = dir.resolve("p.folded");
        Files.writeString(p, "a;b 3\n");
        return p;
    }

    private static void oneLineFailure(CliRun r, long maxMillis, long tookMillis) {
        assertThat(r.code()).as(r.err()).isEqualTo(1);
        assertThat(r.err()).doesNotContain("internal error").doesNotContain("Java heap space");
        assertThat(tookMillis).as("took " + tookMillis + " ms: " + r.err()).isLessThan(maxMillis);
    }

    private CliRun timed(long[] took, String... args) {
        long t0 = System.nanoTime();
        CliRun r = run(args);
        took[0] = (System.nanoTime() - t0) / 1_000_000;
        return r;
    }

    @Test
    void aStalledServerEndsEachAttemptWithinTheTimeout() throws Exception {
        serve((in, out) -> Thread.sleep(60_000));
        long[] took = new long[1];
        CliRun r = timed(took, "push", url(), profile().toString(), "--timeout", "1", "--attempts", "2");
        oneLineFailure(r, 30_000, took[0]);
        assertThat(r.err()).contains("within 1000 ms");
    }

    @Test
    void aDrippingServerEndsWithinTheTimeout() throws Exception {
        serve((in, out) -> {
            out.write("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            for (int i = 0; i < 600; i++) {
                out.write('x');
                out.flush();
                Thread.sleep(100);
            }
        });
        long[] took = new long[1];
        CliRun r = timed(took, "push", url(), profile().toString(), "--timeout", "1", "--attempts", "1");
        oneLineFailure(r, 20_000, took[0]);
    }

    @Test
    void anEndlessBodyIsReadOnlyAsFarAsItsHead() throws Exception {
        serve((in, out) -> {
            out.write("HTTP/1.1 503 Busy\r\nTransfer-Encoding: chunked\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = ("10000\r\n" + "y".repeat(0x10000) + "\r\n").getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i < 100_000; i++) { // 6.5 GB if all were read
                out.write(chunk);
            }
        });
        long[] took = new long[1];
        CliRun r = timed(took, "push", url(), profile().toString(), "--timeout", "5", "--attempts", "1");
        oneLineFailure(r, 30_000, took[0]);
        assertThat(r.err()).contains("HTTP 503");
    }

    @Test
    void aRedirectFailsWithItsStatusAndNothingIsResentWithoutTheBody() throws Exception {
        serve((in, out) -> out.write(("HTTP/1.1 302 Found\r\nLocation: " + url() + "/elsewhere\r\nContent-Length: 0\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII)));
        CliRun r = run("push", url(), profile().toString(), "--attempts", "3");
        assertThat(r.code()).as(r.err()).isEqualTo(1);
        assertThat(r.err()).contains("HTTP 302").contains("redirect").contains("pushed 0 of 1");
        assertThat(requests.toString()).doesNotContain("GET");
    }

    @Test
    void retriesExhaustedBlameTheServer() throws Exception {
        serve((in, out) -> out.write("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\nbusy"
                .getBytes(StandardCharsets.US_ASCII)));
        CliRun r = run("push", url(), profile().toString(), "--attempts", "4", "--timeout", "5");
        assertThat(r.code()).as(r.err()).isEqualTo(1);
        assertThat(r.err()).contains("HTTP 503: busy (after 4 attempts)").doesNotContain("2^63");
    }

    @Test
    void aMissingInputDoesNotStopTheOthers() throws Exception {
        serve((in, out) -> out.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
        CliRun r = run("push", url(), dir.resolve("missing.folded").toString(), profile().toString());
        assertThat(r.code()).as(r.err()).isEqualTo(1);
        assertThat(r.err()).contains("missing.folded").contains("pushed 1 of 2");
        assertThat(connections.get()).isEqualTo(1);
    }

    @Test
    void badValuesAreUsageErrorsAndPasswordsAreNeverShown() throws Exception {
        String p = profile().toString();
        for (String[] args : new String[][] {
                {"push", url(), p, "--timeout", "NaN"},
                {"push", url(), p, "--timeout", "1e300"},
                {"push", url(), p, "--timeout", "-1"},
                {"push", "http://127.0.0.1:99999", p},
                {"push", url() + "/?x=1", p},
                {"push", url() + "/#frag", p},
                {"push", url(), p, "--app", "api{env=prod}"},
                {"push", "http://user:s3cret@127.0.0.1:99999", p}}) {
            CliRun r = run(args);
            assertThat(r.code()).as(String.join(" ", args) + ": " + r.err()).isEqualTo(2);
            assertThat(r.err().strip().lines().count()).as(r.err()).isEqualTo(1);
            assertThat(r.err()).doesNotContain("internal error").doesNotContain("s3cret");
        }
        serve((in, out) -> out.write("HTTP/1.1 500 Oops\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
        CliRun r = run("push", "http://user:s3cret@127.0.0.1:" + server.getLocalPort(), p, "--attempts", "1");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).doesNotContain("s3cret").contains("***@");
    }
}
