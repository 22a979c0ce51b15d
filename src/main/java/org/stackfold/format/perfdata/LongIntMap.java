package org.stackfold.format.perfdata;

import java.util.Arrays;

/** An open-addressing map from long keys to non-negative ints (-1: absent), for address caches. */
final class LongIntMap {
    private long[] keys = new long[64];
    private int[] values = new int[64];
    private boolean[] used = new boolean[64];
    private int size;

    int get(long key) {
        int mask = keys.length - 1;
        for (int i = hash(key) & mask; used[i]; i = (i + 1) & mask) {
            if (keys[i] == key) {
                return values[i];
            }
        }
        return -1;
    }

    void put(long key, int value) {
        if ((size + 1) * 2 > keys.length) {
            grow();
        }
        int mask = keys.length - 1;
        int i = hash(key) & mask;
        while (used[i] && keys[i] != key) {
            i = (i + 1) & mask;
        }
        if (!used[i]) {
            used[i] = true;
            size++;
        }
        keys[i] = key;
        values[i] = value;
    }

    void clear() {
        if (size > 0) {
            Arrays.fill(used, false);
            size = 0;
        }
    }

    private void grow() {
        long[] k = keys;
        int[] v = values;
        boolean[] u = used;
        keys = new long[k.length * 2];
        values = new int[k.length * 2];
        used = new boolean[k.length * 2];
        size = 0;
        for (int i = 0; i < k.length; i++) {
            if (u[i]) {
                put(k[i], v[i]);
            }
        }
    }

    private static int hash(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 29));
    }
}
