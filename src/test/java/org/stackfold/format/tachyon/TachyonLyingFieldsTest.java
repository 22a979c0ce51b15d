package org.stackfold.format.tachyon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.stackfold.io.InputException;

/**
 * Hand-made files whose counts and lengths lie: each fails with one {@link InputException} line
 * naming the offset (never a big allocation, a hang or another exception), or is accepted where
 * CPython accepts it.
 */
class TachyonLyingFieldsTest {
    /** Builds a file: header, the given sample bytes, strings "f.py", "fn", one frame (0, 1, line 1). */
    static byte[] file(byte[] samples, long sampleCount, int threads, int compression) {
        ByteArrayOutputStream tables = new ByteArrayOutputStream();
        for (String s : List.of("f.py", "fn")) {
            tables.write(s.length());
            tables.writeBytes(s.getBytes(StandardCharsets.UTF_8));
        }
        int stringEnd = tables.size();
        tables.writeBytes(new byte[] {0, 1, 2, 0, 0, 0, (byte) 255}); // file 0, func 1, line 1
        ByteBuffer b = ByteBuffer.allocate(64 + samples.length + tables.size() + 32).order(ByteOrder.LITTLE_ENDIAN);
        long strOff = 64 + samples.length;
        b.putInt(Tachyon.MAGIC).putInt(1).put((byte) 3).put((byte) 15).put((byte) 2).put((byte) 0)
                .putLong(0).putLong(1000).putLong(sampleCount).putInt(threads).putLong(strOff)
                .putLong(strOff + stringEnd).putInt(compression).putInt(0);
        b.put(samples).put(tables.toByteArray());
        b.putInt(2).putInt(1).putLong(b.capacity()).put(new byte[16]);
        return b.array();
    }

    static byte[] rec(int enc, int... rest) {
        ByteBuffer b = ByteBuffer.allocate(13 + rest.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(7).putInt(0).put((byte) enc);
        for (int r : rest) {
            b.put((byte) r);
        }
        return b.array();
    }

    static byte[] cat(byte[]... parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            o.writeBytes(p);
        }
        return o.toByteArray();
    }

    static List<String> replay(byte[] data) {
        TachyonFile f = TachyonFile.open("t.bin", MemorySegment.ofArray(data));
        List<String> out = new ArrayList<>();
        new TachyonReplay(f).run((t, s, ts, n) -> {
            for (int i = 0; i < n; i++) {
                out.add(t.depth() + "@" + ts[i]);
            }
        });
        return out;
    }

