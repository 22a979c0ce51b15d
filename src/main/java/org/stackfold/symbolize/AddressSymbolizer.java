package org.stackfold.symbolize;

import java.util.List;

/** Resolves addresses of one address space (the kernel, one process, one ELF file). Thread-safe. */
public interface AddressSymbolizer {
    /**
     * The frames of one address: inlined frames first, innermost first, and the function that
     * contains the address last. Never empty: an address nothing covers gives one frame named
     * "[unknown]" that still carries its module where one is known.
     */
    List<SymbolFrame> symbolize(long address);
}
