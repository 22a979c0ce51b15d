package org.stackfold.symbolize;

import org.stackfold.model.IndexSort;

/**
 * The code symbols of one ELF symbol table ({@code .symtab}, or {@code .dynsym} when the file has
 * none) sorted by address in primitive columns; names stay in the mapped string table until asked.
 * Within one address, aliases are ordered largest size first, then in table order, which is the
 * order GNU addr2line prefers them in; {@link #covering} names an address with the alias perf
 * would pick (not weak, global, fewest leading underscores, longest name), so that a profile reads
 * {@code getpid} where the table also has {@code __GI___getpid}.
 */
final class SymbolTable {
    private static final int STT_NOTYPE = 0;
    private static final int STT_FUNC = 2;
    private static final int STT_SECTION = 3;
    private static final int STT_FILE = 4;
    private static final int STT_GNU_IFUNC = 10;
    private static final int STB_LOCAL = 0;
    private static final int STB_GLOBAL = 1;
    private static final int STB_WEAK = 2;

    private final ElfFile elf;
    private final long strtabOffset;
    private final long strtabSize;
    final boolean dynamic;
    final long[] start;
    final long[] size;
    private final long[] maxEnd;
    private final int[] nameIndex;
    private final int[] fileNameIndex;
    final int[] sectionIndex;
    private final boolean[] function;
    private final byte[] binding;
    /** Decoded names, filled on first use (a benign race: every thread decodes the same string). */
    private final String[] names;
    /**
     * For the first function symbol of each alias group, 1 + the alias perf names the group by; 0
     * until first asked (choosing reads names, so a large table chooses only for the groups a
     * profile reaches; a benign race like {@link #names}).
     */
    private final int[] preferred;
    private final AddressIndex index;

