package org.stackfold.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ByteWordsTest {
    @Test
    void firstMatchIsExactEvenWhereLaterBytesGiveFalseAlarms() {
        byte[] b = ";\u0001;;xx;;".getBytes(StandardCharsets.ISO_8859_1);
        for (int i = 0; i < 8; i++) {
            byte[] w = Arrays.copyOf(b, 16);
            Arrays.fill(w, 0, 8, (byte) 'a');
            w[i] = ';';
            w[7] = ';';
            assertThat(ByteWords.firstIndex(ByteWords.matches(ByteWords.word(w, 0), ByteWords.broadcast(';'))))
                    .isEqualTo(i);
        }
        assertThat(ByteWords.firstIndex(ByteWords.matches(ByteWords.word("abcdefgh".getBytes(), 0),
                ByteWords.broadcast(';')))).isEqualTo(8);
        assertThat(ByteWords.firstIndex(ByteWords.matches(ByteWords.word(b, 0), ByteWords.broadcast('\u0001'))))
                .isEqualTo(1);
    }

    @Test
    void firstIndexIsTheLowestHighBitsByteForEveryPattern() {
        for (int bits = 0; bits < 256; bits++) {
            long m = 0;
            for (int i = 0; i < 8; i++) {
                if ((bits & (1 << i)) != 0) {
                    m |= 0x80L << (8 * i);
                }
            }
            assertThat(ByteWords.firstIndex(m)).as("pattern %s", Integer.toBinaryString(bits))
                    .isEqualTo(Long.numberOfTrailingZeros(m) >>> 3);
        }
    }

    @Test
    void partialWordsReadTheSameAtTheArrayEndAsInside() {
        byte[] b = "0123456789abc".getBytes(StandardCharsets.US_ASCII);
        for (int n = 0; n <= 8; n++) {
            int atEnd = b.length - n;
            long inside = ByteWords.partialWord(Arrays.copyOfRange(b, atEnd, b.length + 8), 0, n);
            assertThat(ByteWords.partialWord(b, atEnd, n)).isEqualTo(inside);
        }
    }

    @Test
    void theHashDependsOnTheBytesOnlyNotOnWhereTheyLie() {
        SplittableRandom r = new SplittableRandom(2);
        for (int len = 0; len < 40; len++) {
            byte[] name = new byte[len];
            for (int i = 0; i < len; i++) {
                name[i] = (byte) r.nextInt(256);
            }
            int h = ByteWords.hash(name, 0, len);
            for (int off = 0; off < 9; off++) {
                byte[] shifted = new byte[off + len + r.nextInt(3)];
                Arrays.fill(shifted, (byte) r.nextInt(256));
                System.arraycopy(name, 0, shifted, off, len);
                assertThat(ByteWords.hash(shifted, off, len)).isEqualTo(h);
            }
        }
        assertThat(ByteWords.hash("ab".getBytes(), 0, 2)).isNotEqualTo(ByteWords.hash("ab\0".getBytes(), 0, 3));
    }
}
