package org.stackfold.symbolize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.io.InputException;
import org.stackfold.model.FrameKind;

class KernelSymbolsTest {
    private static final Path KALLSYMS = Path.of("/proc/kallsyms");

    private static KernelSymbols fixture() throws IOException {
        try (InputStream in = KernelSymbolsTest.class.getResourceAsStream("/symbolize/kallsyms.txt")) {
            return KernelSymbols.parse(in.readAllBytes(), "kallsyms.txt");
        }
    }

    @Test
    void keepsTextSymbolsSortedWithModulesAndBpfPrograms() throws IOException {
        KernelSymbols k = fixture();
        assertThat(k.count()).isEqualTo(9);
        assertThat(k.symbolize(0xffffffff81000105L)).containsExactly(
                new SymbolFrame("do_one_initcall", 5, null, 0, FrameKind.KERNEL, "vmlinux", false));
        assertThat(k.symbolize(0xffffffff81000250L).getFirst().function()).isEqualTo("do_one_initcall");
        assertThat(k.symbolize(0xffffffffc0400900L).getFirst()).extracting(SymbolFrame::function, SymbolFrame::module)
                .containsExactly("ext4_iget", "ext4");
        assertThat(k.symbolize(0xffffffffc0002010L).getFirst()).extracting(SymbolFrame::function, SymbolFrame::module)
                .containsExactly("bpf_prog_6deef7357e7b4530_do_sample", "bpf");
        assertThat(k.symbolize(0x1000).getFirst().function()).isEqualTo(Symbolizer.UNKNOWN);
    }

    @Test
    void aliasesResolveToThePerfChoice() throws IOException {
        // _text and _stext share an address: perf names it by the last of them in the file
        assertThat(fixture().symbolize(0xffffffff81000000L).getFirst().function()).isEqualTo("_stext");
        KernelSymbols k = KernelSymbols.parse("""
                ffffffff81000000 t __local_one
                ffffffff81000000 W weak_one
                ffffffff81000000 t _short
                ffffffff81000000 T __global_longer_name
                ffffffff81000000 T __global_name
                """.getBytes(StandardCharsets.US_ASCII), "t");
        assertThat(k.symbolize(0xffffffff81000001L).getFirst().function()).isEqualTo("__global_name");
    }

    @Test
    void unsortedKallsymsNamesAsSortedDoes() {
        // kallsyms is usually sorted (then no sort runs); in either order the last alias in the file wins
        KernelSymbols sorted = KernelSymbols.parse("""
                ffffffff81000000 T first
                ffffffff81000000 T second
                ffffffff81000100 t middle
                ffffffffc0000000 t in_module	[ext4]
                """.getBytes(StandardCharsets.US_ASCII), "sorted");
        KernelSymbols unsorted = KernelSymbols.parse("""
                ffffffffc0000000 t in_module	[ext4]
                ffffffff81000000 T first
                ffffffff81000100 t middle
                ffffffff81000000 T second
                """.getBytes(StandardCharsets.US_ASCII), "unsorted");
        for (long a : new long[] {0xffffffff81000004L, 0xffffffff81000104L, 0xffffffffc0000010L}) {
            assertThat(unsorted.symbolize(a)).isEqualTo(sorted.symbolize(a));
        }
        assertThat(sorted.symbolize(0xffffffff81000004L).getFirst().function()).isEqualTo("second");
        assertThat(sorted.symbolize(0xffffffffc0000010L).getFirst().module()).isEqualTo("ext4");
    }

    @Test
    void badLinesAndHiddenAddressesAreOneLineErrors() {
        assertThatThrownBy(() -> KernelSymbols.parse("ffffffff8100zz00 T x\n".getBytes(StandardCharsets.US_ASCII), "k"))
                .isInstanceOf(InputException.class).hasMessage("k:1: bad address");
        assertThatThrownBy(() -> KernelSymbols.parse("0000000000000000 T a\n0000000000000000 T b\n"
                .getBytes(StandardCharsets.US_ASCII), "k"))
                .isInstanceOf(InputException.class).hasMessageContaining("kptr_restrict");
    }

    @Test
    void everyLiveKernelSymbolResolvesToItselfOrAnAlias() throws IOException {
        assumeThat(KALLSYMS).as("/proc/kallsyms").isReadable();
        // an independent reading of the same file: plain String parsing, a TreeMap
        TreeMap<Long, Set<String>> byAddress = new TreeMap<>(Long::compareUnsigned);
        for (String line : Files.readAllLines(KALLSYMS)) {
            String[] f = line.split("\\s+");
            if (f.length >= 3 && "tTwW".contains(f[1])) {
                byAddress.computeIfAbsent(Long.parseUnsignedLong(f[0], 16), a -> new HashSet<>()).add(f[2]);
            }
        }
        assumeThat(byAddress.firstKey()).as("kallsyms addresses are visible (root)").isNotZero();
        try (Symbolizer s = new Symbolizer(SymbolizerOptions.DEFAULT)) {
            AddressSymbolizer kernel = s.kernel();
            List<String> wrong = new ArrayList<>();
            int checked = 0;
            for (Map.Entry<Long, Set<String>> e : byAddress.entrySet()) {
                if (checked++ % 7 != 0) {
                    continue;
                }
                SymbolFrame f = kernel.symbolize(e.getKey()).getFirst();
                if (!e.getValue().contains(f.function()) || f.offset() != 0 || f.kind() != FrameKind.KERNEL) {
                    wrong.add(Long.toHexString(e.getKey()) + " " + f + " expected one of " + e.getValue());
                }
            }
            assertThat(wrong).isEmpty();
            assertThat(checked).isGreaterThan(10_000);
        }
    }

    @Test
    void kernelNamesAgreeWithPerfScript(@TempDir Path dir) throws IOException {
        NativeTools.require("perf");
        assumeThat(KALLSYMS).as("/proc/kallsyms").isReadable();
        Path data = dir.resolve("perf.data");
        try {
            NativeTools.run(List.of("perf", "record", "-q", "-e", "cpu-clock", "-F", "999", "-a", "-g", "-o",
                    data.toString(), "--", "sleep", "0.3"));
        } catch (IOException e) {
            assumeThat(false).as("perf record -a is not permitted here (needs root or perf_event_paranoid <= -1)")
                    .isTrue();
        }
        String script = NativeTools.run(List.of("perf", "script", "-F", "ip,sym,dso", "-i", data.toString()));
        Map<Long, String> perfNames = new HashMap<>();
        for (String line : script.split("\n")) {
            String t = line.trim();
            if (t.endsWith("([kernel.kallsyms])")) {
                String[] f = t.split("\\s+");
                if (f.length == 3 && !f[1].equals("[unknown]")) {
                    perfNames.put(Long.parseUnsignedLong(f[0], 16), f[1]);
                }
            }
        }
        assumeThat(perfNames).as("perf recorded kernel frames").isNotEmpty();
        try (Symbolizer s = new Symbolizer(SymbolizerOptions.DEFAULT)) {
            AddressSymbolizer kernel = s.kernel();
            List<String> wrong = new ArrayList<>();
            perfNames.forEach((ip, name) -> {
                String got = kernel.symbolize(ip).getFirst().function();
                if (!got.equals(name)) {
                    wrong.add(Long.toHexString(ip) + ": perf " + name + ", we " + got);
                }
            });
            assertThat(wrong).isEmpty();
        }
    }
}
