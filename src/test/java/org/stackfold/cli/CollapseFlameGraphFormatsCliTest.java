package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** End to end: {@code stackfold collapse FORMAT} for FlameGraph's other collapsers, with their option names. */
class CollapseFlameGraphFormatsCliTest {
    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
    }

    private static String res(String rel) throws Exception {
        return Path.of(CollapseFlameGraphFormatsCliTest.class.getResource("/collapse/" + rel).toURI()).toString();
    }

    private List<String> expected(String rel) throws Exception {
        return Files.readAllLines(Path.of(res(rel)));
    }

    @Test
    void jstackWithThePerlScriptsOptionNames() throws Exception {
        Path o = dir.resolve("j.folded");
        assertThat(run("collapse", "jstack", "--include-tid", "--shorten-pkgs", res("jstack/jstack-jdk25.txt"),
                "-o", o.toString())).isEqualTo(0);
        assertThat(Files.readAllLines(o)).containsExactlyElementsOf(expected("jstack/jstack-jdk25.tid-shorten.fg.folded"));
        assertThat(run("collapse", "jstack", "--no-include-tname", res("jstack/jstack-jdk25.txt"))).isEqualTo(0);
        assertThat(out.toString().lines().toList()).containsExactlyElementsOf(expected("jstack/jstack-jdk25.no-tname.fg.folded"));
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void xdebugCountAndPerfSchedRecurseAndVtuneMcSize() throws Exception {
        Path x = dir.resolve("x.folded");
        assertThat(run("collapse", "xdebug", "-c", res("xdebug/trace.xt"), "-o", x.toString())).isEqualTo(0);
        assertThat(Files.readAllLines(x)).containsExactlyElementsOf(expected("xdebug/trace.count.fg.folded"));
        Path s = dir.resolve("s.folded");
        assertThat(run("collapse", "perf-sched", "--recurse", res("perf-sched/sched-pid.txt"), "-o", s.toString())).isEqualTo(0);
        assertThat(Files.readAllLines(s)).containsExactlyElementsOf(expected("perf-sched/sched-pid.recurse.fg.folded"));
        Path v = dir.resolve("v.folded");
        assertThat(run("collapse", "vtune-mc", "--size", res("vtune-mc/allocations.csv"), "-o", v.toString())).isEqualTo(0);
        assertThat(Files.readAllLines(v)).containsExactlyElementsOf(expected("vtune-mc/allocations.size.fg.folded"));
    }

    @Test
    void guessPicksGdbAndElfutilsWithPidAndTid() throws Exception {
        Path g = dir.resolve("g.folded");
        assertThat(run("collapse", "guess", res("gdb/gdb-pmp.txt"), "-o", g.toString())).isEqualTo(0);
        assertThat(Files.readAllLines(g)).containsExactlyElementsOf(expected("gdb/gdb-pmp.fg.folded"));
        Path e = dir.resolve("e.folded");
        assertThat(run("collapse", "guess", "--pid", "--tid", res("elfutils/eu-stack.txt"), "-o", e.toString())).isEqualTo(0);
        assertThat(Files.readAllLines(e)).containsExactlyElementsOf(expected("elfutils/eu-stack.pid-tid.fg.folded"));
    }

    @Test
    void badInputIsOneLineNamingFileAndLineAndExitCodeOne() throws Exception {
        Path bad = dir.resolve("bad.stap");
        Files.writeString(bad, " 0xffffffff8103ce3b : native_safe_halt+0xb/0x10 [kernel]\n 12\n 13\n");
        Path o = dir.resolve("o.folded");
        assertThat(run("collapse", "stap", bad.toString(), "-o", o.toString())).isEqualTo(1);
        assertThat(err.toString().strip()).startsWith("stackfold: " + bad + ":3: ").doesNotContain("\n");
        assertThat(o).doesNotExist();
    }
}
