package org.stackfold.format.folded;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.stackfold.model.Profile;
import org.stackfold.testing.Folded;
import org.stackfold.testing.RandomFoldedProfiles;

/** Property: writing a profile as folded text and reading it back gives the same profile. */
class FoldedRoundTripTest {
    static LongStream seeds() {
        return LongStream.range(0, 60);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void plainRoundTrip(long seed) {
        Profile p = RandomFoldedProfiles.plain(new SplittableRandom(seed));
        String text = Folded.write(p);
        Profile back = Folded.read(text).profile();
        assertThat(Folded.counts(back)).as("seed %d", seed).isEqualTo(Folded.counts(p));
        // Writing is deterministic and idempotent.
        assertThat(Folded.write(back)).isEqualTo(text);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void differentialRoundTrip(long seed) {
        Profile p = RandomFoldedProfiles.differential(new SplittableRandom(seed));
        String text = Folded.write(p);
        Profile back = Folded.read(text.getBytes(StandardCharsets.UTF_8), FoldedReader.Mode.DIFFERENTIAL, false,
                1, new ArrayList<>()).profile();
        assertThat(Folded.stacks(back)).as("seed %d", seed).isEqualTo(Folded.stacks(p));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void messyTextReadsAsItsNormalForm(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        Profile p = RandomFoldedProfiles.plain(r);
        // Re-render with random white space, CRLF, blank lines and split duplicates.
        StringBuilder messy = new StringBuilder();
        List<String> ws = List.of(" ", "\t", "  ", " \t ");
        Folded.counts(p).forEach((stack, count) -> {
            long first = count > 1 && r.nextBoolean() ? r.nextLong(1, count) : count;
            for (long part : first == count ? new long[] {count} : new long[] {first, count - first}) {
                messy.append(r.nextBoolean() ? ws.get(r.nextInt(ws.size())) : "").append(stack)
                        .append(ws.get(r.nextInt(ws.size()))).append(part)
                        .append(r.nextBoolean() ? " " : "").append(r.nextBoolean() ? "\r\n" : "\n");
                if (r.nextInt(10) == 0) {
                    messy.append("\n");
                }
            }
        });
        assertThat(Folded.counts(Folded.read(messy.toString()).profile())).isEqualTo(Folded.counts(p));
    }
}
