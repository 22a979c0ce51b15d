package org.stackfold.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.Profile;

/**
 * py-spy's and rbspy's outputs, each read by the format it is: py-spy {@code raw} and rbspy
 * {@code collapsed} are folded stacks, their {@code speedscope} is speedscope JSON, rbspy's
 * {@code callgrind} is callgrind (and {@code pprof} pprof). Their {@code flamegraph} outputs are SVG
 * pictures and rbspy's {@code summary} a table of percentages: no stacks to read.
 */
class ProfilerOutputsTest {
    @Test
    void rbspyCallgrindMatchesSpeedscope() throws IOException {
        assertThat(SpeedscopeOracle.detected("profilers/callgrind.out.rbspy")).isEqualTo("callgrind");
        Profile p = SpeedscopeOracle.read("profilers/callgrind.out.rbspy", FormatOptions.none());
        assertThat(SpeedscopeOracle.stacks(p))
                .isEqualTo(SpeedscopeOracle.expected("profilers/callgrind.out.rbspy.speedscope.txt", 1))
                // and here the graph unfolds into exactly the six stacks rbspy's test recorded
                .containsExactlyInAnyOrderEntriesOf(Map.of("func1", 1L, "func1;func2", 2L, "func1;func2;func3", 1L,
                        "func1;func3", 1L, "func1;funcX;func3", 1L));
    }

    @Test
    void rbspyCollapsedIsFolded() throws IOException {
        Profile p = SpeedscopeOracle.read("profilers/rbspy.collapsed.txt", FormatOptions.none());
        assertThat(SpeedscopeOracle.stacks(p))
                .isEqualTo(SpeedscopeOracle.expected("profilers/rbspy.collapsed.txt.speedscope.txt", 1));
    }

    @Test
    void pySpyRawIsFoldedWithItsIdleSamplesSkippedUnderLenient() throws IOException {
        // py-spy writes the samples of a thread without Python frames as a count alone (" 5"); a
        // folded file may not hold that, so a strict read says where, and --lenient skips them
        // (speedscope puts them under a frame without a name)
        assertThatThrownBy(() -> SpeedscopeOracle.read("profilers/py-spy-0.4.2.raw.txt", FormatOptions.none()))
                .isInstanceOf(InputException.class).hasMessageEndingWith("py-spy-0.4.2.raw.txt:6: no stack before the count");
        Profile p = SpeedscopeOracle.read("profilers/py-spy-0.4.2.raw.txt",
                FormatOptions.none().set("lenient", true).withWarnings(w -> { }));
        assertThat(SpeedscopeOracle.stacks(p))
                .isEqualTo(SpeedscopeOracle.expected("profilers/py-spy-0.4.2.raw.txt.speedscope.txt", 1))
                .containsKey("<module> (work.py:13);main (work.py:12);middle (work.py:8);leaf (work.py:5)");
    }

    @Test
    void pySpySpeedscopeWithNullColumnsReads() throws IOException {
        try (Input in = Input.open(SpeedscopeOracle.resource("profilers/py-spy-0.4.2.speedscope.json").toString())) {
            assertThat(Formats.forInput(in, null).name()).isEqualTo("speedscope");
        }
        Profile p = SpeedscopeOracle.read("profilers/py-spy-0.4.2.speedscope.json", FormatOptions.none());
        Map<String, Long> stacks = SpeedscopeOracle.stacks(p);
        // samples of 5 ms given in seconds, read as nanoseconds: 290 with a stack (the 21 empty ones
        // of the 1.555 s carry no frame), 278 of them in leaf
        assertThat(stacks.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(1_450_000_000L);
        assertThat(stacks).containsEntry("<module>;main;middle;leaf", 1_390_000_000L);
    }
}
