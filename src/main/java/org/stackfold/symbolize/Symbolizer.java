package org.stackfold.symbolize;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The one entry point: addresses of the kernel, of a live process or of an ELF file to frames.
 * Per-file symbol indexes are cached by (device, inode, modification time), so a second profile of
 * the same binaries costs almost nothing; per-process snapshots are kept until {@link #forget}.
 *
 * <p>API contract shared by the symbolizer and its callers (recorder, perf.data reader, collapse
 * perf); the implementation lands on the {@code symbolize} branch.
 */
public final class Symbolizer implements AutoCloseable {
    private final SymbolizerOptions options;

    public Symbolizer(SymbolizerOptions options) {
        this.options = options;
    }

    public SymbolizerOptions options() {
        return options;
    }

    /** Kernel addresses through /proc/kallsyms (loaded once), module and BPF program names included. */
    public AddressSymbolizer kernel() throws IOException {
        throw new UnsupportedOperationException("symbolizer: not implemented yet");
    }

    /**
     * A process's user-space (and JIT) addresses. The first call for a pid snapshots
     * /proc/PID/maps and opens what it needs, so call it while the process lives; the snapshot
     * keeps working after the process exits. Later calls return the cached snapshot.
     */
    public AddressSymbolizer process(int pid) throws IOException {
        throw new UnsupportedOperationException("symbolizer: not implemented yet");
    }

    /** Addresses of one ELF file, as virtual addresses of that file (what addr2line -e takes). */
    public AddressSymbolizer elf(Path file) throws IOException {
        throw new UnsupportedOperationException("symbolizer: not implemented yet");
    }

    /** Drops a process's snapshot (its pid may be reused). */
    public void forget(int pid) {
    }

    @Override
    public void close() {
    }
}
