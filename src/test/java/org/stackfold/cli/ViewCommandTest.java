package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.render.viewer.ViewerServer;

/** stackfold view end to end, and flamegraph --flamechart from every ordered format. */
class ViewCommandTest {
    @TempDir
    Path tmp;

    record Run(int rc, String out, String err) {
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = Main.run(args, new PrintWriter(out), new PrintWriter(err));
        return new Run(rc, out.toString(), err.toString());
    }

    Path file(String name, String content) throws Exception {
        Path p = tmp.resolve(name);
        Files.writeString(p, content);
        return p;
    }

    @Test
    void writesOneSelfContainedPage() throws Exception {
        Path in = file("p.folded", "main;a 3\nmain;b 4\n");
        Path html = tmp.resolve("p.html");
        Run r = run("view", in.toString(), "-o", html.toString());
        assertThat(r.rc()).as(r.err()).isZero();
        String page = Files.readString(html);
        assertThat(page).startsWith("<!DOCTYPE html>").contains("id=\"sf-data\"").contains("default-src 'none'");
        assertThat(page).contains("<title>" + in + "</title>");
    }

    @Test
    void diffOfTwoProfilesAndOfADiffFile() throws Exception {
        Path a = file("a.folded", "main;x 3\n");
        Path b = file("b.folded", "main;x 9\n");
        Run r = run("view", "--diff", a.toString(), b.toString(), "-o", tmp.resolve("d.html").toString());
        assertThat(r.rc()).as(r.err()).isZero();
        assertThat(Files.readString(tmp.resolve("d.html"))).contains("\"columns\":2");
        Path d = file("c.diff.folded", "main;x 3 9\n");
        assertThat(run("view", d.toString(), "-o", tmp.resolve("e.html").toString()).rc()).isZero();
        assertThat(Files.readString(tmp.resolve("e.html"))).contains("\"columns\":2");
    }

    @Test
    void severalInputsAreComparedUnlessMerged() throws Exception {
        Path a = file("a.folded", "main;x 3\n");
        Path b = file("b.folded", "main;y 9\n");
        Run r = run("view", a.toString(), b.toString(), "-o", tmp.resolve("c.html").toString());
        assertThat(r.rc()).as(r.err()).isZero();
        String page = Files.readString(tmp.resolve("c.html"));
        assertThat(page).contains("\"profiles\":[{\"label\":").contains("id=\"sf-data-1\"");
        Run m = run("view", "--merge-inputs", a.toString(), b.toString(), "-o", tmp.resolve("m.html").toString());
        assertThat(m.rc()).as(m.err()).isZero();
        assertThat(Files.readString(tmp.resolve("m.html"))).doesNotContain("\"profiles\"").doesNotContain("sf-data-1");
        Run bad = run("view", a.toString(), tmp.resolve("missing.folded").toString(), "-o", tmp.resolve("x.html").toString());
        assertThat(bad.rc()).isEqualTo(1);
        assertThat(bad.err()).contains("missing.folded");
        assertThat(tmp.resolve("x.html")).doesNotExist();
    }

    @Test
    void usageAndInputErrors() throws Exception {
        Path a = file("a.folded", "main;x 3\n");
        assertThat(run("view", "--diff", a.toString()).rc()).isEqualTo(2);
        assertThat(run("view", "--serve", "-o", "x.html", a.toString()).rc()).isEqualTo(2);
        Run missing = run("view", tmp.resolve("nope.folded").toString(), "-o", tmp.resolve("n.html").toString());
        assertThat(missing.rc()).isEqualTo(1);
        assertThat(missing.err()).contains("nope.folded");
        assertThat(tmp.resolve("n.html")).doesNotExist();
    }

    @Test
    void tachyonKeepsItsTimeline() throws Exception {
        Path html = tmp.resolve("t.html");
        Run r = run("view", "src/test/resources/tachyon/edge/edge_threads.bin", "-o", html.toString());
        assertThat(r.rc()).as(r.err()).isZero();
        assertThat(Files.readString(html)).contains("\"timeUnit\":\"microseconds\"");
        run("view", "--no-timeline", "src/test/resources/tachyon/edge/edge_threads.bin", "-o", html.toString());
        assertThat(Files.readString(html)).contains("\"timeUnit\":null");
    }

