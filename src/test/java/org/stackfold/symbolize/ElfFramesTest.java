package org.stackfold.symbolize;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.model.FrameKind;

/** Frames of the test program: inlined frames, file and line as addr2line -f -i gives them; options; debug files. */
class ElfFramesTest {
    private static final SymbolizerOptions NO_INLINE = new SymbolizerOptions(true, false, true, false);
    private static final SymbolizerOptions NAMES_ONLY = new SymbolizerOptions(true, false, false, false);

    @Test
    void inlinedFramesMatchAddr2lineEverywhereInTheProgram() throws IOException {
        Path program = NativeTools.program();
        List<Long> addresses = new ArrayList<>();
        for (NativeTools.NmSymbol s : NativeTools.nmText(program, false)) {
            for (long a = s.address(); a < s.address() + s.size(); a++) {
                addresses.add(a);
            }
        }
        List<List<String[]>> expected = addr2lineFrames(program, addresses);
        int inlined = 0;
        try (Symbolizer s = new Symbolizer(SymbolizerOptions.DEFAULT)) {
            AddressSymbolizer elf = s.elf(program);
            for (int i = 0; i < addresses.size(); i++) {
                List<SymbolFrame> got = elf.symbolize(addresses.get(i));
                List<String[]> want = expected.get(i);
                assertThat(got).as(Long.toHexString(addresses.get(i))).hasSize(want.size());
                for (int k = 0; k < got.size(); k++) {
                    SymbolFrame f = got.get(k);
                    String[] w = want.get(k);
                    if (k < got.size() - 1) {
                        assertThat(f.function()).isEqualTo(w[0]);
                    } else {
                        // the containing function is named by its symbol: an alias, or a part such as f.cold
                        assertThat(f.function()).matches(n -> n.equals(w[0]) || n.startsWith(w[0] + ".")
                                || w[0].equals("top_compute") && n.equals("top_alias"), "names " + w[0]);
                    }
                    assertThat(f.file() + ":" + f.line()).isEqualTo(w[1]);
                    assertThat(f.inlined()).isEqualTo(k < got.size() - 1);
                    assertThat(f.kind()).isEqualTo(FrameKind.NATIVE);
                }
                inlined += got.size() - 1;
            }
        }
        assertThat(inlined).isGreaterThan(100);
    }

    @Test
    void optionsTurnInliningAndLinesOff() throws IOException {
        Path program = NativeTools.program();
        long mixInside = deepestInlinedAddress(program);
        try (Symbolizer withInline = new Symbolizer(SymbolizerOptions.DEFAULT);
             Symbolizer noInline = new Symbolizer(NO_INLINE);
             Symbolizer namesOnly = new Symbolizer(NAMES_ONLY)) {
            List<SymbolFrame> full = withInline.elf(program).symbolize(mixInside);
            assertThat(full.getFirst().function()).isEqualTo("mix");
            List<SymbolFrame> one = noInline.elf(program).symbolize(mixInside);
            assertThat(one).singleElement().satisfies(f -> {
                assertThat(f.function()).isEqualTo(full.getLast().function());
                assertThat(f.file()).isEqualTo(full.getFirst().file());
                assertThat(f.line()).isEqualTo(full.getFirst().line());
                assertThat(f.offset()).isEqualTo(full.getLast().offset());
            });
            assertThat(namesOnly.elf(program).symbolize(mixInside)).singleElement().satisfies(f -> {
                assertThat(f.file()).isNull();
                assertThat(f.line()).isZero();
            });
        }
    }

    @Test
    void compressedAndSeparateDebugInfoGiveTheSameFrames(@TempDir Path dir) throws IOException {
        NativeTools.require("objcopy");
        Path program = NativeTools.program();
        long a = deepestInlinedAddress(program);
        List<SymbolFrame> plain;
        try (Symbolizer s = new Symbolizer(SymbolizerOptions.DEFAULT)) {
            plain = s.elf(program).symbolize(a);
        }
        for (String kind : new String[] {"zlib", "zstd"}) {
            Path compressed = dir.resolve("gz-" + kind);
            try {
                NativeTools.run(List.of("objcopy", "--compress-debug-sections=" + kind, program.toString(),
                        compressed.toString()));
            } catch (IOException e) {
                if (kind.equals("zstd")) {
                    continue; // this objcopy was built without zstd
                }
                throw e;
            }
            try (Symbolizer s = new Symbolizer(SymbolizerOptions.DEFAULT)) {
                assertThat(withoutModule(s.elf(compressed).symbolize(a))).as(kind).isEqualTo(withoutModule(plain));
            }
        }
        // objcopy --only-keep-debug + strip + --add-gnu-debuglink: found beside the file by its debuglink
        Path debug = dir.resolve("linked.debug");
        Path stripped = dir.resolve("linked");
        NativeTools.run(List.of("objcopy", "--only-keep-debug", program.toString(), debug.toString()));
        NativeTools.run(List.of("objcopy", "--strip-all", "--remove-section=.note.gnu.build-id",
                "--add-gnu-debuglink=" + debug, program.toString(), stripped.toString()));
        try (Symbolizer s = new Symbolizer(SymbolizerOptions.DEFAULT, Path.of("/proc"), Path.of("/tmp"), List.of())) {
            assertThat(s.image(stripped).debugFile()).isNotNull();
            assertThat(withoutModule(s.elf(stripped).symbolize(a))).isEqualTo(withoutModule(plain));
        }
    }

    private static List<String> withoutModule(List<SymbolFrame> frames) {
        return frames.stream().map(f -> f.function() + "+" + f.offset() + " " + f.file() + ":" + f.line()
                + (f.inlined() ? " inlined" : "")).toList();
    }

    /** An address where mix() is inlined into mix_twice() inlined into leaf_compute(). */
    private static long deepestInlinedAddress(Path program) throws IOException {
        try (Symbolizer s = new Symbolizer(SymbolizerOptions.DEFAULT)) {
            AddressSymbolizer elf = s.elf(program);
            for (NativeTools.NmSymbol sym : NativeTools.nmText(program, false)) {
                for (long a = sym.address(); a < sym.address() + sym.size(); a++) {
                    List<SymbolFrame> f = elf.symbolize(a);
                    if (f.size() >= 3 && f.getFirst().function().equals("mix")) {
                        return a;
                    }
                }
            }
        }
        throw new AssertionError("no address with mix inlined two levels deep");
    }

    /** addr2line -f -i -C (not pretty): per address, its frames as {name, file:line}. */
    private static List<List<String[]>> addr2lineFrames(Path file, List<Long> addresses) throws IOException {
        StringBuilder in = new StringBuilder();
        for (long a : addresses) {
            in.append("0x").append(Long.toHexString(a)).append('\n');
        }
        String out = NativeTools.run(List.of("addr2line", "-a", "-f", "-i", "-C", "-e", file.toString()), in.toString());
        List<List<String[]>> result = new ArrayList<>();
        String[] lines = out.split("\n");
        for (int i = 0; i < lines.length; ) {
            List<String[]> frames = new ArrayList<>();
            i++;
            while (i + 1 < lines.length + 1 && i < lines.length && !lines[i].startsWith("0x")) {
                String location = lines[i + 1].replaceAll(" \\(discriminator \\d+\\)$", "");
                frames.add(new String[] {lines[i], location.endsWith(":?") ? "null:0" : location});
                i += 2;
            }
            result.add(frames);
        }
        return result;
    }
}
