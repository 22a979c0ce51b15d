package org.stackfold.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class AsyncOutputStreamTest {
    @Test
    void passesEveryByteOnInOrder() throws IOException {
        SplittableRandom r = new SplittableRandom(11);
        byte[] data = new byte[5_300_000];
        r.nextBytes(data);
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        try (AsyncOutputStream out = new AsyncOutputStream(sink)) {
            int pos = 0;
            while (pos < data.length) {
                if (r.nextInt(4) == 0) {
                    out.write(data[pos++]);
                } else {
                    int n = Math.min(data.length - pos, r.nextInt(3_000_000));
                    out.write(data, pos, n);
                    pos += n;
                }
            }
        }
        assertThat(sink.toByteArray()).isEqualTo(data);
    }

    @Test
    void smallOutputsAndOnesOfManyBuffersAlike() throws IOException {
        // Buffers are made as the output grows (a small first one, then up to four of 1 MiB, reused).
        SplittableRandom r = new SplittableRandom(12);
        for (int size : new int[] {0, 1, 100, (64 << 10) - 1, 64 << 10, (64 << 10) + 1, 12_345_678}) {
            byte[] data = new byte[size];
            r.nextBytes(data);
            ByteArrayOutputStream sink = new ByteArrayOutputStream();
            try (AsyncOutputStream out = new AsyncOutputStream(sink)) {
                for (int pos = 0; pos < size; ) {
                    int n = Math.min(size - pos, 1 + r.nextInt(200_000));
                    out.write(data, pos, n);
                    pos += n;
                }
            }
            assertThat(sink.toByteArray()).as("%d bytes", size).isEqualTo(data);
        }
    }

    @Test
    void aFailedWriteSurfacesInTheWriter() {
        OutputStream broken = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("disk full");
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                throw new IOException("disk full");
            }
        };
        assertThatThrownBy(() -> {
            try (AsyncOutputStream out = new AsyncOutputStream(broken)) {
                out.write(new byte[20 << 20]);
            }
        }).isInstanceOf(IOException.class).hasMessage("disk full");
    }
}
