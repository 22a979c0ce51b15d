package org.stackfold.symbolize;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.stackfold.io.InputException;
import org.stackfold.model.FrameKind;

/**
 * One ELF file with what symbolizing it needs, each part loaded on first use: the separate debug
 * file, the symbol table (the debug file's {@code .symtab} when there is one, as binutils does) and
 * the DWARF index. A part that turns out corrupt is left out (a bad DWARF section leaves symbol names;
 * a bad symbol table leaves addresses unknown), so one broken file never stops a profile's other
 * frames. Shared by every process that maps the file; thread-safe.
 */
final class ElfImage {
    final ElfFile elf;
    private final Path diskPath;
    private final DebugFiles debugFiles;
    /** The cache that bounds the heap its symbol tables take ({@link ImageCache#tableBudget}), or null. */
    private final ImageCache owner;
    /** When a frame was last named from this file ({@link ImageCache#tick}): the least recent loses its table first. */
    volatile long lastUse;
    private volatile boolean debugResolved;
    private ElfFile debug;
    private volatile SymbolTable symbols;
    private volatile boolean symbolsResolved;
    private volatile java.util.Map<String, Integer> symbolsByName;
    private volatile DwarfIndex dwarf;
    private volatile boolean dwarfResolved;
    /** Why the DWARF was given up (one line naming the file and offset), or null while it reads. */
    private volatile String dwarfProblem;

    ElfImage(ElfFile elf, Path diskPath, DebugFiles debugFiles) {
        this(elf, diskPath, debugFiles, null);
    }

    ElfImage(ElfFile elf, Path diskPath, DebugFiles debugFiles, ImageCache owner) {
        this.elf = elf;
        this.diskPath = diskPath;
        this.debugFiles = debugFiles;
        this.owner = owner;
    }

