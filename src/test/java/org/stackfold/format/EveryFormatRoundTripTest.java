package org.stackfold.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.stackfold.model.Profile;

/**
 * Property: for every registered format that reads and writes (folded, Tachyon, speedscope, pprof,
 * and whatever registers next, except those that write a call graph), a random profile written and read back has the same stacks and
 * counts; and converting through any two of them in a row changes nothing either.
 */
class EveryFormatRoundTripTest {
    private static List<ProfileFormat> plainFormats() {
        return Formats.all().stream().filter(f -> f.canRead() && f.canWrite() && f.keepsStacks()
                && !f.name().startsWith("diff"))
                .toList();
    }

    static Stream<Arguments> cases() {
        return plainFormats().stream().flatMap(f -> RandomProfiles.seeds(8).stream().map(s -> Arguments.of(f.name(), s)));
    }

    static Stream<Arguments> pairs() {
        return plainFormats().stream().flatMap(a -> plainFormats().stream().map(b -> Arguments.of(a.name(), b.name())));
    }

    /**
     * Tachyon keeps threads: read back per thread it puts a "tid:N" root above each stack (as CPython's
     * collapsed output does) and a profile without threads was written as thread 0, so it is read back
     * with the threads merged.
     */
    private static final FormatOptions READ = FormatOptions.none().set("tachyon.stacks", "merged");

    private static Profile through(String format, Profile p) throws IOException {
        ProfileFormat f = Formats.byName(format);
        return RandomProfiles.read(f, RandomProfiles.write(f, p, FormatOptions.none()), READ);
    }

    @ParameterizedTest(name = "{0} seed {1}")
    @MethodSource("cases")
    void writeThenReadKeepsTheProfile(String format, long seed) throws IOException {
        Profile p = RandomProfiles.plain(seed, 60, 12, false);
        assertThat(RandomProfiles.stacks(through(format, p))).as("%s seed %d", format, seed)
                .isEqualTo(RandomProfiles.stacks(p));
    }

    @ParameterizedTest(name = "{0} then {1}")
    @MethodSource("pairs")
    void anyTwoFormatsInARowKeepTheProfile(String first, String second) throws IOException {
        Profile p = RandomProfiles.plain(17, 60, 12, false);
        assertThat(RandomProfiles.stacks(through(second, through(first, p)))).as("%s then %s", first, second)
                .isEqualTo(RandomProfiles.stacks(p));
    }
}
