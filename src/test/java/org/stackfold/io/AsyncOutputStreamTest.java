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

    /**
     * A slow reader and a producer that finishes first: every buffer the writer still holds comes
     * back after the producer has stopped taking them. The writer once blocked handing the sixth back
     * into a queue of five while close() waited for it: {@code fold big.folded | head -1} hung
     * about once in a hundred runs on a loaded machine. Here the reader is held until close() waits,
     * so all six buffers are in flight at once, every time.
     */
    @Test
    void closeWaitsForASlowReaderWithEveryBufferInFlight() throws Exception {
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        OutputStream slow = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    throw new java.io.InterruptedIOException();
                }
                sink.write(b, off, len);
            }
        };
        // 64 KiB + 128 KiB + 256 KiB + 512 KiB + two of 1 MiB fill the first six buffers; 100 bytes more
        // open a seventh, so close() hands off while the queue of full buffers is full.
        int size = (64 + 128 + 256 + 512 + 1024 + 1024) * 1024 + 100;
        byte[] data = new byte[size];
        new SplittableRandom(13).nextBytes(data);
        Throwable[] failure = new Throwable[1];
        Thread producer = Thread.ofPlatform().start(() -> {
            try (AsyncOutputStream out = new AsyncOutputStream(slow)) {
                for (int pos = 0; pos < size; pos += 4096) {
                    out.write(data, pos, Math.min(4096, size - pos));
                }
            } catch (Throwable t) {
                failure[0] = t;
            }
        });
        while (producer.getState() != Thread.State.WAITING && producer.isAlive()) {
            Thread.sleep(1);
        }
        go.countDown();
        producer.join(60_000);
        assertThat(producer.isAlive()).as("close() still waiting for the writer a minute after the reader went on").isFalse();
        assertThat(failure[0]).isNull();
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
