package org.stackfold.symbolize;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Linkage names to the names people read: Rust legacy and v0 names by our own code, C++ (Itanium)
 * names through libstdc++'s {@code __cxa_demangle} called with FFM. A name that does not demangle
 * is kept as it is; without libstdc++ C++ names stay raw.
 */
final class Names {
    /**
     * libstdc++'s demangler, linked on the first C++ name: making the downcall handles costs tens of
     * milliseconds of start-up, which profiles without C++ names need not pay.
     */
    private static final class Cxx {
        static final MethodHandle DEMANGLE;
        static final MethodHandle FREE;

        static {
            MethodHandle demangle = null;
            MethodHandle free = null;
            try {
                Linker linker = Linker.nativeLinker();
                SymbolLookup lib = SymbolLookup.libraryLookup("libstdc++.so.6", Arena.global());
                demangle = linker.downcallHandle(lib.find("__cxa_demangle").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS,
                                ValueLayout.ADDRESS, ValueLayout.ADDRESS));
                free = linker.downcallHandle(linker.defaultLookup().find("free").orElseThrow(),
                        FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
            } catch (RuntimeException | LinkageError e) {
                demangle = null;
            }
            DEMANGLE = demangle;
            FREE = free;
        }
    }

    static final Names INSTANCE = new Names();

    private Names() {
    }

    /** True when C++ names can be demangled here (libstdc++ was found). */
    static boolean cxxAvailable() {
        return Cxx.DEMANGLE != null;
    }

    /** The name as the options want it: raw, demangled, or demangled without parameters. */
    String display(String raw, SymbolizerOptions options) {
        if (!options.demangle()) {
            return raw;
        }
        String d = demangle(raw);
        return options.stripParameters() ? stripParameters(d) : d;
    }

    /** The demangled name, or {@code raw} when it is not a mangled name we can read. */
    String demangle(String raw) {
        if (raw.startsWith("_R")) {
            String v0 = RustDemangler.v0(raw);
            return v0 != null ? v0 : raw;
        }
        if (!raw.startsWith("_Z")) {
            return raw;
        }
        String legacy = RustDemangler.legacy(raw);
        if (legacy != null) {
            return legacy;
        }
        String cxx = cxx(raw);
        return cxx != null ? cxx : raw;
    }

    /** C++ demangling through {@code __cxa_demangle}; null when it fails or is unavailable. */
    static String cxx(String mangled) {
        if (Cxx.DEMANGLE == null) {
            return null;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment in = arena.allocateFrom(mangled);
            MemorySegment status = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment out = (MemorySegment) Cxx.DEMANGLE.invokeExact(in, MemorySegment.NULL, MemorySegment.NULL,
                    status);
            if (out.address() == 0) {
                return null;
            }
            try {
                return status.get(ValueLayout.JAVA_INT, 0) == 0 ? out.reinterpret(Long.MAX_VALUE).getString(0) : null;
            } finally {
                Cxx.FREE.invokeExact(out);
            }
        } catch (Throwable e) {
            return null;
        }
    }

    /**
     * Drops a demangled C++ name's parameter list and what follows it ({@code const}, clone
     * suffixes): {@code ns::f(int) const [clone .isra.0]} → {@code ns::f}.
     */
    static String stripParameters(String name) {
        int end = name.length();
        int clone = name.indexOf(" [clone ");
        if (clone > 0) {
            end = clone;
        }
        String s = name.substring(0, end);
        for (String q : new String[] {" const", " volatile", " &&", " &", " noexcept"}) {
            while (s.endsWith(q)) {
                s = s.substring(0, s.length() - q.length());
            }
        }
        if (!s.endsWith(")")) {
            return name;
        }
        int depth = 0;
        for (int i = s.length() - 1; i >= 0; i--) {
            char c = s.charAt(i);
            if (c == ')') {
                depth++;
            } else if (c == '(' && --depth == 0) {
                return i == 0 ? name : s.substring(0, i);
            }
        }
        return name;
    }
}
