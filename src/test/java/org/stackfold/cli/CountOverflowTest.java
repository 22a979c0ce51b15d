package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Counts that don't fit in 64 bits: sums past 2^63-1 across stacks and values such as VTune's 1e20
 * are one clear line naming the file (or line), never a silent clamp to 2^63-1 and never
 * "internal error: java.lang.ArithmeticException: long overflow".
 */
class CountOverflowTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"info", "top", "flamegraph", "convert --to speedscope", "diff -n"})
    void sumsPastTwoToTheSixtyThreeAreOneLine(String command) throws Exception {
        Path in = Files.writeString(dir.resolve("big.folded"), "a;b 9223372036854775807\na;c 9223372036854775807\n");
        List<String> args = new ArrayList<>(List.of(command.split(" ")));
        args.add(in.toString());
        if (command.startsWith("diff")) {
            args.add(in.toString());
        }
        StringWriter err = new StringWriter();
        int code = Main.run(args.toArray(String[]::new), new ByteArrayOutputStream(), new PrintWriter(err, true));
        assertThat(code).isEqualTo(1);
        assertThat(err.toString().lines().toList()).singleElement().asString()
                .startsWith("stackfold: " + in).contains("more than 2^63-1").doesNotContain("internal error");
    }

    @Test
    void vtuneValuesPastTwoToTheSixtyThreeAreAnErrorAtTheirLine() throws Exception {
        Path in = Files.writeString(dir.resolve("v.csv"),
                "Function Stack,CPU Time:Self,Module\nTotal,100,[Unknown]\n main,1e20,mod\n");
        StringWriter err = new StringWriter();
        int code = Main.run(new String[] {"collapse", "vtune", in.toString()}, new ByteArrayOutputStream(),
                new PrintWriter(err, true));
        assertThat(code).isEqualTo(1);
        assertThat(err.toString()).startsWith("stackfold: " + in + ":3: ").contains("1e20").contains("does not fit");
    }
}
