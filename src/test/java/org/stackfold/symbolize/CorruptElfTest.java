package org.stackfold.symbolize;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.io.InputException;

/** Damaged ELF files (seeded mutations of the test program): frames or a one-line InputException, nothing else. */
class CorruptElfTest {
    @Test
    void mutatedFilesNeverCrashOrHang(@TempDir Path dir) throws IOException {
        byte[] original = Files.readAllBytes(NativeTools.program());
        long[] probes = {0x1000, 0x1100, 0x1290, 0x12a0, 0x1300, 0x1390};
        SplittableRandom random = new SplittableRandom(20261125);
        int errors = 0;
        for (int round = 0; round < 200; round++) {
            byte[] b = original.clone();
            int flips = 1 + random.nextInt(32);
            for (int k = 0; k < flips; k++) {
                int at = random.nextInt(b.length);
                b[at] = (byte) (random.nextBoolean() ? random.nextInt(256) : 0xff);
            }
            if (round % 10 == 0) {
                b = java.util.Arrays.copyOf(b, random.nextInt(b.length));
            }
            Path file = dir.resolve("m" + round);
            Files.write(file, b);
            try (Symbolizer s = new Symbolizer(SymbolizerOptions.DEFAULT, Path.of("/proc"), Path.of("/tmp"), List.of())) {
                AddressSymbolizer elf = s.elf(file);
                for (long a : probes) {
                    assertThat(elf.symbolize(a)).isNotEmpty();
                }
                Addr2line a2l = Addr2line.of(s, file);
                for (long a : probes) {
                    assertThat(a2l.lookup(a)).startsWith("0x");
                }
            } catch (InputException e) {
                assertThat(e.getMessage()).doesNotContain("\n");
                errors++;
            }
        }
        assertThat(errors).isLessThan(200);
    }
}
