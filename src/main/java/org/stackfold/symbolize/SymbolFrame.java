package org.stackfold.symbolize;

import org.stackfold.model.FrameKind;

/**
 * One frame an address resolves to.
 *
 * @param function the function name (demangled unless the options say raw), or "[unknown]"
 * @param offset   the address's offset from the function's start (0 for inlined frames)
 * @param file     the source file, or null when no line table covers the address
 * @param line     the source line, or 0 when unknown
 * @param kind     {@link FrameKind#KERNEL}, {@link FrameKind#NATIVE} (user space) or {@link FrameKind#JIT}
 * @param module   the kernel module ("vmlinux" for the core kernel), the ELF file's path, or the perf map
 * @param inlined  true for a frame that the compiler inlined into the next frame of the list
 */
public record SymbolFrame(String function, long offset, String file, int line, FrameKind kind, String module,
                          boolean inlined) {
}
