package org.stackfold.render.viewer;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * Serves one viewer page on the loopback interface only (never a wildcard address): for those who
 * would rather open a URL than a file. Every path answers the page; nothing else is served.
 */
public final class ViewerServer implements AutoCloseable {
    private final HttpServer server;

    private ViewerServer(HttpServer server) {
        this.server = server;
    }

    /** Starts serving {@code page} on 127.0.0.1 at {@code port} (0: any free port). */
    public static ViewerServer start(byte[] page, int port) throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        s.createContext("/", exchange -> {
            try (exchange) {
                if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
                    exchange.sendResponseHeaders(405, -1);
                    return;
                }
                exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
                exchange.getResponseHeaders().set("Cache-Control", "no-store");
                exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
                boolean head = exchange.getRequestMethod().equals("HEAD");
                exchange.sendResponseHeaders(200, head ? -1 : page.length);
                if (!head) {
                    try (OutputStream out = exchange.getResponseBody()) {
                        out.write(page);
                    }
                }
            }
        });
        s.start();
        return new ViewerServer(s);
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/";
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
