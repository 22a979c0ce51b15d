package org.stackfold.io;

import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Gives back the resident pages of this process's own code mappings of one library, which the
 * kernel reads again from the file (or page cache) when the code runs next. A long-lived process
 * that runs a large native library now and then (the agent's DuckDB, ~30 MB of code touched by one
 * store a minute) otherwise keeps all of it in its resident memory between uses.
 *
 * <p>Only mappings that are read-only and executable are advised, with {@code MADV_PAGEOUT} (Linux
 * 5.4): it reclaims clean file pages this process alone maps and never changes what memory holds
 * (unlike {@code MADV_DONTNEED}, which would drop a page a debugger or uprobe had written). A kernel
 * without it, or any other failure, leaves the pages where they are.
 */
public final class ResidentPages {
    private static final int MADV_PAGEOUT = 21;
    private static final MethodHandle MADVISE;

    static {
        MethodHandle h;
        try {
            Linker linker = Linker.nativeLinker();
            h = linker.downcallHandle(linker.defaultLookup().find("madvise").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                            ValueLayout.JAVA_INT));
        } catch (RuntimeException | LinkageError e) {
            h = null;
        }
        MADVISE = h;
    }

    private ResidentPages() {
    }

    /**
     * Advises out the code mappings ({@code r-xp}) of files whose name contains {@code library};
     * returns the bytes of mappings advised (0 where none matched or the kernel refused).
     */
    public static long releaseCode(String library) {
        if (MADVISE == null) {
            return 0;
        }
        String maps;
        try {
            maps = new String(Files.readAllBytes(Path.of("/proc/self/maps")), StandardCharsets.ISO_8859_1);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        long advised = 0;
        for (String line : maps.split("\n")) {
            int slash = line.indexOf('/');
            if (slash < 0 || !line.startsWith("r-xp", line.indexOf(' ') + 1)
                    || !line.substring(slash).contains(library)) {
                continue;
            }
            int dash = line.indexOf('-');
            long start = Long.parseUnsignedLong(line.substring(0, dash), 16);
            long end = Long.parseUnsignedLong(line.substring(dash + 1, line.indexOf(' ')), 16);
            try {
                if ((int) MADVISE.invokeExact(start, end - start, MADV_PAGEOUT) == 0) {
                    advised += end - start;
                }
            } catch (Throwable t) {
                return advised;
            }
        }
        return advised;
    }
}
