package org.stackfold.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileRangeTest {
    @Test
    void servesTheRangeWhateverTheReadSizes(@TempDir Path dir) throws IOException {
        byte[] data = new byte[100_000];
        SplittableRandom r = new SplittableRandom(1);
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) r.nextInt(256);
        }
        Path file = Files.write(dir.resolve("bytes"), data);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
            for (int max : new int[] {1, 7, 1000}) {
                ByteArrayOutputStream got = new ByteArrayOutputStream();
                try (FileRange range = new FileRange(new FileRange.Shared(raf), "bytes", 123, 98_765)) {
                    byte[] buf = new byte[1000];
                    int n;
                    while ((n = range.read(buf, 3, r.nextInt(1, Math.min(max, buf.length - 3) + 1))) >= 0) {
                        got.write(buf, 3, n);
                    }
                }
                assertThat(got.toByteArray()).isEqualTo(Arrays.copyOfRange(data, 123, 98_765));
            }
        }
    }

    @Test
    void twoThreadsShareOneFile(@TempDir Path dir) throws Exception {
        byte[] data = new byte[1 << 20];
        new SplittableRandom(2).nextBytes(data);
        Path file = Files.write(dir.resolve("bytes"), data);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
            FileRange.Shared shared = new FileRange.Shared(raf);
            byte[][] got = new byte[2][];
            Thread[] threads = new Thread[2];
            for (int t = 0; t < 2; t++) {
                int k = t;
                threads[t] = new Thread(() -> got[k] = readAll(new FileRange(shared, "bytes", k << 19, (k + 1) << 19)));
                threads[t].start();
            }
            for (Thread t : threads) {
                t.join();
            }
            assertThat(got[0]).isEqualTo(Arrays.copyOfRange(data, 0, 1 << 19));
            assertThat(got[1]).isEqualTo(Arrays.copyOfRange(data, 1 << 19, 1 << 20));
        }
    }

    @Test
    void anInputsRangesReadOnSeveralThreadsAtOnce(@TempDir Path dir) throws Exception {
        byte[] data = new byte[3 << 20];
        new SplittableRandom(3).nextBytes(data);
        Path file = Files.write(dir.resolve("bytes"), data);
        for (int round = 0; round < 5; round++) {
            try (Input in = Input.open(file.toString())) {
                int parts = 3;
                byte[][] got = new byte[parts][];
                java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
                Thread[] threads = new Thread[parts];
                for (int t = 0; t < parts; t++) {
                    int k = t;
                    threads[t] = new Thread(() -> {
                        try {
                            go.await(); // all ask for their range at once
                            try (ByteBlocks.Source s = in.range((long) k << 20, (long) (k + 1) << 20)) {
                                got[k] = readAll(s);
                            }
                        } catch (IOException | InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                    });
                    threads[t].start();
                }
                go.countDown();
                for (Thread t : threads) {
                    t.join();
                }
                for (int k = 0; k < parts; k++) {
                    assertThat(got[k]).isEqualTo(Arrays.copyOfRange(data, k << 20, (k + 1) << 20));
                }
            }
        }
    }

    @Test
    void aFileCutShortWhileReadIsAnErrorNamingItAndTheOffset(@TempDir Path dir) throws IOException {
        Path file = Files.write(dir.resolve("f.txt"), new byte[10_000]);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
            FileRange range = new FileRange(new FileRange.Shared(raf), "f.txt", 0, 10_000);
            byte[] buf = new byte[4096];
            assertThat(range.read(buf, 0, buf.length)).isEqualTo(4096);
            try (FileChannel w = FileChannel.open(file, StandardOpenOption.WRITE)) {
                w.truncate(5000);
            }
            assertThat(range.read(buf, 0, buf.length)).isEqualTo(904);
            assertThatThrownBy(() -> range.read(buf, 0, buf.length))
                    .isInstanceOf(InputException.class)
                    .hasMessage("f.txt: at byte offset 5000: the file ended while it was being read"
                            + " (it was 10000 bytes or more when opened): was it truncated?");
        }
    }

    @Test
    void anInputReadsAFileRangeAndAStreamThroughItsBytes(@TempDir Path dir) throws IOException {
        byte[] data = "a;b 1\na;c 2\n".getBytes();
        Path file = Files.write(dir.resolve("f.folded"), data);
        for (Input in : new Input[] {Input.open(file.toString()), Input.ofBytes("s", data)}) {
            try (in; ByteBlocks.Source s = in.range(2, 9)) {
                byte[] buf = new byte[16];
                int n = s.read(buf, 0, 16);
                assertThat(new String(buf, 0, n)).isEqualTo("b 1\na;c");
                assertThat(s.read(buf, 0, 16)).isEqualTo(-1);
            }
        }
    }

    private static byte[] readAll(ByteBlocks.Source s) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[777];
        try {
            int n;
            while ((n = s.read(buf, 0, buf.length)) >= 0) {
                out.write(buf, 0, n);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