    private SymbolTable(ElfFile elf, int section, boolean dynamic) {
        this.elf = elf;
        this.dynamic = dynamic;
        int strtab = elf.sectionLink[section];
        if (strtab <= 0 || strtab >= elf.sectionType.length || !elf.inFile(strtab) || !elf.inFile(section)) {
            throw new org.stackfold.io.InputException(elf.name + ": symbol table points outside the file");
        }
        strtabOffset = elf.sectionOffset[strtab];
        strtabSize = elf.sectionSize[strtab];
        long base = elf.sectionOffset[section];
        int count = (int) Math.min(Integer.MAX_VALUE - 8, elf.sectionSize[section] / 24);
        long[] st = new long[count];
        long[] sz = new long[count];
        int[] nm = new int[count];
        int[] fn = new int[count];
        int[] sh = new int[count];
        boolean[] fun = new boolean[count];
        byte[] bind = new byte[count];
        int n = 0;
        int file = -1;
        // GNU's state machine: a STT_FILE names the local symbols after it, and global ones only
        // until a file symbol follows other symbols
        boolean symbolSeen = false;
        boolean fileAfterSymbol = false;
        for (int i = 1; i < count; i++) {
            long e = base + i * 24L;
            int name = elf.u32(e);
            int info = elf.u8(e + 4) & 0xff;
            int shndx = elf.u16(e + 6);
            int type = info & 0xf;
            int binding = info >>> 4;
            if (type == STT_FILE) {
                file = name;
                if (symbolSeen) {
                    fileAfterSymbol = true;
                }
                continue;
            }
            symbolSeen = true;
            if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE || type == STT_SECTION
                    || shndx == 0 || shndx >= 0xff00 || name == 0) {
                continue;
            }
            st[n] = elf.u64(e + 8);
            sz[n] = elf.u64(e + 16);
            nm[n] = name;
            sh[n] = shndx;
            fun[n] = type != STT_NOTYPE;
            bind[n] = (byte) binding;
            fn[n] = file >= 0 && (binding == STB_LOCAL || !fileAfterSymbol) ? file : -1;
            n++;
        }
        final int total = n;
        int[] order = IndexSort.sorted(total, (a, b) -> {
            int c = Long.compareUnsigned(st[a], st[b]);
            return c != 0 ? c : Long.compareUnsigned(sz[b], sz[a]);
        });
        start = new long[total];
        size = new long[total];
        maxEnd = new long[total];
        nameIndex = new int[total];
        fileNameIndex = new int[total];
        sectionIndex = new int[total];
        function = new boolean[total];
        binding = new byte[total];
        long end = 0;
        for (int i = 0; i < total; i++) {
            int k = order[i];
            start[i] = st[k];
            size[i] = sz[k];
            nameIndex[i] = nm[k];
            fileNameIndex[i] = fn[k];
            sectionIndex[i] = sh[k];
            function[i] = fun[k];
            binding[i] = bind[k];
            end = Math.max(end, st[k] + Math.max(sz[k], 1));
            maxEnd[i] = end;
        }
        index = new AddressIndex(start);
        names = new String[total];
        preferred = new int[total];
    }

    /** The file's .symtab, else its .dynsym; null when it has neither. */
    static SymbolTable of(ElfFile elf) {
        int s = elf.sectionOfType(ElfFile.SHT_SYMTAB);
        if (s >= 0 && elf.sectionSize[s] > 24) {
            SymbolTable t = new SymbolTable(elf, s, false);
            if (t.start.length > 0) {
                return t;
            }
        }
        int d = elf.sectionOfType(ElfFile.SHT_DYNSYM);
        return d >= 0 ? new SymbolTable(elf, d, true) : null;
    }

    int count() {
        return start.length;
    }

    /** The heap this table takes, about: its columns, its index, and the display names an image keeps beside it. */
    long bytes() {
        return 64L * start.length + index.bytes() + 256;
    }

    String name(int i) {
        String n = names[i];
        if (n == null) {
            n = elf.string(strtabOffset, strtabSize, nameIndex[i] & 0xffffffffL);
            names[i] = n;
        }
        return n;
    }

    /** The STT_FILE name GNU tools attach to this symbol, or null. */
    String fileName(int i) {
        return fileNameIndex[i] < 0 ? null : elf.string(strtabOffset, strtabSize, fileNameIndex[i] & 0xffffffffL);
    }

    boolean isFunction(int i) {
        return function[i];
    }

    /**
     * The function symbol (FUNC or IFUNC) that contains {@code address}: the nearest one at or below
     * it whose size covers it, a zero-size one covering up to the next symbol, or an enclosing larger
     * one; -1 when none does.
     */
    int covering(long address) {
        int i = upperBound(address) - 1;
        while (i >= 0 && !function[i]) {
            i--;
        }
        if (i < 0) {
            return -1;
        }
        int g = preferredAlias(groupStart(i));
        if (size[g] == 0) {
            int next = g + 1;
            while (next < start.length && start[next] == start[g]) {
                next++;
            }
            return next >= start.length || Long.compareUnsigned(address, start[next]) < 0 ? g : -1;
        }
        if (Long.compareUnsigned(address - start[g], size[g]) < 0) {
            return g;
        }
        for (int k = g - 1, steps = 0; k >= 0 && steps < 256; k--, steps++) {
            if (Long.compareUnsigned(maxEnd[k], address) <= 0) {
                return -1;
            }
            if (function[k] && size[k] > 0 && Long.compareUnsigned(address - start[k], size[k]) < 0) {
                return preferredAlias(groupStart(k));
            }
        }
        return -1;
    }

    /**
     * GNU addr2line's choice (bfd's elf_find_function): the symbol of section {@code shndx} with the
     * highest address at or below {@code address}, sizes ignored, larger size then table order first
     * among aliases; -1 when none.
     */
    int nearest(long address, int shndx) {
        for (int i = upperBound(address) - 1; i >= 0; i--) {
            if (sectionIndex[i] == shndx) {
                return groupStartIn(i, shndx);
            }
        }
        return -1;
    }

    /** The first function symbol in table order at the address of function symbol {@code i}. */
    private int groupStart(int i) {
        int best = i;
        for (int g = i - 1; g >= 0 && start[g] == start[i]; g--) {
            if (function[g]) {
                best = g;
            }
        }
        return best;
    }

    private int preferredAlias(int g) {
        int p = preferred[g];
        if (p == 0) {
            p = 1 + (function[g] ? choosePreferred(g) : g);
            preferred[g] = p;
        }
        return p - 1;
    }

    /** Among the function aliases of {@code g} with its size, the one perf names. */
    private int choosePreferred(int g) {
        int best = g;
        for (int k = g + 1; k < start.length && start[k] == start[g] && size[k] == size[g]; k++) {
            if (function[k] && perfPrefers(k, best)) {
                best = k;
            }
        }
        return best;
    }

    private boolean perfPrefers(int a, int b) {
        if ((binding[a] == STB_WEAK) != (binding[b] == STB_WEAK)) {
            return binding[b] == STB_WEAK;
        }
        if ((binding[a] == STB_GLOBAL) != (binding[b] == STB_GLOBAL)) {
            return binding[a] == STB_GLOBAL;
        }
        String na = name(a);
        String nb = name(b);
        int ua = underscores(na);
        int ub = underscores(nb);
        return ua != ub ? ua < ub : na.length() > nb.length();
    }

    private static int underscores(String s) {
        int i = 0;
        while (i < s.length() && s.charAt(i) == '_') {
            i++;
        }
        return i;
    }

    private int groupStartIn(int i, int shndx) {
        int best = i;
        for (int g = i - 1; g >= 0 && start[g] == start[i]; g--) {
            if (sectionIndex[g] == shndx) {
                best = g;
            }
        }
        return best;
    }

    /** First index whose start is above {@code address} (unsigned). */
    private int upperBound(long address) {
        return index.upperBound(address);
    }
}
