package org.stackfold.render.flamegraph;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Just enough of the W3C WebDriver protocol to drive Debian's chromium through chromedriver over
 * HTTP: no Selenium dependency. One instance = one chromedriver process + one headless session.
 */
public final class WebDriverClient implements AutoCloseable {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

    private final Process driver;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final String base;
    private final String session;
    private final Path profileDir;

    public static boolean available() {
        return Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
    }

    public WebDriverClient() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        driver = new ProcessBuilder(CHROMEDRIVER.toString(), "--port=" + port)
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        base = "http://127.0.0.1:" + port;
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            try {
                if (get("/status") != null) {
                    break;
                }
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    driver.destroyForcibly();
                    throw new IOException("chromedriver did not start", e);
                }
                Thread.sleep(100);
            }
        }
        profileDir = Files.createTempDirectory("stackfold-chromium");
        String args = String.join(",", List.of("\"--headless\"", "\"--no-sandbox\"", "\"--disable-gpu\"",
                "\"--disable-quic\"", "\"--no-first-run\"", "\"--disable-background-networking\"",
                "\"--disable-component-update\"", "\"--disable-sync\"", "\"--disable-dev-shm-usage\"",
                json("--user-data-dir=" + profileDir)));
        Object r = post("/session", "{\"capabilities\":{\"alwaysMatch\":{\"browserName\":\"chrome\","
                + "\"unhandledPromptBehavior\":\"ignore\","
                + "\"goog:chromeOptions\":{\"binary\":" + json(CHROMIUM.toString()) + ",\"args\":[" + args + "]}}}}");
        @SuppressWarnings("unchecked")
        Map<String, Object> value = (Map<String, Object>) r;
        session = (String) value.get("sessionId");
    }

    public void open(String url) throws IOException, InterruptedException {
        post("/session/" + session + "/url", "{\"url\":" + json(url) + "}");
    }

    public void windowSize(int width, int height) throws IOException, InterruptedException {
        post("/session/" + session + "/window/rect", "{\"width\":" + width + ",\"height\":" + height + "}");
    }

    /** Runs a script (with {@code return}) in the page; returns its value as parsed JSON. */
    public Object script(String js) throws IOException, InterruptedException {
        return post("/session/" + session + "/execute/sync", "{\"script\":" + json(js) + ",\"args\":[]}");
    }

    /** Clicks the element matching a CSS selector, as a user would (centre of its box). */
    public void click(String css) throws IOException, InterruptedException {
        @SuppressWarnings("unchecked")
        Map<String, Object> el = (Map<String, Object>) post("/session/" + session + "/element",
                "{\"using\":\"css selector\",\"value\":" + json(css) + "}");
        String id = (String) el.values().iterator().next();
        post("/session/" + session + "/element/" + id + "/click", "{}");
    }

    /** The text of an open alert/prompt, or null when none is open. */
    public String alertText() throws IOException, InterruptedException {
        try {
            return (String) get("/session/" + session + "/alert/text");
        } catch (IOException e) {
            return null;
        }
    }

    public void answerPrompt(String text) throws IOException, InterruptedException {
        post("/session/" + session + "/alert/text", "{\"text\":" + json(text) + "}");
        post("/session/" + session + "/alert/accept", "{}");
    }

    private Object get(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        return value(r);
    }

    private Object post(String path, String body) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        return value(r);
    }

    private static Object value(HttpResponse<String> r) throws IOException {
        Object parsed = new Json(r.body()).parse();
        if (r.statusCode() != 200) {
            throw new IOException("webdriver " + r.statusCode() + ": " + r.body());
        }
        return parsed instanceof Map<?, ?> m ? m.get("value") : parsed;
    }

    @Override
    public void close() throws Exception {
        try {
            http.send(HttpRequest.newBuilder(URI.create(base + "/session/" + session)).DELETE().build(),
                    HttpResponse.BodyHandlers.discarding());
        } catch (IOException ignored) {
            // the driver goes anyway
        } finally {
            driver.destroy();
            if (!driver.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
                driver.destroyForcibly();
            }
            try (var files = Files.walk(profileDir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException ignored) {
                // temp dir
            }
        }
    }

    static String json(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    /** A small JSON reader: objects, arrays, strings, numbers (as Double), booleans, null. */
    static final class Json {
        private final String s;
        private int i;

        Json(String s) {
            this.s = s;
        }

        Object parse() {
            ws();
            char c = s.charAt(i);
            switch (c) {
                case '{' -> {
                    i++;
                    Map<String, Object> m = new LinkedHashMap<>();
                    ws();
                    if (s.charAt(i) == '}') {
                        i++;
                        return m;
                    }
                    while (true) {
                        ws();
                        String k = (String) parse();
                        ws();
                        i++; // :
                        m.put(k, parse());
                        ws();
                        if (s.charAt(i++) == '}') {
                            return m;
                        }
                    }
                }
                case '[' -> {
                    i++;
                    List<Object> l = new ArrayList<>();
                    ws();
                    if (s.charAt(i) == ']') {
                        i++;
                        return l;
                    }
                    while (true) {
                        l.add(parse());
                        ws();
                        if (s.charAt(i++) == ']') {
                            return l;
                        }
                    }
                }
                case '"' -> {
                    i++;
                    StringBuilder b = new StringBuilder();
                    while (true) {
                        char d = s.charAt(i++);
                        if (d == '"') {
                            return b.toString();
                        }
                        if (d == '\\') {
                            char e = s.charAt(i++);
                            switch (e) {
                                case 'n' -> b.append('\n');
                                case 't' -> b.append('\t');
                                case 'r' -> b.append('\r');
                                case 'b' -> b.append('\b');
                                case 'f' -> b.append('\f');
                                case 'u' -> {
                                    b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                                    i += 4;
                                }
                                default -> b.append(e);
                            }
                        } else {
                            b.append(d);
                        }
                    }
                }
                case 't' -> {
                    i += 4;
                    return Boolean.TRUE;
                }
                case 'f' -> {
                    i += 5;
                    return Boolean.FALSE;
                }
                case 'n' -> {
                    i += 4;
                    return null;
                }
                default -> {
                    int st = i;
                    while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                        i++;
                    }
                    return Double.parseDouble(s.substring(st, i));
                }
            }
        }

        private void ws() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
        }
    }
}
