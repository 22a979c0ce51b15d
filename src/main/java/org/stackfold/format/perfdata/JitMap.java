package org.stackfold.format.perfdata;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A {@code /tmp/perf-PID.map} file ({@code START SIZE NAME} lines, hexadecimal) that names a
 * process's JIT code, read when a sample first lands in its anonymous memory. Where entries
 * overlap, the later line wins (JITs reuse code space).
 */
final class JitMap {
    static final JitMap EMPTY = new JitMap(new long[0], new long[0], new String[0]);
    private final long[] start;
    private final long[] end;
    private final String[] names;

    private JitMap(long[] start, long[] end, String[] names) {
        this.start = start;
        this.end = end;
        this.names = names;
    }

    static JitMap load(Path file) {
        byte[] b;
        try {
            b = Files.readAllBytes(file);
        } catch (IOException e) {
            return EMPTY;
        }
        List<long[]> ranges = new ArrayList<>();
        List<String> names = new ArrayList<>();
        int s = 0;
        while (s < b.length) {
            int e = s;
            while (e < b.length && b[e] != '\n') {
                e++;
            }
            String line = new String(b, s, e - s, StandardCharsets.UTF_8);
            String[] f = line.split(" ", 3);
            if (f.length == 3) {
                try {
                    long a = Long.parseUnsignedLong(strip0x(f[0]), 16);
                    long n = Long.parseUnsignedLong(strip0x(f[1]), 16);
                    ranges.add(new long[] {a, a + n, names.size()});
                    names.add(f[2].strip());
                } catch (NumberFormatException ignored) {
                    // not an entry; perf skips such lines too
                }
            }
            s = e + 1;
        }
        // Sorted by start; among equal starts the later line last, so the search finds it first.
        ranges.sort((x, y) -> x[0] != y[0] ? Long.compareUnsigned(x[0], y[0]) : Long.compare(x[2], y[2]));
        long[] st = new long[ranges.size()];
        long[] en = new long[ranges.size()];
        String[] nm = new String[ranges.size()];
        for (int i = 0; i < st.length; i++) {
            long[] r = ranges.get(i);
            st[i] = r[0];
            en[i] = r[1];
            nm[i] = names.get((int) r[2]);
        }
        return new JitMap(st, en, nm);
    }

    private static String strip0x(String s) {
        return s.startsWith("0x") || s.startsWith("0X") ? s.substring(2) : s;
    }

    /** The index of the entry covering the address, or -1. */
    int find(long addr) {
        int i = Arrays.binarySearch(start, addr);
        if (i < 0) {
            i = -i - 2;
        } else {
            while (i + 1 < start.length && start[i + 1] == addr) {
                i++;
            }
        }
        for (int k = i; k >= 0 && k > i - 64; k--) {
            if (addr >= start[k] && addr < end[k]) {
                return k;
            }
        }
        return -1;
    }

    long start(int entry) {
        return start[entry];
    }

    String name(int entry) {
        return names[entry];
    }
}
