package org.stackfold.symbolize;

/**
 * @param demangle        C++ and Rust names demangled (raw linkage names otherwise)
 * @param inline          inlined frames from DWARF {@code .debug_info}
 * @param lines           file and line from DWARF {@code .debug_line}
 * @param stripParameters C++ parameter lists dropped from demangled names
 */
public record SymbolizerOptions(boolean demangle, boolean inline, boolean lines, boolean stripParameters) {
    public static final SymbolizerOptions DEFAULT = new SymbolizerOptions(true, true, true, false);
}
