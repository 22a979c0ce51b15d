package org.stackfold.render.viewer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * view --serve against hostile peers (issue 28, item 10): DNS rebinding (another Host), a page that
 * guesses the port (no token), and clients that never finish their request or never read, which must
 * not hold up anyone else. Raw sockets on 127.0.0.1 only.
 */
class ViewerServerTest {
    private static final byte[] PAGE = "<!doctype html><title>profile</title>".getBytes(StandardCharsets.UTF_8);

    /** One raw request; the answer's status line and body. */
    private static String[] get(int port, String target, String host) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(("GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            String all = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int end = all.indexOf("\r\n\r\n");
            return new String[] {all.substring(0, all.indexOf("\r\n")), end < 0 ? "" : all.substring(end + 4)};
        }
    }

    @Test
    void onlyThePrintedHostWithItsTokenGetsThePage() throws IOException {
        try (ViewerServer server = ViewerServer.start(PAGE, 0)) {
            URI url = URI.create(server.url());
            assertThat(url.getHost()).isEqualTo("127.0.0.1");
            assertThat(url.getQuery()).matches("token=[0-9a-f]{32}");
            int port = url.getPort();
            String target = url.getRawPath() + "?" + url.getRawQuery();
            String[] ok = get(port, target, "127.0.0.1:" + port);
            assertThat(ok[0]).contains(" 200 ");
            assertThat(ok[1]).isEqualTo(new String(PAGE, StandardCharsets.UTF_8));
            assertThat(get(port, target, "evil.example:" + port)[0]).as("DNS rebinding").contains(" 403 ");
            assertThat(get(port, target, "localhost:" + (port + 1))[0]).contains(" 403 ");
            assertThat(get(port, "/", "127.0.0.1:" + port)[0]).as("no token").contains(" 403 ");
            assertThat(get(port, "/?token=00000000000000000000000000000000", "127.0.0.1:" + port)[0]).contains(" 403 ");
            assertThat(get(port, target, "127.0.0.1:" + port)[1]).doesNotContain("403");
        }
    }

    @Test
    void aStalledClientHoldsUpNoOther() throws Exception {
        byte[] big = new byte[8 << 20];
        Arrays.fill(big, (byte) 'x');
        try (ViewerServer server = ViewerServer.start(big, 0)) {
            URI url = URI.create(server.url());
            int port = url.getPort();
            String target = url.getRawPath() + "?" + url.getRawQuery();
            try (Socket silent = new Socket("127.0.0.1", port); Socket nonReader = new Socket("127.0.0.1", port)) {
                silent.getOutputStream().write("GET / HTTP/1.1\r\nHo".getBytes(StandardCharsets.US_ASCII)); // never finishes
                nonReader.setReceiveBufferSize(4096);
                nonReader.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII)); // never reads the 8 MiB answer
                for (int i = 0; i < 3; i++) {
                    try (Socket s = new Socket()) {
                        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
                        s.setSoTimeout(20_000); // generous on a loaded machine; the stalled ones wait 10 s and 60 s
                        s.getOutputStream().write(("HEAD " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n\r\n")
                                .getBytes(StandardCharsets.US_ASCII));
                        InputStream in = s.getInputStream();
                        String answer = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
                        assertThat(answer).startsWith("HTTP/1.1 200");
                    }
                }
            }
        }
    }
}
