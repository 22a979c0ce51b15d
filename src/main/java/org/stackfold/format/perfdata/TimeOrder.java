package org.stackfold.format.perfdata;

import java.util.Arrays;
import org.stackfold.model.IndexSort;

/**
 * The order of a round of queued records: by time (unsigned), file order among equal times. A round
 * spans a short time, so each record's time above the round's first and its index usually fit in one
 * long together, and a primitive sort of those longs gives the order without a comparator or boxes.
 */
final class TimeOrder {
    private TimeOrder() {
    }

    /** The indexes 0..n-1 ordered by {@code time[i]} (unsigned), equal times in index order. */
    static int[] sorted(long[] time, int n) {
        int[] order = new int[n];
        if (n == 0) {
            return order;
        }
        long min = time[0];
        long max = time[0];
        for (int i = 1; i < n; i++) {
            if (Long.compareUnsigned(time[i], min) < 0) {
                min = time[i];
            }
            if (Long.compareUnsigned(time[i], max) > 0) {
                max = time[i];
            }
        }
        int indexBits = Math.max(1, 32 - Integer.numberOfLeadingZeros(n - 1));
        if (Long.compareUnsigned(max - min, 1L << (63 - indexBits)) >= 0) {
            return byComparison(time, n);
        }
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = (time[i] - min) << indexBits | i;
        }
        Arrays.sort(keys);
        int mask = (1 << indexBits) - 1;
        for (int i = 0; i < n; i++) {
            order[i] = (int) (keys[i] & mask);
        }
        return order;
    }

    /** A stable sort of the indexes, for rounds whose times span too much to pack. */
    private static int[] byComparison(long[] time, int n) {
        return IndexSort.sorted(n, (x, y) -> Long.compareUnsigned(time[x], time[y]));
    }
}
