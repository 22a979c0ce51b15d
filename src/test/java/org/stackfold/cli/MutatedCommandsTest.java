package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.render.viewer.ViewerServer;

/**
 * The fuzz invariants of {@link MutatedInputsTest} for the newer commands (issue 28): a fleet table
 * whose Parquet files are damaged, an uploader against a server that answers garbage, and the viewer's
 * server fed garbage requests. Exit 0, 1 or 2; one line of error at most (push: one per input and its
 * summary); no internal error, no hang, nothing left in the temporary directory. Seeded, replayable.
 * (ELF and DWARF mutations through symbolize: {@code SymbolizeMutationsTest}.)
 */
class MutatedCommandsTest {
    private static final int ROUNDS = Integer.parseInt(System.getenv().getOrDefault("STACKFOLD_FUZZ_ROUNDS", "12"));

    @TempDir
    Path dir;

    record Run(int code, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Assertions.assertTimeoutPreemptively(Duration.ofSeconds(60),
                () -> Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true)),
                () -> "hung: " + String.join(" ", args));
        return new Run(code, out.toString(), err.toString());
    }

    private static void invariants(Run r, String what, int maxLines) {
        assertThat(r.code()).as(what + ": " + r.err()).isIn(0, 1, 2);
        assertThat(r.err()).as(what).doesNotContain("internal error").doesNotContain("\tat ");
        assertThat(r.err().lines().filter(l -> !l.startsWith("stackfold: warning: ")).count()).as(what + ": " + r.err())
                .isLessThanOrEqualTo(maxLines);
    }

    private static List<String> temps() throws IOException {
        try (Stream<Path> s = Files.list(org.stackfold.io.TempFiles.directory())) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(org.stackfold.io.TempFiles.prefix())).toList();
        }
    }

    @Test
    void damagedTableFiles() throws IOException {
        Path folded = dir.resolve("p.folded");
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            b.append("main;f").append(i % 17).append(";g").append(i % 5).append(' ').append(1 + i).append('\n');
        }
        Files.writeString(folded, b.toString());
        Path clean = dir.resolve("clean");
        Run stored = run("store", folded.toString(), "--to", clean.toString(), "--label", "service=api", "--label", "v=1");
        assertThat(stored.code()).as(stored.err()).isZero();
        Path parquet;
        try (Stream<Path> s = Files.walk(clean)) {
            parquet = s.filter(p -> p.toString().endsWith(".parquet")).findFirst().orElseThrow();
        }
        byte[] original = Files.readAllBytes(parquet);
        List<String> before = temps();
        for (int round = 0; round < ROUNDS * 3; round++) {
            SplittableRandom random = new SplittableRandom(9000 + round);
            MutatedInputsTest.Mutation m = MutatedInputsTest.Mutation.apply(original, random);
            Path table = dir.resolve("t" + round);
            Path target = table.resolve(clean.relativize(parquet).toString());
            Files.createDirectories(target.getParent());
            Files.write(target, m.bytes());
            String what = "table after " + m.what() + " (round " + round + ")";
            for (String[] args : new String[][] {
                    {"query", table.toString()},
                    {"query", table.toString(), "--top", "3"},
                    {"query", table.toString(), "--label", "v=1", "-o", dir.resolve("o" + round + ".pb.gz").toString()},
                    {"query", table.toString(), "--sql", "SELECT service, count(*) FROM samples GROUP BY ALL"}}) {
                Run r = run(args);
                invariants(r, String.join(" ", args) + " " + what, 1);
            }
        }
        assertThat(temps()).as("temporary files").isSubsetOf(before);
    }

    @Test
    void anUploaderAgainstAServerThatAnswersGarbage() throws Exception {
        Path folded = dir.resolve("p.folded");
        Files.writeString(folded, "main;a 3\nmain;b 4\n");
        try (ServerSocket server = new ServerSocket(0, 16, InetAddress.getLoopbackAddress())) {
            int rounds = ROUNDS;
            Thread t = Thread.ofPlatform().daemon().start(() -> {
                for (int i = 0; i < rounds * 2 && !server.isClosed(); i++) {
                    SplittableRandom random = new SplittableRandom(7000 + i);
                    try (Socket s = server.accept()) {
                        s.setSoTimeout(5000);
                        InputStream in = s.getInputStream();
                        in.readNBytes(Math.min(in.available(), 1 << 16));
                        byte[] answer = garbageAnswer(random);
                        OutputStream out = s.getOutputStream();
                        out.write(answer);
                        out.flush();
                    } catch (IOException e) {
                        // the client gave up: fine
                    }
                }
            });
            for (int round = 0; round < rounds; round++) {
                Run r = run("push", "http://127.0.0.1:" + server.getLocalPort(), folded.toString(), "--timeout", "2",
                        "--attempts", "1");
                invariants(r, "push round " + round, 2);
                assertThat(r.code()).isIn(0, 1);
            }
            server.close();
            t.join(10_000);
        }
    }

    /** An HTTP answer cut, flipped or made up: a status of any number, headers that lie, bytes. */
    static byte[] garbageAnswer(SplittableRandom r) {
        String[] statuses = {"200 OK", "302 Found", "503 Busy", "429 Slow", "999 What", "abc", "204 No Content"};
        String head = "HTTP/1.1 " + statuses[r.nextInt(statuses.length)] + "\r\n"
                + (r.nextBoolean() ? "Content-Length: " + r.nextInt(-5, 1_000_000) + "\r\n" : "")
                + (r.nextBoolean() ? "Retry-After: " + (r.nextBoolean() ? "1" : "Thu, 01 Jan 1970 00:00:00 GMT") + "\r\n" : "")
                + (r.nextBoolean() ? "Content-Type: application/x-protobuf\r\n" : "")
                + "\r\n";
        byte[] h = head.getBytes(StandardCharsets.ISO_8859_1);
        byte[] body = new byte[r.nextInt(300)];
        r.nextBytes(body);
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(h);
        b.writeBytes(body);
        byte[] all = b.toByteArray();
        if (r.nextInt(3) == 0) {
            all = java.util.Arrays.copyOf(all, r.nextInt(all.length + 1));
        }
        if (r.nextInt(3) == 0 && all.length > 0) {
            all[r.nextInt(all.length)] ^= (byte) (1 << r.nextInt(8));
        }
        return all;
    }

    @Test
    void theViewersServerFedGarbage() throws Exception {
        byte[] page = "<!doctype html><p>x</p>".getBytes(StandardCharsets.UTF_8);
        try (ViewerServer server = ViewerServer.start(page, 0)) {
            URI url = URI.create(server.url());
            int port = url.getPort();
            for (int round = 0; round < ROUNDS * 4; round++) {
                SplittableRandom r = new SplittableRandom(5000 + round);
                byte[] request = ("GET " + url.getRawPath() + "?" + url.getRawQuery() + " HTTP/1.1\r\nHost: 127.0.0.1:" + port
                        + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
                MutatedInputsTest.Mutation m = MutatedInputsTest.Mutation.apply(request, r);
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
                    s.setSoTimeout(15_000);
                    s.getOutputStream().write(m.bytes());
                    s.shutdownOutput();
                    String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
                    if (!answer.isEmpty()) {
                        assertThat(answer).as(m.what()).startsWith("HTTP/1.1 ");
                        if (answer.startsWith("HTTP/1.1 200")) {
                            assertThat(answer).as(m.what()).endsWith("<!doctype html><p>x</p>");
                        }
                    }
                }
            }
            // Still serving, and only the page.
            try (Socket s = new Socket("127.0.0.1", port)) {
                s.getOutputStream().write(("GET " + url.getRawPath() + "?" + url.getRawQuery() + " HTTP/1.1\r\nHost: 127.0.0.1:"
                        + port + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                assertThat(new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1)).startsWith("HTTP/1.1 200");
            }
        }
    }
}
