package org.stackfold.symbolize;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.stackfold.io.InputException;
import org.stackfold.model.FrameKind;
import org.stackfold.model.IndexSort;

/**
 * {@code /proc/kallsyms} parsed on bytes: text symbols (t, T, w, W) sorted by address in primitive
 * columns, names kept as offsets into the file's bytes, modules as small indexes ("vmlinux" for the
 * core kernel; BPF programs carry module "bpf" and names {@code bpf_prog_TAG_NAME}). Kallsyms has no
 * sizes: a symbol covers up to the next one. Among aliases at one address the last one in the file
 * comes first, which is the name {@code perf script} prints: perf gives each kallsyms symbol the
 * size up to the next one, so only the last alias has a non-zero size, and its choose_best_symbol
 * prefers a sized symbol before anything else.
 */
final class KernelSymbols implements AddressSymbolizer {
    static final String CORE = "vmlinux";

    private final String source;
    private final byte[] text;
    private final long[] address;
    private final int[] nameStart;
    private final int[] nameEnd;
    private final short[] module;
    private final String[] modules;
    private final AddressIndex index;

    private KernelSymbols(String source, byte[] text, long[] address, int[] nameStart, int[] nameEnd, short[] module,
                          String[] modules) {
        this.source = source;
        this.text = text;
        this.address = address;
        this.nameStart = nameStart;
        this.nameEnd = nameEnd;
        this.module = module;
        this.modules = modules;
        this.index = new AddressIndex(address);
    }

    static KernelSymbols load(Path kallsyms) throws IOException {
        return parse(Files.readAllBytes(kallsyms), kallsyms.toString());
    }

    static KernelSymbols parse(byte[] b, String source) {
        int capacity = Math.max(16, b.length / 32);
        long[] addr = new long[capacity];
        int[] ns = new int[capacity];
        int[] ne = new int[capacity];
        short[] mod = new short[capacity];
        Map<String, Short> moduleIds = new HashMap<>();
        List<String> moduleNames = new ArrayList<>();
        moduleNames.add(CORE);
        int n = 0;
        boolean anyNonZero = false;
        int lineNo = 0;
        int p = 0;
        while (p < b.length) {
            lineNo++;
            int eol = p;
            while (eol < b.length && b[eol] != '\n') {
                eol++;
            }
            int q = p;
            long a = 0;
            int digits = 0;
            while (q < eol && b[q] != ' ') {
                int d = hexDigit(b[q]);
                if (d < 0 || ++digits > 16) {
                    throw InputException.atLine(source, lineNo, "bad address");
                }
                a = a << 4 | d;
                q++;
            }
            if (digits == 0 || q + 3 >= eol || b[q + 2] != ' ') {
                if (eol > p) {
                    throw InputException.atLine(source, lineNo, "expected 'ADDRESS TYPE NAME'");
                }
                p = eol + 1;
                continue;
            }
            byte type = b[q + 1];
            int nameAt = q + 3;
            int nameStop = nameAt;
            while (nameStop < eol && b[nameStop] != '\t' && b[nameStop] != ' ') {
                nameStop++;
            }
            if (type == 't' || type == 'T' || type == 'w' || type == 'W') {
                short m = 0;
                int br = nameStop;
                while (br < eol && b[br] != '[') {
                    br++;
                }
                if (br < eol) {
                    int close = br + 1;
                    while (close < eol && b[close] != ']') {
                        close++;
                    }
                    String name = new String(b, br + 1, close - br - 1, StandardCharsets.UTF_8);
                    m = moduleIds.computeIfAbsent(name, k -> {
                        moduleNames.add(k);
                        return (short) (moduleNames.size() - 1);
                    });
                }
                if (n == addr.length) {
                    int c = n * 2;
                    addr = java.util.Arrays.copyOf(addr, c);
                    ns = java.util.Arrays.copyOf(ns, c);
                    ne = java.util.Arrays.copyOf(ne, c);
                    mod = java.util.Arrays.copyOf(mod, c);
                }
                addr[n] = a;
                ns[n] = nameAt;
                ne[n] = nameStop;
                mod[n] = m;
                anyNonZero |= a != 0;
                n++;
            }
            p = eol + 1;
        }
        if (n > 0 && !anyNonZero) {
            throw new InputException(source + ": all addresses are zero (kernel.kptr_restrict; run as root)");
        }
        int[] order = order(addr, n);
        long[] sa = new long[n];
        int[] sns = new int[n];
        int[] sne = new int[n];
        short[] sm = new short[n];
        for (int i = 0; i < n; i++) {
            int k = order[i];
            sa[i] = addr[k];
            sns[i] = ns[k];
            sne[i] = ne[k];
            sm[i] = mod[k];
        }
        return new KernelSymbols(source, b, sa, sns, sne, sm, moduleNames.toArray(String[]::new));
    }

    private static int hexDigit(byte c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    }

    /**
     * The symbols by address, aliases at one address in reverse file order. Kallsyms is usually
     * sorted already; then only runs of aliases are turned round, with no sort.
     */
    private static int[] order(long[] addr, int n) {
        boolean sorted = true;
        for (int i = 1; i < n && sorted; i++) {
            sorted = Long.compareUnsigned(addr[i - 1], addr[i]) <= 0;
        }
        if (!sorted) {
            return IndexSort.sorted(n, (x, y) -> {
                int c = Long.compareUnsigned(addr[x], addr[y]);
                return c != 0 ? c : Integer.compare(y, x);
            });
        }
        int[] order = new int[n];
        for (int i = 0; i < n; ) {
            int j = i + 1;
            while (j < n && addr[j] == addr[i]) {
                j++;
            }
            for (int k = i; k < j; k++) {
                order[k] = j - 1 - (k - i);
            }
            i = j;
        }
        return order;
    }

    int count() {
        return address.length;
    }

    /** Index of the symbol covering {@code addr} (the preferred alias at the last address at or below it), or -1. */
    int lookup(long addr) {
        int i = index.upperBound(addr) - 1;
        while (i > 0 && address[i - 1] == address[i]) {
            i--;
        }
        return i;
    }

    String name(int i) {
        return new String(text, nameStart[i], nameEnd[i] - nameStart[i], StandardCharsets.UTF_8);
    }

    String module(int i) {
        return modules[module[i]];
    }

    long address(int i) {
        return address[i];
    }

    @Override
    public List<SymbolFrame> symbolize(long addr) {
        int i = lookup(addr);
        if (i < 0) {
            return List.of(new SymbolFrame(Symbolizer.UNKNOWN, 0, null, 0, FrameKind.KERNEL, null, false));
        }
        return List.of(new SymbolFrame(name(i), addr - address[i], null, 0, FrameKind.KERNEL, module(i), false));
    }

    @Override
    public String toString() {
        return source;
    }
}
