package org.stackfold.symbolize;

import java.nio.file.Path;
import java.util.List;
import org.stackfold.model.FrameKind;

/**
 * One ELF file with what symbolizing it needs, each part loaded on first use: the separate debug
 * file, the symbol table (the debug file's {@code .symtab} when there is one, as binutils does) and,
 * later, DWARF. Shared by every process that maps the file; thread-safe.
 */
final class ElfImage {
    final String module;
    final ElfFile elf;
    private final Path diskPath;
    private final DebugFiles debugFiles;
    private volatile boolean debugResolved;
    private ElfFile debug;
    private volatile SymbolTable symbols;
    private volatile boolean symbolsResolved;

    ElfImage(String module, ElfFile elf, Path diskPath, DebugFiles debugFiles) {
        this.module = module;
        this.elf = elf;
        this.diskPath = diskPath;
        this.debugFiles = debugFiles;
    }

    /** The separate debug file, or null. */
    ElfFile debugFile() {
        if (!debugResolved) {
            synchronized (this) {
                if (!debugResolved) {
                    debug = elf.hasDebugInfo() || debugFiles == null ? null : debugFiles.find(elf, diskPath);
                    debugResolved = true;
                }
            }
        }
        return debug;
    }

    /** The file whose DWARF describes this one: the debug file, or the file itself. */
    ElfFile dwarfFile() {
        ElfFile d = debugFile();
        return d != null && d.hasDebugInfo() ? d : elf;
    }

    /** The symbols: the debug file's .symtab when present, else this file's .symtab or .dynsym; may be null. */
    SymbolTable symbols() {
        if (!symbolsResolved) {
            synchronized (this) {
                if (!symbolsResolved) {
                    ElfFile d = debugFile();
                    SymbolTable t = null;
                    if (d != null && d.sectionOfType(ElfFile.SHT_SYMTAB) >= 0) {
                        t = SymbolTable.of(d);
                    }
                    symbols = t != null && !t.dynamic ? t : SymbolTable.of(elf);
                    symbolsResolved = true;
                }
            }
        }
        return symbols;
    }

    /** The frames of virtual address {@code vaddr} of this file. */
    List<SymbolFrame> frames(long vaddr, FrameKind kind, SymbolizerOptions options, Names names) {
        SymbolTable t = symbols();
        int s = t == null ? -1 : t.covering(vaddr);
        if (s < 0) {
            return List.of(new SymbolFrame(Symbolizer.UNKNOWN, vaddr, null, 0, kind, module, false));
        }
        return List.of(new SymbolFrame(names.display(t.name(s), options), vaddr - t.start[s], null, 0, kind, module,
                false));
    }
}