    static void rejects(byte[] data, String what) {
        assertThatThrownBy(() -> replay(data)).isInstanceOf(InputException.class)
                .hasMessageStartingWith("t.bin: at byte").hasMessageContaining(what)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    // FULL with delta 5, status 0, depth 1, frame 0.
    static final byte[] FULL_ONE = rec(Tachyon.FULL, 5, 0, 1, 0);

    @Test
    void wellFormed() {
        assertThat(replay(file(cat(FULL_ONE, rec(Tachyon.REPEAT, 2, 1, 0, 1, 0)), 3, 1, 0)))
                .containsExactly("1@5", "1@6", "1@7");
    }

    @Test
    void hugeRleCountIsRejectedBeforeAnyWork() {
        rejects(file(cat(FULL_ONE, rec(Tachyon.REPEAT, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 1, 0)), 2, 1, 0),
                "Invalid RLE count 4294967295 exceeds maximum possible");
    }

    @Test
    void rleCountZeroIsLegal() {
        assertThat(replay(file(cat(FULL_ONE, rec(Tachyon.REPEAT, 0)), 1, 1, 0))).hasSize(1);
    }

    @Test
    void deepStacksAndBadIndices() {
        rejects(file(rec(Tachyon.FULL, 5, 0, 0xAC, 0x02), 1, 1, 0), "Stack depth 300 exceeds capacity 256");
        rejects(file(rec(Tachyon.FULL, 5, 0, 1, 9), 1, 1, 0), "Invalid frame index: 9");
        rejects(file(cat(FULL_ONE, rec(Tachyon.SUFFIX, 1, 0, 2, 0)), 2, 1, 0), "Shared count 2 exceeds current stack depth 1");
        rejects(file(cat(FULL_ONE, rec(Tachyon.SUFFIX, 1, 0, 1, 0x80, 0x02)), 2, 1, 0),
                "Final stack depth 257 exceeds capacity 256");
    }

    @Test
    void overLongPopIsClampedAsCPythonDoes() {
        assertThat(replay(file(cat(FULL_ONE, rec(Tachyon.POP_PUSH, 1, 0, 9, 1, 0)), 2, 1, 0)))
                .containsExactly("1@5", "1@6");
    }

    @Test
    void malformedVarintsAndTruncation() {
        rejects(file(rec(Tachyon.FULL, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF), 1, 1, 0),
                "Malformed varint in sample data");
        rejects(file(rec(Tachyon.FULL, 5), 1, 1, 0), "Unexpected end of sample data");
        rejects(file(cat(FULL_ONE, new byte[5]), 1, 1, 0), "Truncated sample data: 5 trailing bytes");
        rejects(file(cat(FULL_ONE, rec(Tachyon.REPEAT, 2, 1)), 3, 1, 0), "exceeds maximum possible 0");
        rejects(file(cat(FULL_ONE, rec(Tachyon.REPEAT, 1, 0x80, 0x80)), 2, 1, 0), "Malformed varint in RLE sample data");
    }

    @Test
    void countsAndThreads() {
        rejects(file(FULL_ONE, 2, 1, 0), "Sample count mismatch: header declares 2 samples but replay decoded 1");
        rejects(file(FULL_ONE, 1, 0, 0), "Invalid thread count");
    }

    @Test
    void unknownCompressionIsReadAsNone() {
        assertThat(replay(file(FULL_ONE, 1, 1, 7))).containsExactly("1@5");
    }

    @Test
    void truncatedZstdFrame() {
        byte[] z = com.github.luben.zstd.Zstd.compress(cat(FULL_ONE, FULL_ONE, FULL_ONE));
        byte[] cut = java.util.Arrays.copyOf(z, z.length - 3);
        assertThatThrownBy(() -> replay(file(cut, 3, 1, 1))).isInstanceOf(InputException.class)
                .hasMessageContaining("zstd");
        assertThatThrownBy(() -> replay(file(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, 0, 1, 1)))
                .isInstanceOf(InputException.class).hasMessageContaining("zstd");
    }

    @Test
    void decompressionBombStopsAtCPythonsLimit() throws java.io.IOException {
        ByteArrayOutputStream z = new ByteArrayOutputStream();
        try (com.github.luben.zstd.ZstdOutputStream o = new com.github.luben.zstd.ZstdOutputStream(z, 19)) {
            byte[] zeros = new byte[1 << 20];
            for (int i = 0; i <= 1024; i++) { // 1 GiB + 1 MiB
                o.write(zeros);
            }
        }
        assertThat(z.size()).isLessThan(1 << 20);
        assertThatThrownBy(() -> TachyonFile.open("t.bin", MemorySegment.ofArray(file(z.toByteArray(), 0, 1, 1))))
                .isInstanceOf(InputException.class).hasMessageContaining("exceeds the maximum size of 1 GiB");
    }

    @Test
    void frameWithBadStringIndexFailsOnlyWhenUsed() {
        byte[] d = file(FULL_ONE, 1, 1, 0);
        // Point the frame's function at string 9: opening works, replay fails when the frame is used.
        int frameAt = d.length - 32 - 7;
        d[frameAt + 1] = 9;
        TachyonFile.open("t.bin", MemorySegment.ofArray(d));
        rejects(d, "Invalid string index in frame 0");
        assertThat(replay(file(new byte[0], 0, 0, 0))).isEmpty();
    }
}
