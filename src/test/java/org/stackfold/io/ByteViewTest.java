package org.stackfold.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.collapse.perf.PerfCollapser;
import org.stackfold.perf.PerfOptions;
import org.stackfold.format.folded.FoldedReader;

/** Random access to an input's bytes without a mapping: what the range cutters and first-line looks read. */
class ByteViewTest {
    private static byte[] random(int n, long seed) {
        byte[] data = new byte[n];
        new SplittableRandom(seed).nextBytes(data);
        return data;
    }

    @Test
    void aFileReadsTheSameBytesWhereverTheLooksGo(@TempDir Path dir) throws IOException {
        byte[] data = random(300_000, 1); // several 64 KiB windows
        Path file = Files.write(dir.resolve("bytes"), data);
        try (Input in = Input.open(file.toString())) {
            ByteView v = in.view();
            assertThat(v.size()).isEqualTo(data.length);
            SplittableRandom r = new SplittableRandom(2);
            for (int k = 0; k < 2000; k++) {
                long at = r.nextInt(data.length);
                assertThat(v.get(at)).as("byte %d", at).isEqualTo(data[(int) at]);
                if (at > 0) {
                    assertThat(v.get(at - 1)).isEqualTo(data[(int) at - 1]); // the cutters look back a byte
                }
            }
            for (int at : new int[] {0, 65_535, 65_536, 131_000, data.length - 10}) {
                int n = Math.min(200_000, data.length - at);
                byte[] got = new byte[n + 2];
                v.copy(at, got, 1, n); // across windows
                assertThat(Arrays.copyOfRange(got, 1, n + 1)).isEqualTo(Arrays.copyOfRange(data, at, at + n));
            }
            assertThatThrownBy(() -> v.get(data.length)).isInstanceOf(IndexOutOfBoundsException.class);
        }
    }

    @Test
    void aStreamACompressedFileAndAFileShowTheSameContent(@TempDir Path dir) throws IOException {
        byte[] data = random(100_000, 3);
        Path plain = Files.write(dir.resolve("plain"), data);
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(gz)) {
            z.write(data);
        }
        Path packed = Files.write(dir.resolve("packed"), gz.toByteArray());
        for (Input in : new Input[] {Input.open(plain.toString()), Input.open(packed.toString()), Input.ofBytes("s", data)}) {
            try (in) {
                ByteView v = in.view();
                byte[] got = new byte[data.length];
                v.copy(0, got, 0, got.length);
                assertThat(got).as(in.name()).isEqualTo(data);
                try (ByteBlocks.Source s = in.range(5, 20)) { // the same content, after the view took it
                    byte[] b = new byte[32];
                    assertThat(s.read(b, 0, 32)).isEqualTo(15);
                    assertThat(Arrays.copyOf(b, 15)).isEqualTo(Arrays.copyOfRange(data, 5, 20));
                }
            }
        }
    }

    @Test
    void aFileCutShortBeforeALookIsAnErrorNamingItAndTheOffset(@TempDir Path dir) throws IOException {
        Path file = Files.write(dir.resolve("f.txt"), new byte[200_000]);
        try (Input in = Input.open(file.toString())) {
            ByteView v = in.view();
            assertThat(v.get(10)).isZero();
            try (FileChannel w = FileChannel.open(file, StandardOpenOption.WRITE)) {
                w.truncate(70_000);
            }
            assertThatThrownBy(() -> v.get(150_000)) // its window starts at the 4 KiB boundary before it
                    .isInstanceOf(InputException.class)
                    .hasMessageEndingWith("f.txt: at byte offset 147456: the file ended while it was being read"
                            + " (it was 200000 bytes or more when opened): was it truncated?");
        }
    }

    /**
     * Folded text and perf script text are cut into ranges and read without mapping the file: a first
     * mapping costs a one-shot command some 20 ms (see {@link ByteView}).
     */
    @Test
    void theTextReadersMapNothing(@TempDir Path dir) throws IOException {
        Path folded = Files.writeString(dir.resolve("p.folded"), "a;b 1\na;c 2\nd 3\n".repeat(1000));
        try (Input in = Input.open(folded.toString())) {
            new FoldedReader(FoldedReader.Mode.AUTO, false, 2, w -> { }).read(in);
            assertThat(in.mapped()).isFalse();
        }
        Path perf = Files.write(dir.resolve("perf.txt"), ("java 12/13 [001] 1.000001: 250 cycles:\n"
                + "\t 10 f (/m)\n\t 20 g (/m)\n\n").repeat(1000).getBytes(StandardCharsets.UTF_8));
        try (Input in = Input.open(perf.toString())) {
            new PerfCollapser().collapse(in, PerfOptions.defaults(), w -> { });
            assertThat(in.mapped()).isFalse();
        }
    }
}
