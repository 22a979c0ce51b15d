package org.stackfold.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MappedWindowsTest {
    @Test
    void servesTheRangeAcrossWindowsWhateverTheReadSizes(@TempDir Path dir) throws IOException {
        byte[] data = new byte[100_000];
        SplittableRandom r = new SplittableRandom(1);
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) r.nextInt(256);
        }
        Path file = Files.write(dir.resolve("bytes"), data);
        try (FileChannel ch = FileChannel.open(file)) {
            for (int window : new int[] {1, 7, 4096, 1 << 20}) {
                ByteArrayOutputStream got = new ByteArrayOutputStream();
                try (MappedWindows w = new MappedWindows(ch, 123, 98_765, window)) {
                    byte[] buf = new byte[1000];
                    int n;
                    while ((n = w.read(buf, 0, r.nextInt(1, buf.length))) >= 0) {
                        got.write(buf, 0, n);
                    }
                }
                assertThat(got.toByteArray()).isEqualTo(Arrays.copyOfRange(data, 123, 98_765));
            }
        }
    }

    @Test
    void anInputReadsAFileRangeThroughWindowsAndAStreamThroughItsBytes(@TempDir Path dir) throws IOException {
        byte[] data = "a;b 1\na;c 2\n".getBytes();
        Path file = Files.write(dir.resolve("f.folded"), data);
        for (Input in : new Input[] {Input.open(file.toString()), Input.ofBytes("s", data)}) {
            try (in; ByteBlocks.Source s = in.window(2, 9)) {
                byte[] buf = new byte[16];
                int n = s.read(buf, 0, 16);
                assertThat(new String(buf, 0, n)).isEqualTo("b 1\na;c");
                assertThat(s.read(buf, 0, 16)).isEqualTo(-1);
            }
        }
    }
}
