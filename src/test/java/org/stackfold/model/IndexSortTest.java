package org.stackfold.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** IndexSort is stable and orders like a boxed stable sort, on random, sorted, reversed and run-shaped keys. */
class IndexSortTest {
    @Test
    void ordersLikeAStableSortOfBoxedIndexes() {
        Random r = new Random(7);
        for (int round = 0; round < 300; round++) {
            int n = r.nextInt(200);
            long[] keys = new long[n];
            int shape = round % 4;
            for (int i = 0; i < n; i++) {
                keys[i] = switch (shape) {
                    case 0 -> r.nextInt(10); // many equal keys: stability shows
                    case 1 -> i / 3; // sorted with ties
                    case 2 -> n - i; // reversed
                    default -> i % 17 == 0 ? r.nextInt(50) : i; // nearly sorted
                };
            }
            int[] expected = IntStream.range(0, n).boxed().sorted(Comparator.comparingLong(i -> keys[i]))
                    .mapToInt(Integer::intValue).toArray();
            int[] got = IndexSort.sorted(n, (x, y) -> Long.compare(keys[x], keys[y]));
            assertThat(got).as("round %d keys %s", round, Arrays.toString(keys)).containsExactly(expected);
        }
    }
}
