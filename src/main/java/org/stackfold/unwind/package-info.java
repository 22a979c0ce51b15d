/**
 * Unwind tables for user stacks without frame pointers: {@code .eh_frame} / {@code .debug_frame}
 * parsed into 8-byte {@link org.stackfold.unwind.UnwindRow rows} per ELF file
 * ({@link org.stackfold.unwind.UnwindTables}, cached by build id), and the
 * {@link org.stackfold.unwind.ReferenceUnwinder} that walks stacks over them with the BPF walker's
 * algorithm. Pure Java, no root; see docs/unwind.md.
 */
package org.stackfold.unwind;