    /** The separate debug file, or null. */
    /** The pages read of its file (and its debug file) leave resident memory ({@link ElfFile#unload}). */
    void unload() {
        elf.unload();
        ElfFile d = debug;
        if (d != null && d != elf) {
            d.unload();
        }
    }

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
        SymbolTable built = null;
        if (!symbolsResolved) {
            synchronized (this) {
                if (!symbolsResolved) {
                    ElfFile d = debugFile();
                    SymbolTable t = null;
                    if (d != null && d.sectionOfType(ElfFile.SHT_SYMTAB) >= 0) {
                        try {
                            t = SymbolTable.of(d);
                        } catch (InputException e) {
                            t = null;
                        }
                    }
                    try {
                        symbols = t != null && !t.dynamic ? t : SymbolTable.of(elf);
                    } catch (InputException e) {
                        symbols = null; // a corrupt symbol table: addresses of this file stay unknown
                    }
                    symbolsResolved = true;
                    built = symbols;
                }
            }
        }
        SymbolTable t = symbols;
        if (built != null && owner != null) {
            owner.built(this, built.bytes()); // outside this image's lock: the cache locks other images to evict
        }
        return t != null || symbolsResolved ? t : symbols();
    }

    /**
     * Drops the symbol table and what was derived from it (display names, the index by name): they
     * are built again from the mapped file when next needed. Returns the bytes the table was counted at.
     */
    synchronized long dropSymbols() {
        SymbolTable t = symbols;
        symbols = null;
        symbolsResolved = false;
        displayed = null;
        symbolsByName = null;
        return t == null ? 0 : t.bytes();
    }

    /**
     * The function symbol called {@code name}: its linkage name, its demangled name or that name
     * without parameters (perf prints any of them); -1 when there is none.
     */
    int symbolNamed(String name) {
        java.util.Map<String, Integer> m = symbolsByName;
        if (m == null) {
            SymbolTable t = symbols(); // before this image's lock: building it may drop other images' tables
            synchronized (this) {
                m = symbolsByName;
                if (m == null) {
                    m = new java.util.HashMap<>();
                    for (int i = 0; t != null && i < t.count(); i++) {
                        if (t.isFunction(i)) {
                            String raw = t.name(i);
                            m.putIfAbsent(raw, i);
                            String d = Names.INSTANCE.demangle(raw);
                            m.putIfAbsent(d, i);
                            m.putIfAbsent(Names.stripParameters(d), i);
                        }
                    }
                    symbolsByName = m;
                }
            }
        }
        Integer i = m.get(name);
        return i == null ? -1 : i;
    }

    /** Display names per symbol for one set of options: a function's addresses are demangled once. */
    private record Displayed(SymbolizerOptions options, String[] names) {
    }

    private volatile Displayed displayed;

    private String displayName(SymbolTable t, int s, SymbolizerOptions options, Names names) {
        Displayed d = displayed;
        if (d == null || !d.options().equals(options) || d.names().length != t.count()) {
            d = new Displayed(options, new String[t.count()]);
            displayed = d;
        }
        String n = d.names()[s];
        if (n == null) {
            n = names.display(t.name(s), options); // a benign race: every thread computes the same name
            d.names()[s] = n;
        }
        return n;
    }

    /** The DWARF index of the file (or of its debug file), or null without DWARF. */
    DwarfIndex dwarf() {
        if (!dwarfResolved) {
            synchronized (this) {
                if (!dwarfResolved) {
                    try {
                        dwarf = DwarfIndex.of(dwarfFile());
                    } catch (RuntimeException e) {
                        brokenDwarf(e); // corrupt DWARF: names from the symbol table only
                    }
                    dwarfResolved = true;
                }
            }
        }
        return dwarf;
    }

    /** Gives up this file's DWARF for good: its frames are named by the symbol table, as addr2line does. */
    private synchronized void brokenDwarf(RuntimeException e) {
        dwarf = null;
        dwarfResolved = true;
        if (dwarfProblem == null) {
            String m = e instanceof InputException ? e.getMessage() : dwarfFile().name + ": " + e;
            dwarfProblem = m.lines().findFirst().orElse("");
        }
    }

    /** Why this file's DWARF could not be read (one line), or null where it reads (or was never needed). */
    String dwarfProblem() {
        return dwarfProblem;
    }

    /**
     * The frames of virtual address {@code vaddr} of this file: inlined frames innermost first (each
     * at the position the DWARF line table or its callee's call site gives), then the containing
     * function, named by the symbol table where it covers the address (by DWARF otherwise).
     * {@code module} names the file as the caller reached it (one file may have several paths).
     */
    List<SymbolFrame> frames(long vaddr, String module, FrameKind kind, SymbolizerOptions options, Names names) {
        if (owner != null) {
            lastUse = owner.tick();
        }
        SymbolTable t = symbols();
        int s = t == null ? -1 : t.covering(vaddr);
        DwarfIndex d = options.inline() || options.lines() ? dwarf() : null;
        if (d != null) {
            try {
                return dwarfFrames(d, t, s, vaddr, module, kind, options, names);
            } catch (RuntimeException e) {
                // DWARF read lazily turned out corrupt: this and every later address use the symbol table.
                brokenDwarf(e);
            }
        }
        if (s < 0) {
            return List.of(new SymbolFrame(Symbolizer.UNKNOWN, vaddr, null, 0, kind, module, false));
        }
        return List.of(new SymbolFrame(displayName(t, s, options, names), vaddr - t.start[s], null, 0, kind,
                module, false));
    }

    private List<SymbolFrame> dwarfFrames(DwarfIndex d, SymbolTable t, int s, long vaddr, String module, FrameKind kind,
                                          SymbolizerOptions options, Names names) {
        int e = d.innermost(vaddr);
        int row = options.lines() ? d.lineRow(vaddr) : -1;
        String file = row >= 0 ? d.rowFile(row) : null;
        int line = row >= 0 ? d.rowLine(row) : 0;
        List<SymbolFrame> frames = new ArrayList<>(2);
        while (e >= 0 && d.parent(e) >= 0) {
            if (options.inline()) {
                String n = d.name(e);
                frames.add(new SymbolFrame(n == null ? Symbolizer.UNKNOWN : names.display(n, options), 0, file, line,
                        kind, module, true));
                if (options.lines()) {
                    file = d.callFile(e);
                    line = d.callLine(e);
                }
            }
            e = d.parent(e);
        }
        String function;
        long offset;
        if (s >= 0) {
            function = t.name(s);
            offset = vaddr - t.start[s];
        } else if (e >= 0 && d.name(e) != null) {
            function = d.name(e);
            offset = vaddr - d.firstLow(e);
        } else {
            function = null;
            offset = vaddr;
        }
        frames.add(new SymbolFrame(function == null ? Symbolizer.UNKNOWN : names.display(function, options), offset,
                file, line, kind, module, false));
        return frames;
    }
}
