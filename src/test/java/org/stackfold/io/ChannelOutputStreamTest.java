package org.stackfold.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/** Every byte arrives in order whatever the sizes, flushes and the direct/page-cache split. */
class ChannelOutputStreamTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 4095, 4096, 1 << 20, (1 << 20) + 1, 3 * (1 << 20) + 12345, 9_000_000})
    void writesEverythingInOrder(int size) throws IOException {
        SplittableRandom r = new SplittableRandom(size);
        byte[] data = new byte[size];
        r.nextBytes(data);
        Path p = Files.createFile(dir.resolve("out-" + size));
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        try (ChannelOutputStream out = new ChannelOutputStream(p)) {
            int pos = 0;
            while (pos < size) {
                int n = Math.min(size - pos, r.nextInt(1, 700_000));
                if (r.nextInt(20) == 0) {
                    out.write(data[pos]);
                    n = 1;
                } else {
                    out.write(data, pos, n);
                }
                pos += n;
                if (r.nextInt(50) == 0) {
                    out.flush(); // an unaligned flush moves the rest to the page cache: still in order
                }
            }
            expected.write(data);
        }
        assertThat(Files.readAllBytes(p)).isEqualTo(expected.toByteArray());
    }
}
