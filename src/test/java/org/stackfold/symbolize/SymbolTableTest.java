package org.stackfold.symbolize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.model.FrameKind;

/** ELF symbol lookups agree with nm: every address inside a function names it (or one of its aliases). */
class SymbolTableTest {
    private static final SymbolizerOptions RAW = new SymbolizerOptions(false, false, false, false);
    private static final Path LIBC = Path.of("/lib/x86_64-linux-gnu/libc.so.6");

    @Test
    void namesOfTheTestProgramAgreeWithNm() throws IOException {
        Path program = NativeTools.program();
        int checked = compareWithNm(program, NativeTools.nmText(program, false), false);
        assertThat(checked).isGreaterThan(20);
    }

    @Test
    void namesOfLibcAgreeWithNmOfItsDebugFile() throws IOException {
        assumeThat(LIBC).as("libc6 at " + LIBC).exists();
        try (Symbolizer s = new Symbolizer(RAW)) {
            ElfFile debug = s.image(LIBC).debugFile();
            assumeThat(debug).as("libc6-dbg is not installed (apt-get install libc6-dbg)").isNotNull();
            int checked = compareWithNm(LIBC, NativeTools.nmText(Path.of(debug.name), false), false);
            assertThat(checked).isGreaterThan(5000);
        }
    }

    @Test
    void aStrippedFileFallsBackToDynsym(@TempDir Path dir) throws IOException {
        NativeTools.require("strip");
        Path stripped = dir.resolve("stripped");
        assumeThat(LIBC).as("libc6 at " + LIBC).exists();
        // libc without the notes that lead to its debug file: only .dynsym is left
        NativeTools.run(List.of("strip", "-R", ".note.gnu.build-id", "-R", ".gnu_debuglink", "-o", stripped.toString(),
                LIBC.toString()));
        List<NativeTools.NmSymbol> dynamic = NativeTools.nmText(stripped, true);
        assertThat(compareWithNm(stripped, dynamic, true)).isGreaterThan(3000);
        try (Symbolizer s = new Symbolizer(RAW)) {
            assertThat(s.image(stripped).symbols().dynamic).isTrue();
        }
    }

    @Test
    void zeroSizeSymbolsCoverUpToTheNextSymbolAndAliasesResolveToOneName() throws IOException {
        Path program = NativeTools.program();
        List<NativeTools.NmSymbol> nm = NativeTools.nmText(program, false);
        long zero = nm.stream().filter(x -> x.name().equals("zero_size_label")).findFirst().orElseThrow().address();
        long top = nm.stream().filter(x -> x.name().equals("top_compute")).findFirst().orElseThrow().address();
        try (Symbolizer s = new Symbolizer(RAW)) {
            AddressSymbolizer elf = s.elf(program);
            assertThat(elf.symbolize(zero + 2)).singleElement().satisfies(f -> {
                assertThat(f.function()).isEqualTo("zero_size_label");
                assertThat(f.offset()).isEqualTo(2);
                assertThat(f.kind()).isEqualTo(FrameKind.NATIVE);
                assertThat(f.module()).isEqualTo(program.toString());
            });
            assertThat(elf.symbolize(top + 1).getFirst().function()).isIn("top_compute", "top_alias");
            assertThat(elf.symbolize(0x10).getFirst().function()).isEqualTo(Symbolizer.UNKNOWN);
        }
    }

    /** Checks the start, middle and last byte of every sized text symbol; returns how many addresses. */
    private static int compareWithNm(Path file, List<NativeTools.NmSymbol> nm, boolean versioned) throws IOException {
        int checked = 0;
        try (Symbolizer s = new Symbolizer(RAW)) {
            AddressSymbolizer elf = s.elf(file);
            List<String> mismatches = new ArrayList<>();
            for (NativeTools.NmSymbol sym : nm) {
                if (sym.size() == 0) {
                    continue;
                }
                for (long a : new long[] {sym.address(), sym.address() + sym.size() / 2, sym.address() + sym.size() - 1}) {
                    Set<String> expected = expectedNames(nm, a, versioned);
                    String got = elf.symbolize(a).getFirst().function();
                    checked++;
                    if (!expected.contains(got)) {
                        mismatches.add(Long.toHexString(a) + ": " + got + " not in " + expected);
                    }
                }
            }
            assertThat(mismatches).as(file.toString()).isEmpty();
        }
        return checked;
    }

    /**
     * The names of the sized symbols that contain {@code a} and start nearest to it; nm -D adds
     * symbol versions ({@code @@GLIBC_2.2.5}) that are not part of the names.
     */
    private static Set<String> expectedNames(List<NativeTools.NmSymbol> nm, long a, boolean versioned) {
        long best = Long.MIN_VALUE;
        Set<String> names = new HashSet<>();
        for (NativeTools.NmSymbol x : nm) {
            if (x.size() > 0 && a >= x.address() && a < x.address() + x.size() && x.address() >= best) {
                if (x.address() > best) {
                    names.clear();
                    best = x.address();
                }
                String n = x.name();
                int at = n.indexOf('@');
                names.add(versioned && at > 0 ? n.substring(0, at) : n);
            }
        }
        return names;
    }
}
