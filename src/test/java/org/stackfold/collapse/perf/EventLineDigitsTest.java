package org.stackfold.collapse.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The digit-run scan reads eight bytes at a time: every byte value, at every place in and past a word. */
class EventLineDigitsTest {
    private static int reference(byte[] b, int i, int e) {
        while (i < e && b[i] >= '0' && b[i] <= '9') {
            i++;
        }
        return i;
    }

    @Test
    void everyByteStopsTheRunExactlyWhereAByteLoopWould() {
        for (int len = 0; len <= 19; len++) {
            for (int at = 0; at < Math.max(1, len); at++) {
                for (int v = 0; v < 256; v++) {
                    byte[] b = new byte[len + 8];
                    Arrays.fill(b, (byte) '7');
                    if (at < len) {
                        b[at] = (byte) v;
                    }
                    for (int from = 0; from <= Math.min(len, 3); from++) {
                        assertThat(EventLine.digits(b, from, len)).as("len %d, byte %d at %d, from %d", len, v, at, from)
                                .isEqualTo(reference(b, from, len));
                    }
                }
            }
        }
    }
}
