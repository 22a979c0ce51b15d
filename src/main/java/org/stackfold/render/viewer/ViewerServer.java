package org.stackfold.render.viewer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Serves one viewer page on the loopback interface only (never a wildcard address): for those who
 * would rather open a URL than a file. Nothing but the page is served, and only to a request that
 *
 * <ul>
 *   <li>names the host and port the URL printed ({@code Host: 127.0.0.1:PORT}): a web page on another
 *       origin whose name was re-pointed to 127.0.0.1 (DNS rebinding) sends its own name and is refused
 *       (403);
 *   <li>carries the per-run secret of the printed URL ({@code /?token=...}, 128 random bits, as
 *       Jupyter does): a page that guesses the port cannot (403).
 * </ul>
 *
 * Each client has a thread of its own (virtual), so one that never finishes its request or never
 * reads the answer holds up no other; its request must arrive within {@link #REQUEST_MILLIS} (at most
 * {@link #MAX_HEAD} bytes of head) and the whole exchange end within {@link #EXCHANGE_MILLIS}, after
 * which its connection is closed.
 */
public final class ViewerServer implements AutoCloseable {
    /** The time a client has to send its request line and headers. */
    static final int REQUEST_MILLIS = 10_000;
    /** The time a whole exchange may take, the answer included. */
    static final int EXCHANGE_MILLIS = 60_000;
    /** The most bytes of request head read. */
    static final int MAX_HEAD = 16 * 1024;

    private final ServerSocket socket;
    private final byte[] page;
    private final String token;
    private final String host;
    private final ScheduledExecutorService watchdog;
    private final Thread acceptor;

    private ViewerServer(ServerSocket socket, byte[] page) {
        this.socket = socket;
        this.page = page;
        byte[] secret = new byte[16];
        new SecureRandom().nextBytes(secret);
        this.token = HexFormat.of().formatHex(secret);
        this.host = "127.0.0.1:" + socket.getLocalPort();
        this.watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "stackfold-viewer-watchdog");
            t.setDaemon(true);
            return t;
        });
        this.acceptor = Thread.ofPlatform().daemon().name("stackfold-viewer-accept").unstarted(this::accept);
    }

    /** Starts serving {@code page} on 127.0.0.1 at {@code port} (0: any free port). */
    public static ViewerServer start(byte[] page, int port) throws IOException {
        ServerSocket s = new ServerSocket();
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
        ViewerServer server = new ViewerServer(s, page);
        server.acceptor.start();
        return server;
    }

    private void accept() {
        while (!socket.isClosed()) {
            Socket client;
            try {
                client = socket.accept();
            } catch (IOException e) {
                if (socket.isClosed()) {
                    return;
                }
                continue;
            }
            var deadline = watchdog.schedule(() -> closeQuietly(client), EXCHANGE_MILLIS, TimeUnit.MILLISECONDS);
            Thread.ofVirtual().name("stackfold-viewer-client").start(() -> {
                try (client) {
                    serve(client);
                } catch (IOException | RuntimeException e) {
                    // a client that went away or misbehaved: its connection only
                } finally {
                    deadline.cancel(false);
                }
            });
        }
    }

    private void serve(Socket client) throws IOException {
        client.setSoTimeout(REQUEST_MILLIS);
        String head = readHead(new java.io.BufferedInputStream(client.getInputStream(), 4096));
        OutputStream out = client.getOutputStream();
        if (head == null) {
            answer(out, 400, "Bad Request");
            return;
        }
        String[] lines = head.split("\r\n");
        String[] request = lines[0].split(" ");
        if (request.length != 3 || !request[2].startsWith("HTTP/1.")) {
            answer(out, 400, "Bad Request");
            return;
        }
        String hostHeader = null;
        int hosts = 0;
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0 && lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT).equals("host")) {
                hostHeader = lines[i].substring(colon + 1).strip();
                hosts++;
            }
        }
        if (hosts != 1 || !host.equals(hostHeader)) {
            answer(out, 403, "Forbidden: this server answers only http://" + host + "/");
            return;
        }
        if (!hasToken(request[1])) {
            answer(out, 403, "Forbidden: open the URL stackfold printed (it carries a token)");
            return;
        }
        String method = request[0];
        if (!method.equals("GET") && !method.equals("HEAD")) {
            answer(out, 405, "Method Not Allowed");
            return;
        }
        String headers = "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nCache-Control: no-store\r\n"
                + "X-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\nX-Frame-Options: DENY\r\n"
                + "Content-Length: " + page.length + "\r\nConnection: close\r\n\r\n";
        out.write(headers.getBytes(StandardCharsets.US_ASCII));
        if (method.equals("GET")) {
            out.write(page);
        }
        out.flush();
    }

    /** Whether the request target's query holds {@code token=SECRET}. */
    private boolean hasToken(String target) {
        int q = target.indexOf('?');
        if (q < 0) {
            return false;
        }
        int hash = target.indexOf('#', q);
        String query = target.substring(q + 1, hash < 0 ? target.length() : hash);
        for (String p : query.split("&")) {
            if (java.security.MessageDigest.isEqual(p.getBytes(StandardCharsets.US_ASCII),
                    ("token=" + token).getBytes(StandardCharsets.US_ASCII))) {
                return true;
            }
        }
        return false;
    }

    /** The request line and headers up to the blank line, or null when too long or cut. */
    private static String readHead(InputStream in) throws IOException {
        byte[] b = new byte[MAX_HEAD];
        int n = 0;
        while (n < b.length) {
            int c = in.read();
            if (c < 0) {
                return null;
            }
            b[n++] = (byte) c;
            if (n >= 4 && b[n - 4] == '\r' && b[n - 3] == '\n' && b[n - 2] == '\r' && b[n - 1] == '\n') {
                return new String(b, 0, n - 4, StandardCharsets.ISO_8859_1);
            }
        }
        return null;
    }

    private static void answer(OutputStream out, int status, String text) throws IOException {
        byte[] body = (text + "\n").getBytes(StandardCharsets.UTF_8);
        out.write(("HTTP/1.1 " + status + " " + (status == 200 ? "OK" : "Error") + "\r\nContent-Type: text/plain; charset=utf-8\r\n"
                + "Content-Length: " + body.length + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }

    /** The URL to open: the loopback address, the port and the per-run token. */
    public String url() {
        return "http://" + host + "/?token=" + token;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closed
        }
        watchdog.shutdownNow();
    }
}