    @Test
    void serverAnswersOnLoopbackOnly() throws Exception {
        byte[] page = "<!DOCTYPE html><p>x</p>".getBytes();
        try (ViewerServer s = ViewerServer.start(page, 0)) {
            assertThat(s.url()).startsWith("http://127.0.0.1:");
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(s.url())).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("<!DOCTYPE html><p>x</p>");
            assertThat(r.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
            HttpResponse<String> post = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(s.url()))
                    .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(post.statusCode()).isEqualTo(405);
        }
    }

    @Test
    void flameChartFromEveryOrderedFormat() throws Exception {
        for (String in : new String[] {"src/test/resources/formats/jfr-heavy.jfr",
                "src/test/resources/formats/speedscope/0.0.1_simple.speedscope.json",
                "src/test/resources/formats/speedscope/0.6.0_two-sampled.speedscope.json",
                "src/test/resources/tachyon/edge/edge_threads.bin"}) {
            Path svg = tmp.resolve("chart.svg");
            Run r = run("flamegraph", "--flamechart", in, "-o", svg.toString());
            assertThat(r.rc()).as(in + ": " + r.err()).isZero();
            String text = Files.readString(svg);
            assertThat(text).as(in).contains("Flame Chart");
            assertThat(text.split("<title>", -1).length).as(in).isGreaterThan(4);
        }
    }

    @Test
    void flameChartFromAnUnorderedFormatIsRefused() {
        Run r = run("flamegraph", "--flamechart", "src/test/resources/formats/go/go119-cpu.pb.gz", "-o",
                tmp.resolve("x.svg").toString());
        assertThat(r.rc()).isEqualTo(1);
        assertThat(r.err().strip()).contains("go119-cpu.pb.gz: pprof keeps no sample order").doesNotContain("\n");
        assertThat(tmp.resolve("x.svg")).doesNotExist();
    }

    @Test
    void flameChartOfASpeedscopeEventedProfileFollowsItsEvents() throws Exception {
        Path in = file("e.speedscope.json", """
                {"$schema":"https://www.speedscope.app/file-format-schema.json",
                 "shared":{"frames":[{"name":"main"},{"name":"a"},{"name":"b"}]},
                 "profiles":[{"type":"evented","name":"t","unit":"none","startValue":0,"endValue":10,
                   "events":[{"type":"O","frame":0,"at":0},{"type":"O","frame":1,"at":0},{"type":"C","frame":1,"at":4},
                             {"type":"O","frame":2,"at":4},{"type":"C","frame":2,"at":6},{"type":"O","frame":1,"at":6},
                             {"type":"C","frame":1,"at":10},{"type":"C","frame":0,"at":10}]}]}
                """);
        Path svg = tmp.resolve("e.svg");
        Run r = run("flamegraph", "--flamechart", in.toString(), "-o", svg.toString());
        assertThat(r.rc()).as(r.err()).isZero();
        String text = Files.readString(svg);
        // a, b, a again: the chart keeps the order, so a appears twice.
        assertThat(text.split("<title>a \\(", -1).length - 1).isEqualTo(2);
        assertThat(text.split("<title>b \\(", -1).length - 1).isEqualTo(1);
    }

    @Test
    void flameChartOfADifferentialFoldedFileKeepsBothCountsInLineOrder() throws Exception {
        Path in = file("c.diff.folded", "main;b 1 4\nmain;a 2 2\nmain;b 3 1\n");
        Path svg = tmp.resolve("c.svg");
        Run r = run("flamegraph", "--flamechart", in.toString(), "-o", svg.toString());
        assertThat(r.rc()).as(r.err()).isZero();
        String text = Files.readString(svg);
        assertThat(text.split("<title>b \\(", -1).length - 1).isEqualTo(2);
        // Widths are the second counts; the first b grew (1 -> 4), the second shrank (3 -> 1).
        assertThat(text).contains("before 1, after 4").contains("before 3, after 1");
    }
}
