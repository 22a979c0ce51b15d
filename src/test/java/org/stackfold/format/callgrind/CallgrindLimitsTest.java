package org.stackfold.format.callgrind;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.Profile;

/** Costs near 2^53 and 2^63 (issue 28 item 16) and unfoldings that would invent cost (issue 29). */
class CallgrindLimitsTest {
    @TempDir
    Path dir;

    Profile read(String text, List<String> warnings) throws IOException {
        Path p = dir.resolve("callgrind.out.1");
        Files.writeString(p, text, StandardCharsets.UTF_8);
        try (Input in = Input.open(p.toString())) {
            return new CallgrindFormat().read(in, FormatOptions.none().withWarnings(warnings::add));
        }
    }

    @Test
    void costsPast2To63AreErrorsNotEmptyProfiles() {
        assertThatThrownBy(() -> read("events: Ir\nfn=a\n1 9223372036854775807\ncfn=b\ncalls=1 1\n1 5\nfn=b\n1 5\n",
                new ArrayList<>())).isInstanceOf(InputException.class)
                .hasMessageContaining("callgrind.out.1:6").hasMessageContaining("past 2^63-1");
        assertThatThrownBy(() -> read("events: Ir\nfn=a\n1 9223372036854775000\nfn=b\n1 9223372036854775000\n",
                new ArrayList<>())).isInstanceOf(InputException.class).hasMessageContaining("past 2^63-1");
    }

    @Test
    void costsPast2To53AreErrorsNotRoundedNumbers() throws IOException {
        assertThatThrownBy(() -> read("events: Ir\nfn=a\n1 9007199254740993\n", new ArrayList<>()))
                .isInstanceOf(InputException.class).hasMessageContaining("past 2^53");
        assertThat(read("events: Ir\nfn=a\n1 9007199254740991\n", new ArrayList<>()).tree().totalSamples())
                .isEqualTo(9007199254740991L);
    }

    @Test
    void anUnfoldingThatWouldInventCostFallsBackToTheFlatProfile() throws IOException {
        // main calls a, a and b call each other: inclusive costs far above the 1 + 2 + 1 self cost the file
        // holds, as recursion makes them in pyprof2calltree's files
        List<String> warnings = new ArrayList<>();
        Profile p = read("events: Ir\nfn=main\n1 1\ncfn=a\ncalls=1 1\n1 3000\nfn=a\n1 2\ncfn=b\ncalls=1 1\n1 1000\n"
                + "fn=b\n1 1\ncfn=a\ncalls=1 1\n1 1000\n", warnings);
        assertThat(warnings).anyMatch(w -> w.contains("flat profile"));
        assertThat(p.tree().totalSamples()).isEqualTo(4);
    }
}
