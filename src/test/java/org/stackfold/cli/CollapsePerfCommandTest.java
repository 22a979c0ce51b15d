package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stackfold.cli.CliRun.run;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code stackfold collapse perf} end to end through the CLI. */
class CollapsePerfCommandTest {
    @TempDir
    Path dir;

    private Path resource(String name) throws IOException {
        Path p = dir.resolve(name.replace('/', '_'));
        try (InputStream in = getClass().getResourceAsStream("/collapse/perf/" + name)) {
            Files.copy(in, p);
        }
        return p;
    }

    private static List<String> lines(Path p) throws IOException {
        return Files.readAllLines(p, StandardCharsets.UTF_8).stream().filter(l -> !l.isEmpty()).sorted().toList();
    }

    @Test
    void collapsesAFileWithPeerOptions() throws IOException {
        Path in = resource("inputs/fg__test__perf-dd-stacks-01.txt");
        Path out = dir.resolve("out.folded");
        CliRun r = run("collapse", "perf", "--pid", "--all", "--perl-compat", in.toString(), "-o", out.toString());
        assertThat(r.code()).isZero();
        List<String> got = lines(out);
        assertThat(got).contains("dd-?;[unknown];read;system_call_[k];sys_read_[k];vfs_read_[k];fsnotify_[k] 10101010");
        assertThat(got).allMatch(l -> l.startsWith("dd-?;"));
    }

    @Test
    void readsGzipInput() throws IOException {
        Path in = resource("inputs/fg__example-perf-stacks.txt.gz");
        Path out = dir.resolve("out.folded");
        assertThat(run("collapse", "perf", in.toString(), "-o", out.toString()).code()).isZero();
        List<String> want = Files.readAllLines(resource(
                "expected/inferno__collapse-perf__results__example-perf-stacks-collapsed.txt")).stream()
                .filter(l -> !l.isEmpty()).sorted().toList();
        assertThat(lines(out)).isEqualTo(want);
    }

    @Test
    void badInputIsOneLineWithTheLineNumber() throws IOException {
        Path in = dir.resolve("bad.txt");
        Files.writeString(in, "a 1 1.0: 1 cycles:\n\t1 f (/x)\n\tTHIS_IS_A_WEIRD_LINE\n\n");
        Path out = dir.resolve("out.folded");
        CliRun r = run("collapse", "perf", in.toString(), "-o", out.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err().strip()).startsWith("stackfold: " + in + ":3: ").doesNotContain("\n").doesNotContain("Exception");
        assertThat(out).doesNotExist();
        assertThat(run("collapse", "perf", "--lenient", in.toString(), "-o", out.toString()).code()).isZero();
        assertThat(lines(out)).containsExactly("a;f 1");
    }

    @Test
    void helpListsThePerfOptions() {
        CliRun r = run("collapse", "--help");
        assertThat(r.out()).contains("--pid", "--tid", "--kernel", "--jit", "--all", "--addrs", "--event-filter",
                "--skip-after", "--inline", "--context", "--srcline", "--perl-compat");
    }
}
