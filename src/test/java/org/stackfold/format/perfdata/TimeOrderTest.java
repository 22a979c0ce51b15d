package org.stackfold.format.perfdata;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class TimeOrderTest {
    /** The reference: a stable sort of the indexes by unsigned time. */
    private static int[] expected(long[] time, int n) {
        List<Integer> order = IntStream.range(0, n).boxed().sorted(
                Comparator.comparing((Integer i) -> time[i], Long::compareUnsigned)).toList();
        return order.stream().mapToInt(Integer::intValue).toArray();
    }

    @Test
    void ordersByTimeAndKeepsFileOrderAmongEqualTimes() {
        long[] time = {30, 10, 20, 10, 30, 5};
        assertThat(TimeOrder.sorted(time, time.length)).containsExactly(5, 1, 3, 2, 0, 4);
    }

    @Test
    void looksOnlyAtTheFirstNTimes() {
        long[] time = {3, 1, 2, 0, 0};
        assertThat(TimeOrder.sorted(time, 3)).containsExactly(1, 2, 0);
        assertThat(TimeOrder.sorted(time, 0)).isEmpty();
    }

    @Test
    void agreesWithAStableSortOnShortAndWideSpansAndUnsignedTimes() {
        Random random = new Random(12);
        for (int round = 0; round < 120; round++) {
            int n = 1 + random.nextInt(round < 60 ? 40 : 1000);
            long base = random.nextBoolean() ? random.nextLong() : 1_000_000_000L;
            // short spans pack time and index into one long; wide ones (and the sign bit) take the merge sort
            long span = switch (round % 3) {
                case 0 -> 50;
                case 1 -> 1L << 40;
                default -> Long.MAX_VALUE;
            };
            long[] time = new long[n];
            for (int i = 0; i < n; i++) {
                time[i] = base + (random.nextLong() & Long.MAX_VALUE) % span;
            }
            assertThat(TimeOrder.sorted(time, n)).as("round %d", round).containsExactly(expected(time, n));
        }
    }
}
