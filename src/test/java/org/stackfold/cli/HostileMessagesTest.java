package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.stackfold.collapse.Collapser;
import org.stackfold.collapse.Collapsers;
import org.stackfold.io.Printable;

/**
 * Messages never carry raw control bytes from the input (terminal injection: ESC sequences, BEL,
 * NUL): every collapser and command, given lines that hold them where its parser quotes text,
 * prints them escaped.
 */
class HostileMessagesTest {
    static final String EVIL = "\u001b]0;pwned\u0007\u0000\u001b[2J\r";

    @TempDir
    static Path dir;

    /** Inputs that make parsers quote what they read: bad counts, bad headers, bad frames. */
    static List<String> inputs() {
        return List.of(
                "Call graph:\n    10 Thread_1\n    + " + EVIL + "x broken\n",
                "Function Stack,CPU Time:Self,Module\nTotal,100,[Unknown]\n  " + EVIL + ",5,mod\n   bad" + EVIL + "\n",
                "Level,Function Name" + EVIL + ",x\n",
                "main;" + EVIL + " 5\nfoo" + EVIL + "\n",
                EVIL + "\n",
                "java 1234 12.5: 1 cycles:\n\tffff " + EVIL + " (x)\n\n",
                "@[" + EVIL + ",\n    f" + EVIL + "\n]: x" + EVIL + "\n",
                "COST CENTRE" + EVIL + "\n");
    }

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (Collapser c : Collapsers.all()) {
            List<String> in = inputs();
            for (int i = 0; i < in.size(); i++) {
                out.add(Arguments.of(c.name(), i));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "collapse {0} input {1}")
    @MethodSource("cases")
    void collapseMessagesAreEscaped(String format, int input) throws Exception {
        Path f = dir.resolve(format + "-" + input + ".txt");
        Files.writeString(f, inputs().get(input), StandardCharsets.ISO_8859_1);
        String err = run("collapse", format, f.toString());
        assertNoControls(err);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("commands")
    void commandMessagesAreEscaped(String command) throws Exception {
        for (int i = 0; i < inputs().size(); i++) {
            Path f = dir.resolve(command + "-" + i + ".folded");
            Files.writeString(f, inputs().get(i), StandardCharsets.ISO_8859_1);
            assertNoControls(run(command, f.toString()));
        }
    }

    static Stream<String> commands() {
        return Stream.of("info", "top", "fold", "convert");
    }

    @Test
    void printableEscapesControlsOnly() {
        assertThat(Printable.of("a\u001b[31mb\u0007\u0000\n\u0085é")).isEqualTo("a\\x1b[31mb\\x07\\x00\\x0a\\x85é");
        assertThat(Printable.of("plain text")).isEqualTo("plain text");
    }

    private static String run(String... args) {
        StringWriter err = new StringWriter();
        Main.run(args, new ByteArrayOutputStream(), new PrintWriter(err, true));
        return err.toString();
    }

    private static void assertNoControls(String err) {
        String body = err.replace(System.lineSeparator(), "\n");
        for (String line : body.split("\n")) {
            assertThat(line.chars().filter(c -> c < 0x20 || (c >= 0x7f && c <= 0x9f)).toArray())
                    .as("stderr line %s", line).isEmpty();
        }
    }
}
