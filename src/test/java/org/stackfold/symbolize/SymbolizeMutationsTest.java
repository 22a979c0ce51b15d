package org.stackfold.symbolize;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.cli.CliRun;
import org.stackfold.io.InputException;

/**
 * ELF and DWARF mutations through {@code symbolize} (issue 28, item 14): section headers whose offsets
 * and sizes wrap past 2^63, damaged DWARF sections, NUL bytes in a maps path. Whatever the damage, the
 * command exits 0, 1 or 2 with at most one line on stderr and no internal error; and where only the
 * DWARF is damaged, every address keeps the name its symbol table gives (as addr2line does).
 */
class SymbolizeMutationsTest {
    private static final String[] DWARF = {".debug_abbrev", ".debug_info", ".debug_line", ".debug_rnglists",
            ".debug_str", ".debug_aranges", ".debug_line_str", ".debug_loclists"};
    private static final long[] WRAPS = {0xffffffffffffffffL, 0x8000000000000000L, 0x7fffffffffffffffL,
            0x7ffffffffffff000L, 0xfffffffffffff000L};

    @TempDir
    Path dir;

    /** One section header: where its entry is, its name, offset and size. */
    record Section(int entry, String name, long offset, long size) {
    }

    static List<Section> sections(byte[] elf) {
        ByteBuffer b = ByteBuffer.wrap(elf).order(ByteOrder.LITTLE_ENDIAN);
        long shoff = b.getLong(0x28);
        int entsize = b.getShort(0x3a) & 0xffff;
        int num = b.getShort(0x3c) & 0xffff;
        int strndx = b.getShort(0x3e) & 0xffff;
        long strOff = b.getLong((int) (shoff + (long) strndx * entsize + 24));
        List<Section> out = new ArrayList<>();
        for (int i = 0; i < num; i++) {
            int h = (int) (shoff + (long) i * entsize);
            int nameAt = (int) (strOff + b.getInt(h));
            int end = nameAt;
            while (elf[end] != 0) {
                end++;
            }
            out.add(new Section(h, new String(elf, nameAt, end - nameAt, StandardCharsets.US_ASCII), b.getLong(h + 24),
                    b.getLong(h + 32)));
        }
        return out;
    }

    /** Address to the name of its containing (not inlined) function. */
    private static Map<Long, String> functions(Path file, long[] addresses) throws IOException {
        Map<Long, String> out = new LinkedHashMap<>();
        try (Symbolizer s = new Symbolizer(SymbolizerOptions.DEFAULT, Path.of("/proc"), Path.of("/tmp"), List.of())) {
            AddressSymbolizer elf = s.elf(file);
            for (long a : addresses) {
                List<SymbolFrame> frames = elf.symbolize(a);
                out.put(a, frames.getLast().function());
            }
        }
        return out;
    }

    private static void oneLineAtMost(CliRun r, String what) {
        assertThat(r.code()).as(what + ": " + r.err()).isIn(0, 1, 2);
        assertThat(r.err()).as(what).doesNotContain("internal error").doesNotContain("\tat ");
        assertThat(r.err().lines().filter(l -> !l.startsWith("stackfold: warning: ")).count()).as(what + ": " + r.err())
                .isLessThanOrEqualTo(1);
    }

    private static String[] command(Path file, long[] addresses, String... options) {
        List<String> args = new ArrayList<>(List.of("symbolize", "--elf", file.toString()));
        args.addAll(List.of(options));
        for (long a : addresses) {
            args.add(Long.toHexString(a));
        }
        return args.toArray(String[]::new);
    }

    @Test
    void sectionOffsetsThatWrapAreOneLineNamingTheFile() throws IOException {
        byte[] original = Files.readAllBytes(NativeTools.program());
        List<Section> sections = sections(original);
        long[] probes = {0x1000, 0x1100, 0x1290, 0x1300, 0x1390, 0x1430};
        SplittableRandom random = new SplittableRandom(2028);
        for (int round = 0; round < 160; round++) {
            byte[] b = original.clone();
            ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
            Section s = sections.get(1 + random.nextInt(sections.size() - 1));
            long off = WRAPS[random.nextInt(WRAPS.length)];
            String what;
            switch (random.nextInt(4)) {
                case 0 -> {
                    bb.putLong(s.entry() + 24, off);
                    what = s.name() + " offset " + Long.toHexString(off);
                }
                case 1 -> {
                    bb.putLong(s.entry() + 32, off);
                    what = s.name() + " size " + Long.toHexString(off);
                }
                case 2 -> {
                    // Offset and size that add up past 2^64 to a small number inside the file.
                    long size = 0x100 + random.nextInt(0x1000);
                    bb.putLong(s.entry() + 24, -size + random.nextInt(64));
                    bb.putLong(s.entry() + 32, size);
                    what = s.name() + " offset+size wrapping, size " + size;
                }
                default -> {
                    bb.putLong(0x28, off); // the section header table itself
                    what = "e_shoff " + Long.toHexString(off);
                }
            }
            Path file = dir.resolve("m" + round);
            Files.write(file, b);
            CliRun r = CliRun.run(command(file, probes));
            oneLineAtMost(r, what);
            r = CliRun.run(command(file, probes, "--format", "addr2line"));
            oneLineAtMost(r, what + " (addr2line)");
            if (r.code() == 1) {
                assertThat(r.err()).as(what).contains(file.toString());
            }
        }
    }

