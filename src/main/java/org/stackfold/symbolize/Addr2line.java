package org.stackfold.symbolize;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * GNU addr2line's answers for one file, as {@code addr2line -a -f -i -C -p -e FILE} prints them,
 * including binutils' choices: the function named by DWARF when its name is a linkage name (or its
 * language never mangles), by the nearest preceding symbol of the address's section otherwise (the
 * symbol's name then replaces the DWARF name of a function starting at the symbol, for the rest of
 * the run, as bfd does); the STT_FILE name when no line covers the address; call sites of inlined
 * frames; the discriminator of the innermost line repeated on every line; file 0 for rows of a DWARF 5
 * sequence that never set its file (binutils 2.40 starts there; the DWARF standard and elfutils say
 * file 1, which {@link Symbolizer} reports). Not thread-safe (it keeps bfd's per-run state).
 */
public final class Addr2line {
    private final ElfImage image;
    private final DwarfIndex dwarf;
    private final SymbolTable symbols;
    private final ElfFile symbolFile;
    private final Map<Integer, String> renamed = new HashMap<>();
    private final java.util.BitSet settled = new java.util.BitSet();

    private Addr2line(ElfImage image) {
        this.image = image;
        this.dwarf = image.dwarf();
        this.symbols = image.symbols();
        ElfFile d = image.debugFile();
        this.symbolFile = d != null && symbols != null && !symbols.dynamic && d.sectionOfType(ElfFile.SHT_SYMTAB) >= 0
                ? d : image.elf;
    }

    /** addr2line over {@code file}, whose parsed indexes {@code symbolizer} caches. */
    public static Addr2line of(Symbolizer symbolizer, Path file) throws IOException {
        return new Addr2line(symbolizer.image(file));
    }

    /** The lines addr2line prints for {@code address}, each ending in a newline. */
    public String lookup(long address) {
        StringBuilder out = new StringBuilder(96);
        out.append("0x");
        String hex = Long.toHexString(address);
        out.append("0".repeat(16 - hex.length())).append(hex).append(": ");
        int section = image.elf.sectionAt(address);
        if (section < 0) {
            return out.append("?? ??:0\n").toString();
        }
        int e = dwarf == null ? -1 : dwarf.innermost(address);
        int row = dwarf == null ? -1 : dwarf.lineRow(address);
        String file = row >= 0 ? dwarf.rowFileAsBinutils(row) : null;
        int line = row >= 0 ? dwarf.rowLine(row) : 0;
        int discriminator = row >= 0 ? dwarf.rowDiscriminator(row) : 0;
        String function;
        if (e >= 0 && (dwarf.isLinkageName(e) || settled.get(e))) {
            function = name(e);
        } else {
            int shndx = symbolFile.section(image.elf.sectionNames[section]);
            int sym = symbols == null || shndx < 0 ? -1 : symbols.nearest(address, shndx);
            function = sym >= 0 ? symbols.name(sym) : null;
            if (sym >= 0 && file == null) {
                file = symbols.fileName(sym);
            }
            if (e >= 0) {
                if (sym < 0) {
                    function = name(e);
                } else if (symbols.start[sym] == dwarf.firstLow(e)) {
                    renamed.put(e, function);
                }
                settled.set(e);
            }
            if (e < 0 && sym < 0 && row < 0) {
                return out.append("?? ??:0\n").toString();
            }
        }
        frame(out, function, file, line, discriminator);
        while (e >= 0 && dwarf.parent(e) >= 0) {
            int p = dwarf.parent(e);
            out.append(" (inlined by) ");
            frame(out, name(p), dwarf.callFile(e), dwarf.callLine(e), discriminator);
            e = p;
        }
        return out.toString();
    }

    private String name(int e) {
        String r = renamed.get(e);
        return r != null ? r : dwarf.name(e);
    }

    private static void frame(StringBuilder out, String function, String file, int line, int discriminator) {
        out.append(function == null || function.isEmpty() ? "??" : Names.INSTANCE.demangle(function)).append(" at ");
        out.append(file == null ? "??" : file).append(':');
        if (line == 0) {
            out.append("?\n");
        } else {
            out.append(line);
            if (discriminator != 0) {
                out.append(" (discriminator ").append(discriminator).append(')');
            }
            out.append('\n');
        }
    }
}
