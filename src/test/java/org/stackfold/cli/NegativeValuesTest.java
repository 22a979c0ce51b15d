package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.Formats;
import org.stackfold.model.Profile;

/**
 * Negative values (pprof made by {@code go tool pprof -diff_base}, speedscope weights) are refused
 * with one line naming the file: never garbage counts ({@code main;foo +}) or {@code fg:w="-5"}.
 */
class NegativeValuesTest {
    @TempDir
    Path dir;

    private Path pprofWithBase() throws Exception {
        Profile p = new Profile();
        int main = p.frames().plain("main");
        p.addStack(new int[] {main, p.frames().plain("foo")}, 2, 7);
        p.addStack(new int[] {main, p.frames().plain("bar")}, 2, -5); // a base sample, negated
        Path f = dir.resolve("diff.pb.gz");
        try (var out = Files.newOutputStream(f)) {
            Formats.byName("pprof").write(p, out, FormatOptions.none());
        }
        return f;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"convert", "fold", "info", "top", "flamegraph", "diff"})
    void pprofDiffBaseIsRefusedInOneLine(String command) throws Exception {
        Path in = pprofWithBase();
        Path out = dir.resolve("out");
        List<String> args = command.equals("diff") ? List.of("diff", in.toString(), in.toString(), "-o", out.toString())
                : command.equals("info") || command.equals("top") ? List.of(command, in.toString())
                : List.of(command, in.toString(), "-o", out.toString());
        StringWriter err = new StringWriter();
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        int code = Main.run(args.toArray(String[]::new), stdout, new PrintWriter(err, true));
        assertThat(code).isEqualTo(1);
        assertThat(err.toString().lines().toList()).singleElement().asString()
                .startsWith("stackfold: " + in).contains("negative sample value -5").contains("diff_base");
        assertThat(out).doesNotExist();
        assertThat(stdout.toString(StandardCharsets.UTF_8)).doesNotContain("fg:w=\"-").doesNotContain("+");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"-5", "-0.5"})
    void speedscopeNegativeWeightIsRefused(String weight) throws Exception {
        Path in = Files.writeString(dir.resolve("neg.speedscope.json"), """
                {"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"a"}]},
                 "profiles":[{"type":"sampled","name":"p","unit":"none","startValue":0,"endValue":1,
                 "samples":[[0],[0]],"weights":[3,%s]}]}""".formatted(weight));
        StringWriter err = new StringWriter();
        int code = Main.run(new String[] {"convert", in.toString(), "--to", "folded"}, new ByteArrayOutputStream(),
                new PrintWriter(err, true));
        assertThat(code).isEqualTo(1);
        assertThat(err.toString().lines().toList()).singleElement().asString().startsWith("stackfold: " + in);
    }
}
