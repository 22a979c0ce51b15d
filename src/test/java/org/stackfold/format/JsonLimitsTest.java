package org.stackfold.format;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;

/** JSON past jackson's limits (nesting, number length, key size) names the file and the byte offset (issue 28 item 16). */
class JsonLimitsTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({"firefox, deep", "firefox, key", "firefox, number", "stackprof, deep", "stackprof, key",
        "stackprof, number", "v8log, deep", "v8log, key", "v8log, number", "cpuprofile, deep", "cpuprofile, key",
        "cpuprofile, number", "speedscope, deep"})
    void limitsNameFileAndOffset(String format, String kind) throws Exception {
        String text = switch (kind) {
            case "deep" -> "{\"meta\":" + "[".repeat(2000) + "]".repeat(2000) + "}";
            case "key" -> "{\"" + "k".repeat(60_000) + "\":1}";
            default -> "{\"nodes\":1" + "0".repeat(1200) + "}";
        };
        Path p = dir.resolve(kind + ".json");
        Files.writeString(p, text);
        assertThatThrownBy(() -> {
            try (Input in = Input.open(p.toString())) {
                Formats.byName(format).read(in, FormatOptions.none());
            }
        }).isInstanceOf(InputException.class).hasMessageContaining(kind + ".json")
                .hasMessageContaining("byte offset").hasMessageContaining("JSON past a limit");
    }
}
