package org.stackfold.collapse;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.RandomProfiles;
import org.stackfold.io.Input;

/**
 * A Chrome trace whose CPU profile events come after ~1.7 MB of other events (issue 29) is read as a
 * CPU-profile trace: speedscope's Chrome 69 sample trace with its own duration events repeated in front.
 */
class ChromeTraceLateProfileTest {
    @TempDir
    Path dir;

    @Test
    void profileEventsFarIntoTheTraceAreFound() throws IOException {
        String trace;
        try (InputStream in = new GZIPInputStream(ChromeTraceLateProfileTest.class.getResourceAsStream(
                "/formats/chrome-trace/speedscope__Chrome-69-simple.json.gz"))) {
            trace = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Path original = dir.resolve("original.json");
        Files.writeString(original, trace);
        StringBuilder filler = new StringBuilder();
        for (String line : trace.substring(1).split("\n")) {
            if (line.contains("\"ph\":\"X\"") && !line.contains("Profile") && line.endsWith(",")) {
                filler.append(line).append('\n');
            }
        }
        ByteArrayOutputStream late = new ByteArrayOutputStream();
        late.write('[');
        while (late.size() < 1_700_000) {
            late.write(filler.toString().getBytes(StandardCharsets.UTF_8));
        }
        late.write(trace.substring(1).getBytes(StandardCharsets.UTF_8));
        Path p = dir.resolve("late.json");
        Files.write(p, late.toByteArray());
        assertThat(trace.indexOf("ProfileChunk")).isLessThan(1 << 20);
        assertThat(new String(late.toByteArray(), StandardCharsets.ISO_8859_1).indexOf("ProfileChunk")).isGreaterThan(1 << 20);
        try (Input in = Input.open(p.toString()); Input o = Input.open(original.toString())) {
            assertThat(InputFormats.choose(in, null).name()).isEqualTo("chrome-trace");
            assertThat(RandomProfiles.stacks(InputFormats.choose(in, null).read(in, FormatOptions.none())))
                    .isEqualTo(RandomProfiles.stacks(InputFormats.choose(o, null).read(o, FormatOptions.none())));
        }
    }
}
