package org.stackfold.symbolize;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.stackfold.io.InputException;
import org.stackfold.model.IndexSort;

/**
 * A perf map ({@code /tmp/perf-PID.map}): lines {@code START SIZE NAME}, hexadecimal with an optional
 * {@code 0x}, written by JITs for code in anonymous mappings. Parsed on bytes into sorted columns;
 * where entries overlap the later line wins (a JIT reuses freed code space).
 */
final class PerfMap {
    final String source;
    private final byte[] text;
    private final long[] start;
    private final long[] end;
    private final int[] nameStart;
    private final int[] nameEnd;
    /** The line number of each entry, newest highest. */
    private final int[] line;

    private PerfMap(String source, byte[] text, long[] start, long[] end, int[] nameStart, int[] nameEnd, int[] line) {
        this.source = source;
        this.text = text;
        this.start = start;
        this.end = end;
        this.nameStart = nameStart;
        this.nameEnd = nameEnd;
        this.line = line;
    }

    static PerfMap load(Path file) throws IOException {
        return parse(Files.readAllBytes(file), file.toString());
    }

    static PerfMap parse(byte[] b, String source) {
        int cap = 16;
        long[] st = new long[cap];
        long[] en = new long[cap];
        int[] ns = new int[cap];
        int[] ne = new int[cap];
        int n = 0;
        int lineNo = 0;
        int p = 0;
        long[] value = new long[1];
        while (p < b.length) {
            lineNo++;
            int eol = p;
            while (eol < b.length && b[eol] != '\n') {
                eol++;
            }
            int lineEnd = eol > p && b[eol - 1] == '\r' ? eol - 1 : eol;
            if (lineEnd > p) {
                int q = hex(b, p, lineEnd, value, source, lineNo);
                long s = value[0];
                q = hex(b, skipSpaces(b, q, lineEnd), lineEnd, value, source, lineNo);
                long size = value[0];
                int nameAt = skipSpaces(b, q, lineEnd);
                if (n == cap) {
                    cap *= 2;
                    st = Arrays.copyOf(st, cap);
                    en = Arrays.copyOf(en, cap);
                    ns = Arrays.copyOf(ns, cap);
                    ne = Arrays.copyOf(ne, cap);
                }
                st[n] = s;
                en[n] = s + Math.max(size, 1);
                ns[n] = nameAt;
                ne[n] = lineEnd;
                n++;
            }
            p = eol + 1;
        }
        final long[] fs = st;
        int[] order = IndexSort.sorted(n, (x, y) -> {
            int c = Long.compareUnsigned(fs[x], fs[y]);
            return c != 0 ? c : Integer.compare(x, y);
        });
        long[] s2 = new long[n];
        long[] e2 = new long[n];
        int[] ns2 = new int[n];
        int[] ne2 = new int[n];
        int[] line = new int[n];
        for (int i = 0; i < n; i++) {
            int k = order[i];
            s2[i] = st[k];
            e2[i] = en[k];
            ns2[i] = ns[k];
            ne2[i] = ne[k];
            line[i] = k;
        }
        return new PerfMap(source, b, s2, e2, ns2, ne2, line);
    }

    private static int skipSpaces(byte[] b, int p, int end) {
        while (p < end && (b[p] == ' ' || b[p] == '\t')) {
            p++;
        }
        return p;
    }

    private static int hex(byte[] b, int p, int end, long[] out, String source, int lineNo) {
        if (p + 1 < end && b[p] == '0' && (b[p + 1] == 'x' || b[p + 1] == 'X')) {
            p += 2;
        }
        long v = 0;
        int digits = 0;
        while (p < end && b[p] != ' ' && b[p] != '\t') {
            int d = Character.digit(b[p], 16);
            if (d < 0 || ++digits > 16) {
                throw InputException.atLine(source, lineNo, "expected 'START SIZE NAME' in hexadecimal");
            }
            v = v << 4 | d;
            p++;
        }
        if (digits == 0) {
            throw InputException.atLine(source, lineNo, "expected 'START SIZE NAME' in hexadecimal");
        }
        out[0] = v;
        return p;
    }

    int count() {
        return start.length;
    }

    /** Index of the newest entry covering {@code addr}, or -1. */
    int lookup(long addr) {
        int lo = 0;
        int hi = start.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(start[mid], addr) <= 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        int best = -1;
        for (int i = lo - 1, steps = 0; i >= 0 && steps < 64; i--, steps++) {
            if (Long.compareUnsigned(addr, end[i]) < 0 && (best < 0 || line[i] > line[best])) {
                best = i;
            }
        }
        return best;
    }

    String name(int i) {
        return new String(text, nameStart[i], nameEnd[i] - nameStart[i], StandardCharsets.UTF_8);
    }

    long start(int i) {
        return start[i];
    }
}
