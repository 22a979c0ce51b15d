package org.stackfold.model;

/**
 * A stable merge sort of an index array by a comparator over primitive columns (no boxing): the
 * order of records kept as parallel arrays (symbols, events, samples by time). Runs already in
 * order are copied without merging, so input that is sorted or nearly so (events by time, as most
 * profilers write them) costs one comparison per element and step.
 */
public final class IndexSort {
    @FunctionalInterface
    public interface IndexComparator {
        int compare(int a, int b);
    }

    private IndexSort() {
    }

    /** Returns 0..n-1 ordered by {@code cmp}, equal elements keeping their order. */
    public static int[] sorted(int n, IndexComparator cmp) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        int[] b = new int[n];
        for (int width = 1; width < n; width *= 2) {
            for (int lo = 0; lo < n; lo += 2 * width) {
                int mid = Math.min(lo + width, n);
                int hi = Math.min(lo + 2 * width, n);
                if (mid == hi || cmp.compare(a[mid], a[mid - 1]) >= 0) {
                    System.arraycopy(a, lo, b, lo, hi - lo); // the two runs are already in order
                    continue;
                }
                int i = lo;
                int j = mid;
                int k = lo;
                while (i < mid && j < hi) {
                    b[k++] = cmp.compare(a[j], a[i]) < 0 ? a[j++] : a[i++];
                }
                while (i < mid) {
                    b[k++] = a[i++];
                }
                while (j < hi) {
                    b[k++] = a[j++];
                }
            }
            int[] t = a;
            a = b;
            b = t;
        }
        return a;
    }
}
