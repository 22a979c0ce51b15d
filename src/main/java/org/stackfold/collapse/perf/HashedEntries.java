package org.stackfold.collapse.perf;

import java.util.Arrays;

/**
 * The bookkeeping of {@link LineCache} (both the frame lines and the lines of samples not counted):
 * entries (hash, key offset, key length, value) found through an open-addressing table of entry ids.
 * The cache keeps its keys in its own byte arena and compares them itself while probing:
 * <pre>for (int slot = e.slot(h); ; slot = e.next(slot)) { int id = e.entry(slot); ... }</pre>
 * Hashes must be well mixed already: the slot is the hash's low bits.
 */
final class HashedEntries {
    int[] hashes = new int[1024];
    int[] offsets = new int[1024];
    int[] lengths = new int[1024];
    int[] values = new int[1024];
    private int size;
    private int[] table = new int[4096]; // entry id + 1; 0 = empty
    private int mask = table.length - 1;

    /** The number of entries. */
    int size() {
        return size;
    }

    int slot(int hash) {
        return hash & mask;
    }

    int next(int slot) {
        return (slot + 1) & mask;
    }

    /** The entry id in the slot, or -1 where it is empty (the probe ends). */
    int entry(int slot) {
        return table[slot] - 1;
    }

    /** Adds an entry; its id (ids count up from 0). */
    int add(int hash, int offset, int length, int value) {
        if (size == hashes.length) {
            int cap = size * 2;
            hashes = Arrays.copyOf(hashes, cap);
            offsets = Arrays.copyOf(offsets, cap);
            lengths = Arrays.copyOf(lengths, cap);
            values = Arrays.copyOf(values, cap);
        }
        int id = size++;
        hashes[id] = hash;
        offsets[id] = offset;
        lengths[id] = length;
        values[id] = value;
        if (size * 2 > table.length) {
            table = new int[table.length * 2];
            mask = table.length - 1;
            for (int i = 0; i < size; i++) {
                insert(i);
            }
        } else {
            insert(id);
        }
        return id;
    }

    private void insert(int id) {
        int slot = hashes[id] & mask;
        while (table[slot] != 0) {
            slot = (slot + 1) & mask;
        }
        table[slot] = id + 1;
    }
}
