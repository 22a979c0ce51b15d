package org.stackfold.symbolize;

/**
 * Upper-bound search over a sorted {@code long[]} of addresses through a bucket table: the span
 * of the addresses is cut into power-of-two buckets (about one address per bucket), each bucket
 * remembers where its addresses start, and a lookup binary-searches only its bucket. This replaces
 * some twenty cache-missing probes of a plain binary search with one or two.
 */
final class AddressIndex {
    private static final int MAX_BUCKETS = 1 << 22;

    private final long[] keys;
    private final long base;
    private final int shift;
    private final int[] bucketStart;

    AddressIndex(long[] sortedKeys) {
        keys = sortedKeys;
        int n = keys.length;
        if (n == 0) {
            base = 0;
            shift = 63;
            bucketStart = new int[] {0, 0};
            return;
        }
        base = keys[0];
        long span = keys[n - 1] - base;
        int s = 4;
        while (s < 62 && (Long.compareUnsigned(span >>> s, Math.max(n, 1)) > 0 || (span >>> s) >= MAX_BUCKETS)) {
            s++;
        }
        shift = s;
        int buckets = (int) (span >>> s) + 1;
        bucketStart = new int[buckets + 1];
        int k = 0;
        for (int b = 0; b <= buckets; b++) {
            long bucketLow = base + ((long) b << s);
            while (k < n && (b == buckets || Long.compareUnsigned(keys[k], bucketLow) < 0)) {
                k++;
            }
            bucketStart[b] = k;
        }
    }

    /** The heap of the bucket table (the keys are the caller's). */
    long bytes() {
        return 4L * bucketStart.length + 16;
    }

    /** The first index whose key is above {@code address} (unsigned), or the length when none is. */
    int upperBound(long address) {
        if (Long.compareUnsigned(address, base) < 0) {
            return 0;
        }
        long b = (address - base) >>> shift;
        int buckets = bucketStart.length - 1;
        if (b >= buckets) {
            return keys.length;
        }
        int lo = bucketStart[(int) b];
        int hi = bucketStart[(int) b + 1];
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(keys[mid], address) <= 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
