package org.stackfold.format.perfdata;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.Formats;
import org.stackfold.format.RandomProfiles;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * perf.data files from perf_data_converter's test data (Linux 3.4, another machine), against what
 * perf 6.1 prints of them (issue 29); origins in resources/perfdata/quipper/README.md.
 */
class PerfRealFilesTest {
    @TempDir
    Path dir;

    Profile read(String name, FormatOptions o) throws IOException {
        Path p = dir.resolve(name);
        try (InputStream in = PerfRealFilesTest.class.getResourceAsStream("/perfdata/quipper/" + name)) {
            Files.copy(in, p, StandardCopyOption.REPLACE_EXISTING);
        }
        try (Input in = Input.open(p.toString())) {
            return Formats.forInput(in, null).read(in, o);
        }
    }

    @Test
    void pipeModeEventsAreNamedFilteredAndWeighedByTheirFixedPeriod() throws IOException {
        List<String> warnings = new ArrayList<>();
        Profile p = read("perf.data.piped.hw_and_sw-3.4", FormatOptions.none().withWarnings(warnings::add));
        // perf report: 4082 cpu-clock samples, event count 4082000000; 193 cycles apart
        assertThat(p.tree().totalSamples()).isEqualTo(4_082_000_000L);
        assertThat(warnings).anyMatch(w -> w.contains("193 of 'cycles'"));
        Profile cycles = read("perf.data.piped.hw_and_sw-3.4", FormatOptions.none().set("event-filter", "cycles"));
        assertThat(cycles.tree().totalSamples()).isEqualTo(193_000_000L);
        assertThat(cycles.valueTypes().getFirst().type()).isEqualTo("cycles");
    }

    @Test
    void idleTaskIsSwapper() throws IOException {
        Map<String, Long> stacks = RandomProfiles.stacks(read("perf.data.hw_and_sw-3.4", FormatOptions.none()));
        assertThat(stacks.keySet()).anyMatch(s -> s.startsWith("swapper;")).noneMatch(s -> s.startsWith(":0"));
    }

    @Test
    void anotherKernelsAddressesAreNotNamedFromThisMachinesKallsyms() throws IOException {
        List<String> warnings = new ArrayList<>();
        Map<String, Long> stacks = RandomProfiles.stacks(read("perf.data.hw_and_sw-3.4",
                FormatOptions.none().withWarnings(warnings::add)));
        // file mode: 4734 cpu-clock samples of period 1000000
        assertThat(stacks.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(4_734_000_000L);
        String running = BuildIds.runningKernel();
        if (running != null && !running.startsWith("2515a9864b3c147eb6eda1c31ed6987ede98bc54")) {
            // perf: "No kallsyms or vmlinux with build-id 2515a98... was found": the frames stay unknown
            assertThat(warnings).anyMatch(w -> w.contains("2515a9864b3c147eb6eda1c31ed6987ede98bc54"));
            // as perf script | stackcollapse-perf.pl shows unknown symbols: the module in brackets
            assertThat(stacks.keySet()).allMatch(s -> s.indexOf(';') > 0
                    && s.substring(s.indexOf(';') + 1).startsWith("["));
            assertThat(stacks.keySet()).anyMatch(s -> s.endsWith(";[[kernel.kallsyms]]"));
        }
    }

    @Test
    void kallsymsTheUserGivesNamesKernelFramesWithoutTheBuildIdCheck() throws IOException {
        Path kallsyms = dir.resolve("kallsyms");
        try (InputStream in = PerfRealFilesTest.class.getResourceAsStream("/perfdata/quipper/kallsyms.hw_and_sw-3.4")) {
            Files.copy(in, kallsyms);
        }
        List<String> warnings = new ArrayList<>();
        Map<String, Long> named = RandomProfiles.stacks(read("perf.data.hw_and_sw-3.4",
                FormatOptions.none().set("kallsyms", kallsyms.toString()).withWarnings(warnings::add)));
        // addresses seen with --addrs: ffffffff8146036a, ffffffff8146037e, ffffffff81043a0c, ffffffff8105a08a
        assertThat(named.keySet()).anyMatch(s -> s.endsWith(";stackfold_test_func_e"))
                .anyMatch(s -> s.endsWith(";stackfold_test_func_f"))
                .anyMatch(s -> s.contains(";stackfold_test_func_a"))
                .anyMatch(s -> s.contains(";stackfold_test_func_b"));
        assertThat(named.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(4_734_000_000L);
        assertThat(warnings).noneMatch(w -> w.contains("kernel frames stay"));

        Map<String, Long> without = RandomProfiles.stacks(read("perf.data.hw_and_sw-3.4", FormatOptions.none()));
        assertThat(without.keySet()).noneMatch(s -> s.contains("stackfold_test_func"));
    }

    @Test
    void missingKallsymsIsOneLineNamingIt() {
        Path missing = dir.resolve("no-such-kallsyms");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> read("perf.data.hw_and_sw-3.4",
                        FormatOptions.none().set("kallsyms", missing.toString())))
                .isInstanceOf(org.stackfold.io.InputException.class)
                .hasMessage(missing + ": kallsyms file not found");
    }

    @Test
    void elfBuildIdAsReadelfShowsIt() throws Exception {
        // readelf -n: "Build ID: <hex>" of the GNU note; ours from the PT_NOTE segments
        Path ls = Path.of("/bin/ls").toRealPath();
        Process p = new ProcessBuilder("readelf", "-n", ls.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        p.waitFor();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("Build ID: ([0-9a-f]+)").matcher(out);
        assertThat(m.find()).isTrue();
        assertThat(BuildIds.of(ls)).isEqualTo(m.group(1));
    }

    @Test
    void buildIdsComparedAsPerfPadsThem() {
        assertThat(BuildIds.same("abcd000000", "abcd")).isTrue();
        assertThat(BuildIds.same("abcd", "abce")).isFalse();
        assertThat(BuildIds.same("abcd", null)).isFalse();
    }
}
