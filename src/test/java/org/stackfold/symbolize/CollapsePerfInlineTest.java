package org.stackfold.symbolize;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code collapse perf --inline [--context]}: frames of a binary with DWARF get the functions inlined
 * at their address, as addr2line -i names them.
 */
class CollapsePerfInlineTest {
    @TempDir
    Path dir;

    @Test
    void inlinedFramesAndTheirLinesComeFromDwarf() throws IOException {
        Path program = NativeTools.program();
        long top = 0;
        long deep = 0;
        List<NativeTools.NmSymbol> nm = NativeTools.nmText(program, false);
        for (NativeTools.NmSymbol s : nm) {
            if (s.name().equals("top_compute")) {
                top = s.address();
            }
        }
        // an address of top_compute where addr2line -i reports inlined functions
        List<String[]> frames = null;
        for (long a = top; frames == null || frames.size() < 3; a++) {
            frames = addr2line(program, a);
            deep = a;
        }
        String perfScript = "inline 1234 [000] 1.000000: 1 cpu-clock:\n"
                + "\t    55d0c2a4f" + Long.toHexString(deep & 0xfff) + " top_compute+0x" + Long.toHexString(deep - top)
                + " (" + program + ")\n"
                + "\t    7f3a12c4e0f0 __libc_start_call_main+0x80 (/nonexistent/libc.so.6)\n\n";
        Path in = dir.resolve("perf.txt");
        Files.writeString(in, perfScript);

        List<String> expected = new ArrayList<>(List.of("inline", "__libc_start_call_main", "top_compute"));
        List<String> expectedContext = new ArrayList<>(List.of("inline", "__libc_start_call_main",
                "top_compute:" + frames.getLast()[1]));
        for (int k = frames.size() - 2; k >= 0; k--) {
            expected.add(frames.get(k)[0] + "_[i]");
            expectedContext.add(frames.get(k)[0] + ":" + frames.get(k)[1] + "_[i]");
        }
        assertThat(collapse(in, "--inline")).isEqualTo(String.join(";", expected) + " 1\n");
        assertThat(collapse(in, "--inline", "--context")).isEqualTo(String.join(";", expectedContext) + " 1\n");
        assertThat(collapse(in)).isEqualTo("inline;__libc_start_call_main;top_compute 1\n");
    }

    @Test
    void unknownFramesOfAPositionDependentExecutableAreNamedFromTheirAddress() throws IOException {
        NativeTools.require("gcc");
        Path source = dir.resolve("inline.c");
        Files.copy(NativeTools.program().resolveSibling("inline.c"), source);
        Path nopie = dir.resolve("nopie");
        NativeTools.run(List.of("gcc", "-g", "-O2", "-no-pie", "-o", nopie.toString(), source.toString()));
        long main = NativeTools.nmText(nopie, false).stream().filter(s -> s.name().equals("main")).findFirst()
                .orElseThrow().address();
        List<String[]> frames = addr2line(nopie, main + 4);
        Path in = dir.resolve("unknown.txt");
        Files.writeString(in, "nopie 99 [001] 2.000000: 1 cpu-clock:\n"
                + "\t    " + Long.toHexString(main + 4) + " [unknown] (" + nopie + ")\n"
                + "\t    7f3a12c4e0f0 [unknown] (" + NativeTools.program() + ")\n\n");
        List<String> expected = new ArrayList<>(List.of("nopie", "[" + NativeTools.program().getFileName() + "]", "main"));
        for (int k = frames.size() - 2; k >= 0; k--) {
            expected.add(frames.get(k)[0] + "_[i]");
        }
        // the PIE program's load address is unknown: its [unknown] frame stays as perf printed it
        assertThat(collapse(in, "--inline")).isEqualTo(String.join(";", expected) + " 1\n");
    }

    private String collapse(Path in, String... options) throws IOException {
        Path out = dir.resolve("out" + options.length + ".folded");
        List<String> args = new ArrayList<>(List.of("collapse", "perf", in.toString(), "-o", out.toString()));
        args.addAll(List.of(options));
        org.stackfold.cli.CliRun r = org.stackfold.cli.CliRun.run(args.toArray(String[]::new));
        assertThat(r.code()).as(r.err()).isZero();
        return Files.readString(out);
    }

    /** addr2line -f -i -s: frames innermost first as {name, base-name:line}. */
    private static List<String[]> addr2line(Path program, long address) throws IOException {
        String[] lines = NativeTools.run(List.of("addr2line", "-f", "-i", "-s", "-e", program.toString(),
                "0x" + Long.toHexString(address))).split("\n");
        List<String[]> frames = new ArrayList<>();
        for (int i = 0; i + 1 < lines.length; i += 2) {
            frames.add(new String[] {lines[i], lines[i + 1].replaceAll(" \\(discriminator \\d+\\)$", "")});
        }
        return frames;
    }
}
