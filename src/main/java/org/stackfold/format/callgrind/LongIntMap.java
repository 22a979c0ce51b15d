package org.stackfold.format.callgrind;

import java.util.Arrays;

/** An open-addressing map from long keys to non-negative ints, without boxing (-1: absent). */
final class LongIntMap {
    private long[] keys = new long[256];
    private int[] values = new int[256];
    private int size;

    LongIntMap() {
        Arrays.fill(values, -1);
    }

    int get(long key) {
        int mask = keys.length - 1;
        for (int i = slot(key, mask); ; i = (i + 1) & mask) {
            if (values[i] < 0) {
                return -1;
            }
            if (keys[i] == key) {
                return values[i];
            }
        }
    }

    void put(long key, int value) {
        if (2 * (size + 1) > keys.length) {
            grow();
        }
        int mask = keys.length - 1;
        int i = slot(key, mask);
        while (values[i] >= 0 && keys[i] != key) {
            i = (i + 1) & mask;
        }
        if (values[i] < 0) {
            size++;
        }
        keys[i] = key;
        values[i] = value;
    }

    private static int slot(long key, int mask) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & mask;
    }

    private void grow() {
        long[] oldKeys = keys;
        int[] oldValues = values;
        keys = new long[oldKeys.length * 2];
        values = new int[oldKeys.length * 2];
        Arrays.fill(values, -1);
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldValues[i] >= 0) {
                put(oldKeys[i], oldValues[i]);
            }
        }
    }
}