    @Test
    void brokenDwarfKeepsTheSymbolTablesNames() throws IOException {
        Path program = NativeTools.program();
        byte[] original = Files.readAllBytes(program);
        List<Section> dwarf = sections(original).stream().filter(s -> List.of(DWARF).contains(s.name())).toList();
        assertThat(dwarf).isNotEmpty();
        List<Long> all = new ArrayList<>();
        for (long a = 0x1100; a < 0x1440; a += 7) {
            all.add(a);
        }
        long[] probes = all.stream().mapToLong(Long::longValue).toArray();
        Map<Long, String> expected = functions(program, probes);
        SplittableRandom random = new SplittableRandom(2029);
        for (int round = 0; round < 120; round++) {
            byte[] b = original.clone();
            Section s = dwarf.get(random.nextInt(dwarf.size()));
            int n = 1 + random.nextInt(8);
            for (int k = 0; k < n; k++) {
                int at = (int) (s.offset() + random.nextInt((int) s.size()));
                b[at] = (byte) (random.nextBoolean() ? random.nextInt(256) : b[at] ^ (1 << random.nextInt(8)));
            }
            if (round % 8 == 0) {
                // A whole section of garbage, as a truncated copy leaves it.
                for (int at = (int) s.offset(); at < s.offset() + s.size(); at++) {
                    b[at] = (byte) random.nextInt(256);
                }
            }
            String what = n + " bytes of " + s.name() + " (round " + round + ")";
            Path file = dir.resolve("d" + round);
            Files.write(file, b);
            Map<Long, String> got;
            try {
                got = functions(file, probes);
            } catch (InputException e) {
                throw new AssertionError(what + ": broken DWARF must not fail the file: " + e.getMessage(), e);
            }
            for (Map.Entry<Long, String> e : expected.entrySet()) {
                if (!e.getValue().equals(Symbolizer.UNKNOWN)) { // where no symbol covers the address, DWARF may name it
                    assertThat(got.get(e.getKey())).as(what + " at 0x" + Long.toHexString(e.getKey())).isEqualTo(e.getValue());
                }
            }
            CliRun r = CliRun.run(command(file, new long[] {0x1100, 0x1300, 0x1430}));
            oneLineAtMost(r, what);
            assertThat(r.code()).as(what + ": " + r.err()).isZero();
            r = CliRun.run(command(file, new long[] {0x1100, 0x1300, 0x1430}, "--format", "addr2line"));
            oneLineAtMost(r, what + " (addr2line)");
            assertThat(r.code()).as(what + ": " + r.err()).isZero();
        }
    }

    @Test
    void aNulByteInAMapsPathIsOneLineWithFileAndLine() throws IOException {
        Path maps = dir.resolve("maps.txt");
        Files.write(maps, ("55d0c2a4e000-55d0c2a50000 r-xp 00001000 08:01 123 /usr/bin/tr\0ue\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        CliRun r = CliRun.run("symbolize", "--maps", maps.toString(), "0x55d0c2a4e100");
        oneLineAtMost(r, "NUL in maps");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).contains(maps + ":1").contains("NUL");
        Path folded = dir.resolve("raw.folded");
        Files.writeString(folded, "java;0x55d0c2a4e100 1\n");
        r = CliRun.run("symbolize", "--folded", folded.toString(), "--maps", maps.toString());
        oneLineAtMost(r, "NUL in maps, --folded");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).contains(maps + ":1");
    }

    /**
     * A DWARF section of garbage (as record --inline met on a damaged binary, where every frame came out
     * [unknown] silently): the symbol table's names, and one warning naming the file.
     */
    @Test
    void garbageDwarfSectionsWarnOnceAndKeepNames() throws IOException {
        Path program = NativeTools.program();
        byte[] original = Files.readAllBytes(program);
        long[] probes = {0x1100, 0x1300, 0x1310, 0x1430};
        Map<Long, String> expected = functions(program, probes);
        for (String section : new String[] {".debug_line", ".debug_abbrev", ".debug_info", ".debug_rnglists"}) {
            Section s = sections(original).stream().filter(x -> x.name().equals(section)).findFirst().orElseThrow();
            byte[] b = original.clone();
            SplittableRandom random = new SplittableRandom(section.hashCode());
            for (int at = (int) s.offset(); at < s.offset() + s.size(); at++) {
                b[at] = (byte) random.nextInt(256);
            }
            Path file = dir.resolve("garbage" + section);
            Files.write(file, b);
            CliRun r = CliRun.run(command(file, probes));
            assertThat(r.code()).as(section + ": " + r.err()).isZero();
            for (long a : probes) {
                assertThat(r.out()).as(section).contains("0x" + Long.toHexString(a) + " " + expected.get(a) + "+");
            }
            assertThat(r.err().lines().filter(l -> l.startsWith("stackfold: warning: ")).count()).as(section + ": " + r.err())
                    .isEqualTo(1);
            assertThat(r.err()).as(section).contains(file.toString()).contains("symbol table");
        }
    }
}
