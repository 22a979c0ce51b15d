package org.stackfold.symbolize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The oracle: for thousands of addresses inside functions, {@link Addr2line} prints exactly what
 * {@code addr2line -a -f -i -C -p -e FILE} prints, on files of this machine.
 */
class Addr2lineOracleTest {
    private static final Path LIBC = Path.of("/lib/x86_64-linux-gnu/libc.so.6");

    @Test
    void everyByteOfTheTestProgramsFunctions() throws IOException {
        Path program = NativeTools.program();
        List<Long> addresses = new ArrayList<>();
        for (NativeTools.NmSymbol s : NativeTools.nmText(program, false)) {
            for (long a = s.address(); a < s.address() + Math.max(s.size(), 1); a++) {
                addresses.add(a);
            }
        }
        assertThat(compare(program, addresses)).isGreaterThan(500);
    }

    @ParameterizedTest
    @ValueSource(strings = {"-gdwarf-4", "-gdwarf-5"})
    void everyByteOfTheTestProgramBuiltWithEachDwarfVersion(String version, @TempDir Path dir) throws IOException {
        Path source = dir.resolve("inline.c");
        Files.copy(NativeTools.program().resolveSibling("inline.c"), source);
        Path program = dir.resolve("inline" + version);
        NativeTools.run(List.of("gcc", "-g", version, "-O2", "-o", program.toString(), source.toString()));
        List<Long> addresses = new ArrayList<>();
        for (NativeTools.NmSymbol s : NativeTools.nmText(program, false)) {
            for (long a = s.address(); a < s.address() + Math.max(s.size(), 1); a++) {
                addresses.add(a);
            }
        }
        assertThat(compare(program, addresses)).isGreaterThan(500);
    }

    @Test
    void everyByteOfACxxProgram(@TempDir Path dir) throws IOException {
        NativeTools.require("g++");
        Path source = dir.resolve("inline.cpp");
        try (var in = Addr2lineOracleTest.class.getResourceAsStream("/symbolize/inline.cpp")) {
            Files.copy(in, source);
        }
        Path program = dir.resolve("inlinecpp");
        NativeTools.run(List.of("g++", "-g", "-O2", "-o", program.toString(), source.toString()));
        List<Long> addresses = new ArrayList<>();
        for (NativeTools.NmSymbol s : NativeTools.nmText(program, false)) {
            for (long a = s.address(); a < s.address() + s.size(); a++) {
                addresses.add(a);
            }
        }
        assertThat(compare(program, addresses)).isGreaterThan(1000);
    }

    @Test
    void libcWithItsSeparateDebugFile() throws IOException {
        assumeThat(LIBC).as("libc6 at " + LIBC).exists();
        try (Symbolizer s = new Symbolizer(SymbolizerOptions.DEFAULT)) {
            assumeThat(s.image(LIBC).debugFile()).as("libc6-dbg is not installed (apt-get install libc6-dbg)")
                    .isNotNull();
            List<Long> addresses = inside(NativeTools.nmText(Path.of(s.image(LIBC).debugFile().name), false), 4000, 1);
            assertThat(compare(LIBC, addresses)).isGreaterThan(3000);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"/lib/x86_64-linux-gnu/libm.so.6", "/lib64/ld-linux-x86-64.so.2",
            "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/usr/lib/jvm/temurin-25-jdk-amd64/lib/server/libjvm.so"})
    void otherSystemLibraries(String path) throws IOException {
        Path file = Path.of(path);
        assumeThat(file).as(path).exists();
        try (Symbolizer s = new Symbolizer(SymbolizerOptions.DEFAULT)) {
            ElfImage image = s.image(file);
            Path symbols = image.debugFile() != null ? Path.of(image.debugFile().name) : file;
            boolean dynamic = image.symbols().dynamic;
            List<Long> addresses = inside(NativeTools.nmText(symbols, dynamic), 1500, path.length());
            assertThat(compare(file, addresses)).isEqualTo(1500);
        }
    }

    /** About {@code count} addresses inside the sized symbols, seeded. */
    static List<Long> inside(List<NativeTools.NmSymbol> symbols, int count, long seed) {
        List<NativeTools.NmSymbol> sized = symbols.stream().filter(s -> s.size() > 0).toList();
        SplittableRandom random = new SplittableRandom(seed);
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            NativeTools.NmSymbol s = sized.get(random.nextInt(sized.size()));
            out.add(s.address() + random.nextLong(s.size()));
        }
        return out;
    }

    /** Compares every address; returns how many were compared. */
    static int compare(Path file, List<Long> addresses) throws IOException {
        NativeTools.require("addr2line");
        StringBuilder in = new StringBuilder();
        for (long a : addresses) {
            in.append("0x").append(Long.toHexString(a)).append('\n');
        }
        String expected = NativeTools.run(List.of("addr2line", "-a", "-f", "-i", "-C", "-p", "-e", file.toString()),
                in.toString());
        List<String> blocks = blocks(expected);
        assertThat(blocks).hasSameSizeAs(addresses);
        List<String> mismatches = new ArrayList<>();
        try (Symbolizer s = new Symbolizer(SymbolizerOptions.DEFAULT)) {
            Addr2line ours = Addr2line.of(s, file);
            for (int i = 0; i < addresses.size(); i++) {
                String got = ours.lookup(addresses.get(i));
                if (!got.equals(blocks.get(i)) && mismatches.size() < 20) {
                    mismatches.add("addr2line:\n" + blocks.get(i) + "stackfold:\n" + got);
                }
            }
        }
        assertThat(mismatches).as(file.toString()).isEmpty();
        return addresses.size();
    }

    /** addr2line's output cut into one block per address (each starts with "0x"). */
    private static List<String> blocks(String output) {
        List<String> blocks = new ArrayList<>();
        StringBuilder b = null;
        for (String line : output.split("\n", -1)) {
            if (line.isEmpty()) {
                continue;
            }
            if (line.startsWith("0x")) {
                if (b != null) {
                    blocks.add(b.toString());
                }
                b = new StringBuilder();
            }
            b.append(line).append('\n');
        }
        if (b != null) {
            blocks.add(b.toString());
        }
        return blocks;
    }
}
