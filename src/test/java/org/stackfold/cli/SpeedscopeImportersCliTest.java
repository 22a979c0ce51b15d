package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stackfold.cli.CliRun.run;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Callgrind, stackprof and V8 --prof files through the commands, found by content and by name. */
class SpeedscopeImportersCliTest {
    @TempDir
    Path dir;

    private Path copy(String resource, String name) throws Exception {
        Path to = dir.resolve(name);
        Files.copy(Path.of(SpeedscopeImportersCliTest.class.getResource("/formats/" + resource).toURI()), to);
        return to;
    }

    @Test
    void everyCommandReadsTheFormatsByContent() throws Exception {
        // names that say nothing: the content decides
        Path callgrind = copy("callgrind/callgrind.example.log", "a.txt");
        Path stackprof = copy("stackprof/simple-cpu-stackprof.json", "b.json");
        Path v8 = copy("v8log/simple.v8log.json.gz", "c.gz");
        CliRun info = run("info", callgrind.toString());
        assertThat(info.code()).as(info.err()).isZero();
        assertThat(info.out()).contains("callgrind", "820 Instructions");
        CliRun fold = run("fold", callgrind.toString());
        assertThat(fold.out()).isEqualTo("main 20\nmain;func1 100\nmain;func1;func2 300\nmain;func2 400\n");
        assertThat(run("collapse", "guess", callgrind.toString()).out()).isEqualTo(fold.out());
        assertThat(run("collapse", "guess", stackprof.toString()).out()).isEqualTo(run("fold", stackprof.toString()).out());
        assertThat(run("info", stackprof.toString()).out()).contains("stackprof");
        assertThat(run("info", v8.toString()).out()).contains("v8log");
        for (Path in : new Path[] {callgrind, stackprof, v8}) {
            CliRun svg = run("flamegraph", in.toString(), "-o", dir.resolve(in.getFileName() + ".svg").toString());
            assertThat(svg.code()).as(svg.err()).isZero();
            CliRun html = run("view", in.toString(), "-o", dir.resolve(in.getFileName() + ".html").toString());
            assertThat(html.code()).as(html.err()).isZero();
            CliRun top = run("top", in.toString(), "-n", "3");
            assertThat(top.code()).as(top.err()).isZero();
        }
    }

    @Test
    void convertWritesCallgrindByNameAndReadsItBack() throws Exception {
        Path folded = dir.resolve("p.folded");
        Files.writeString(folded, "main;a;b 5\nmain;c 2\nmain 1\n");
        Path out = dir.resolve("callgrind.out.42");
        CliRun r = run("convert", folded.toString(), "-o", out.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(Files.readString(out)).startsWith("# callgrind format\n");
        assertThat(run("fold", out.toString()).out()).isEqualTo("main 1\nmain;a;b 5\nmain;c 2\n");
        assertThat(run("convert", folded.toString(), "--to", "callgrind").out()).contains("fn=(1) main\n0 1\n");
        Path named = dir.resolve("x.callgrind");
        assertThat(run("convert", folded.toString(), "-o", named.toString()).code()).isZero();
        assertThat(Files.readString(named)).isEqualTo(Files.readString(out));
    }

    @Test
    void theEventOptionPicksACallgrindEvent() throws Exception {
        Path f = copy("callgrind/callgrind.multiple-event-types.log", "callgrind.out.1");
        CliRun r = run("convert", f.toString(), "--event", "Memory_(bytes)", "--to", "folded");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("main;func1;func2 5000\n");
    }

    @Test
    void badFilesAreOneLineErrors() throws Exception {
        Path bad = dir.resolve("callgrind.out.7");
        Files.writeString(bad, "events: Ir\nfn=(3)\n");
        CliRun r = run("fold", bad.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err().strip()).isEqualTo("stackfold: " + bad + ":2: callgrind: name (3) used before it was defined");
        Path json = dir.resolve("x.stackprof.json");
        Files.writeString(json, "{\"mode\":\"cpu\",\"interval\":1,\"frames\":{},\"raw\":[1,5,1]}");
        CliRun s = run("fold", json.toString());
        assertThat(s.code()).isEqualTo(1);
        assertThat(s.err().strip()).isEqualTo("stackfold: " + json + ": stackprof: raw[1]: frame 5 is not in \"frames\"");
    }
}
