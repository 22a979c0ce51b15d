package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stackfold.cli.CliRun.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The transform options end to end: every command that reads profiles takes them, in the order given. */
class TransformOptionsCliTest {
    static final String PROFILE = """
            main;handle_request;log;write 4
            main;handle_request;parse 6
            main;gc;mark 3
            thr-2;f;g;f;g;h 2
            """;

    @TempDir
    Path dir;

    private Path file(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    private String fold(String... args) throws IOException {
        Path out = dir.resolve("out.folded");
        Files.deleteIfExists(out);
        String[] all = new String[args.length + 3];
        all[0] = "fold";
        System.arraycopy(args, 0, all, 1, args.length);
        all[args.length + 1] = "-o";
        all[args.length + 2] = out.toString();
        CliRun r = run(all);
        assertThat(r.code()).as(r.err()).isZero();
        return Files.readString(out);
    }

    @Test
    void foldFocusedWithoutLogging() throws IOException {
        Path in = file("p.folded", PROFILE);
        assertThat(fold(in.toString(), "--show-from", "handle_request", "--hide", "^log$"))
                .isEqualTo("handle_request;parse 6\nhandle_request;write 4\n");
        assertThat(fold(in.toString(), "--focus", "handle", "--ignore", "log")).isEqualTo("main;handle_request;parse 6\n");
        assertThat(fold(in.toString(), "--prune-from", "^handle_request$", "--root", "^main$"))
                .isEqualTo("main;gc;mark 3\nmain;handle_request 10\n");
        assertThat(fold(in.toString(), "--collapse-recursion", "^[fg]$", "--show", "^[a-z]$")).isEqualTo("f;g;h 2\n");
        assertThat(fold(in.toString(), "--merge", "^handle_request$", "--top-stacks", "1")).isEqualTo("main;parse 6\n");
        assertThat(fold(in.toString(), "--focus-path", "main;gc")).isEqualTo("gc;mark 3\n");
    }

    @Test
    void theOrderGivenIsTheOrderApplied() throws IOException {
        Path in = file("p.folded", PROFILE);
        assertThat(fold(in.toString(), "--hide", "^log$", "--focus", "^log$")).isEmpty();
        assertThat(fold(in.toString(), "--focus", "^log$", "--hide", "^log$")).isEqualTo("main;handle_request;write 4\n");
        // One option repeated around another: each occurrence in its place.
        assertThat(fold(in.toString(), "--hide", "^main$", "--focus", "^write$", "--hide", "^write$"))
                .isEqualTo("handle_request;log 4\n");
        assertThat(fold(in.toString(), "--hide", "^main$", "--hide", "^write$", "--focus", "^write$")).isEmpty();
    }

    @Test
    void everyCommandThatReadsProfilesTakesThem() throws IOException {
        Path in = file("p.folded", PROFILE);
        CliRun top = run("top", in.toString(), "--focus", "gc");
        assertThat(top.code()).as(top.err()).isZero();
        assertThat(top.out()).contains("mark").doesNotContain("parse").contains("3 samples");
        CliRun info = run("info", in.toString(), "--ignore", "gc");
        assertThat(info.code()).as(info.err()).isZero();
        assertThat(info.out()).contains("total samples      12");
        Path svg = dir.resolve("f.svg");
        CliRun fg = run("flamegraph", in.toString(), "--show-from", "handle_request", "-o", svg.toString());
        assertThat(fg.code()).as(fg.err()).isZero();
        assertThat(Files.readString(svg)).contains("handle_request").doesNotContain(">main (");
        Path html = dir.resolve("v.html");
        CliRun view = run("view", in.toString(), "--hide", "^main$", "-o", html.toString());
        assertThat(view.code()).as(view.err()).isZero();
        Path json = dir.resolve("c.speedscope.json");
        CliRun convert = run("convert", in.toString(), "--map", "^thr-[0-9]+$=thread", "-o", json.toString());
        assertThat(convert.code()).as(convert.err()).isZero();
        assertThat(Files.readString(json)).contains("\"thread\"").doesNotContain("thr-2");
        for (String command : new String[] {"fold", "top", "info", "diff", "flamegraph", "view", "convert", "query", "record"}) {
            CliRun help = run(command, "--help");
            assertThat(help.out()).as(command).contains("--focus=RE", "--show-from=RE", "--map=RE=NAME", "--transforms=HASH");
        }
    }

    @Test
    void diffAfterMap() throws IOException {
        Path a = file("a.folded", "main;work$$Lambda$12/0x01 5\n");
        Path b = file("b.folded", "main;work$$Lambda$40/0x7f 8\n");
        Path out = dir.resolve("d.folded");
        CliRun r = run("diff", a.toString(), b.toString(), "--map", "\\$\\$Lambda\\$.*=\\$\\$Lambda", "-o", out.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(Files.readString(out)).isEqualTo("main;work$$Lambda 5 8\n");
    }

    @Test
    void emptyResultsAndBadOptions() throws IOException {
        Path in = file("p.folded", PROFILE);
        assertThat(fold(in.toString(), "--focus", "no-such-frame")).isEmpty();
        CliRun fg = run("flamegraph", in.toString(), "--focus", "no-such-frame", "-o", dir.resolve("e.svg").toString());
        assertThat(fg.code()).isEqualTo(1);
        assertThat(fg.err()).contains("no stack counts");
        CliRun bad = run("fold", in.toString(), "--hide", "(");
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err()).contains("bad regular expression '('").doesNotContain("Exception");
        assertThat(run("fold", in.toString(), "--map", "nothing").err()).contains("RE=NAME");
        assertThat(run("fold", in.toString(), "--time-range", "0:1").err()).contains("no timeline");
        assertThat(run("fold", in.toString(), "--transforms", "t=bogus:1").err()).contains("not a viewer transform");
    }

    @Test
    void aViewerUrlIsReplayed() throws IOException {
        Path in = file("p.folded", PROFILE);
        // The page numbers frames in its preorder, heaviest first: main 0, handle_request 1, parse 2, ...
        int[] order = org.stackfold.render.viewer.ViewerData.frameOrder(
                new org.stackfold.format.folded.FoldedReader(org.stackfold.format.folded.FoldedReader.Mode.PLAIN, true, 1, w -> { })
                        .read(org.stackfold.io.Input.open(in.toString())).profile());
        assertThat(order).hasSize(11);
        assertThat(fold(in.toString(), "--transforms", "http://127.0.0.1:8000/#v=flame&t=focusfn%3A1,merge%3A3"))
                .isEqualTo(fold(in.toString(), "--show-from", "^handle_request$", "--merge", "^log$"));
        assertThat(run("fold", in.toString(), "--transforms", "t=drop:99").err()).contains("is not in this profile");
    }
}
