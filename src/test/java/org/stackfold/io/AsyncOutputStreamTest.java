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
