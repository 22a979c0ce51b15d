package org.stackfold.format.perfdata;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ChainTableTest {
    @Test
    void findsWhatWasAddedByContextFlagsAndWords() {
        ChainTable t = new ChainTable();
        long[] chain = {-128L, 0xffffffff81000010L, 0x401000L, 0x401100L};
        assertThat(t.find(1, 0, chain, 0, 4)).isEqualTo(-1);
        t.add(1, 0, chain, 0, 4, 7);
        assertThat(t.find(1, 0, chain, 0, 4)).isEqualTo(7);
        assertThat(t.find(2, 0, chain, 0, 4)).as("another address space epoch").isEqualTo(-1);
        assertThat(t.find(1, 1L << 32, chain, 0, 4)).as("other flags").isEqualTo(-1);
        assertThat(t.find(1, 0, chain, 0, 3)).as("a prefix").isEqualTo(-1);
        assertThat(t.find(1, 0, new long[] {-128L, 0xffffffff81000010L, 0x401000L, 0x401104L}, 0, 4)).isEqualTo(-1);
    }

    @Test
    void keepsItsOwnCopyOfTheWords() {
        ChainTable t = new ChainTable();
        long[] chain = {1, 2, 3};
        t.add(0, 0, chain, 0, 3, 5);
        chain[1] = 9;
        assertThat(t.find(0, 0, new long[] {1, 2, 3}, 0, 3)).isEqualTo(5);
        assertThat(t.find(0, 0, chain, 0, 3)).isEqualTo(-1);
    }

    @Test
    void anEmptyChainIsAKeyToo() {
        ChainTable t = new ChainTable();
        t.add(3, 4, new long[0], 0, 0, 11);
        assertThat(t.find(3, 4, new long[8], 0, 0)).isEqualTo(11);
    }

    @Test
    void agreesWithAMapThroughGrowth() {
        ChainTable t = new ChainTable();
        Map<List<Long>, Integer> expected = new HashMap<>();
        Random random = new Random(5);
        for (int i = 0; i < 20_000; i++) {
            int n = 1 + random.nextInt(40);
            long[] chain = new long[n];
            for (int k = 0; k < n; k++) {
                chain[k] = 0x400000L + 16 * random.nextInt(64); // few distinct addresses: many shared prefixes
            }
            long context = random.nextInt(4);
            List<Long> key = new java.util.ArrayList<>(List.of(context));
            for (long w : chain) {
                key.add(w);
            }
            Integer known = expected.get(key);
            assertThat(t.find(context, 0, chain, 0, n)).isEqualTo(known == null ? -1 : known);
            if (known == null) {
                t.add(context, 0, chain, 0, n, i);
                expected.put(key, i);
            }
        }
    }
}
