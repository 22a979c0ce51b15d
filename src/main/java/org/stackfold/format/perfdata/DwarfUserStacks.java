package org.stackfold.format.perfdata;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.stackfold.io.InputException;
import org.stackfold.unwind.ReferenceUnwinder;
import org.stackfold.unwind.UnwindTable;
import org.stackfold.unwind.UnwindTables;

/**
 * The user half of samples recorded with {@code perf record --call-graph dwarf}: each sample
 * carries the user registers (PERF_SAMPLE_REGS_USER) and a copy of the user stack
 * (PERF_SAMPLE_STACK_USER); {@link ReferenceUnwinder} walks them over the unwind tables of the files
 * the process mapped (MMAP/MMAP2, as the reader tracks them), and the frames follow the kernel part of
 * the sample's callchain, as {@code perf script} prints them: the leaf (and a pc interrupted by a
 * signal) as is, return addresses minus one. Rules in docs/unwind.md.
 */
final class DwarfUserStacks {
    /** x86-64 perf register numbers (arch/x86/include/uapi/asm/perf_regs.h). */
    private static final int REG_BP = 6;
    private static final int REG_SP = 7;
    private static final int REG_IP = 8;
    private static final long CONTEXT_USER = -512L;
    private static final long CONTEXT_MAX = -4095L;
    /** Tests: receives each unwound sample as "TID TIME END: FILE:ADDR ..." (see {@link #describe}). */
    static volatile java.util.function.Consumer<String> trace;

    private final PerfDataFile file;
    private final UnwindTables tables;
    private final ReferenceUnwinder walker = new ReferenceUnwinder(PerfDataReplay.MAX_STACK);
    private final Map<String, FileTable> files = new HashMap<>();
    private final StackCopy memory = new StackCopy();
    private final SpaceModules modules = new SpaceModules();
    private long[] out = new long[256];
    /** Samples unwound, and how their walks ended, for docs and tests. */
    long walks;
    final long[] ends = new long[ReferenceUnwinder.End.values().length];

    /** A mapped file's table (null: none could be made) and how its file offsets become ELF addresses. */
    private record FileTable(UnwindTable table, ElfLoadSegments segments) {
    }

    DwarfUserStacks(PerfDataFile file, UnwindTables tables) {
        this.file = file;
        this.tables = tables;
    }

    /** Whether samples of this event carry what the unwinder needs. */
    static boolean applies(PerfEventAttr a) {
        return a.has(PerfEventAttr.SAMPLE_REGS_USER) && a.has(PerfEventAttr.SAMPLE_STACK_USER)
                && (a.sampleRegsUser() & (1L << REG_BP | 1L << REG_SP | 1L << REG_IP)) == (1L << REG_BP | 1L << REG_SP | 1L << REG_IP);
    }

    /** The callchain to fold: {@link #chain} holds it from index 0; returns its length. */
    long[] chain() {
        return out;
    }

    /**
     * Unwinds one sample: {@code rec} holds the record's words ({@code words} of them), {@code w}
     * the index of the first word after its callchain; the kernel part of its callchain
     * ({@code chain[from .. from+n)}) is kept. Returns the length of {@link #chain()}.
     */
    int unwind(PerfEventAttr a, long[] rec, int words, int w, long[] chain, int from, int n, AddressSpace space, long at) {
        // the kernel part of the callchain, up to a user context marker
        int k = 0;
        for (int i = 0; i < n; i++) {
            long x = chain[from + i];
            if (x == CONTEXT_USER) {
                break;
            }
            k++;
        }
        if (out.length < k + 1 + PerfDataReplay.MAX_STACK) {
            out = new long[k + 1 + PerfDataReplay.MAX_STACK];
        }
        System.arraycopy(chain, from, out, 0, k);
        if (a.has(PerfEventAttr.SAMPLE_RAW)) {
            need(w, words, at);
            long x = rec[w];
            long size = file.little ? x & 0xffffffffL : x >>> 32;
            w += (int) ((4 + size + 7) / 8);
        }
        if (a.has(PerfEventAttr.SAMPLE_BRANCH_STACK)) {
            need(w, words, at);
            long nr = rec[w++];
            if (nr < 0 || nr > words) {
                throw InputException.atOffset(file.name, at, "branch stack of " + nr + " entries runs past its record");
            }
            w += (a.branchSampleType() & PerfEventAttr.BRANCH_HW_INDEX) != 0 ? 1 : 0;
            w += (int) (3 * nr);
        }
        need(w, words, at);
        long abi = rec[w++];
        if (abi == 0) {
            return k; // no user registers: a kernel thread
        }
        long mask = a.sampleRegsUser();
        int regsAt = w;
        w += Long.bitCount(mask);
        need(w, words, at);
        long size = rec[w++];
        if (size <= 0 || !file.little) {
            return k;
        }
        if (size > 8L * (words - w) - 8 || (size & 7) != 0) {
            throw InputException.atOffset(file.name, at, "user stack of " + size + " bytes runs past its record");
        }
        int stackAt = w;
        long dynSize = rec[w + (int) (size / 8)];
        long bp = rec[regsAt + Long.bitCount(mask & ((1L << REG_BP) - 1))];
        long sp = rec[regsAt + Long.bitCount(mask & ((1L << REG_SP) - 1))];
        long ip = rec[regsAt + Long.bitCount(mask & ((1L << REG_IP) - 1))];
        memory.set(rec, stackAt, sp, Math.min(Math.max(dynSize, 0), size));
        modules.space = space;
        int frames = walker.unwind(ip, sp, bp, memory, modules);
        if (frames > 0 && space.find(walker.frame(0)) == null) {
            // a leaf outside every mapping (an exec before its MMAP records): perf prints no user frames
            return k;
        }
        walks++;
        ends[walker.end().ordinal()]++;
        out[k++] = CONTEXT_USER;
        int user = k;
        for (int i = 0; i < frames; i++) {
            long pc = walker.frame(i);
            pc = walker.exact(i) ? pc : pc - 1;
            if (Long.compareUnsigned(pc, CONTEXT_MAX) >= 0) {
                break; // never a context marker
            }
            out[k++] = pc;
        }
        if (walker.end() == ReferenceUnwinder.End.READ_FAULT && frames < PerfDataReplay.MAX_STACK) {
            // perf (libdw) ends a walk whose next frame lies outside the copied stack with an unknown
            // frame (it prints ffffffffffffffff [unknown]); so does this reader, so the stack says it was cut
            out[k++] = 0;
        }
        java.util.function.Consumer<String> t = trace;
        if (t != null) {
            t.accept(describe(a, rec, space, out, user, k));
        }
        return k;
    }

    /**
     * A sample's user frames as perf script prints them with {@code -F tid,time,ip,dso}: the address
     * relative to its mapping (address - start + pgoff) and the mapped file, or the address and
     * {@code [unknown]}; the cut frame as {@code ffffffffffffffff [unknown]}.
     */
    private String describe(PerfEventAttr a, long[] rec, AddressSpace space, long[] chain, int from, int to) {
        int w = a.has(PerfEventAttr.SAMPLE_IDENTIFIER) ? 1 : 0;
        w += a.has(PerfEventAttr.SAMPLE_IP) ? 1 : 0;
        long tid = a.has(PerfEventAttr.SAMPLE_TID) ? rec[w++] >>> 32 : -1;
        long time = a.has(PerfEventAttr.SAMPLE_TIME) ? rec[w] : -1;
        StringBuilder sb = new StringBuilder().append(tid).append(' ').append(time).append(' ').append(walker.end()).append(':');
        for (int i = from; i < to; i++) {
            long pc = chain[i];
            AddressSpace.Mapping m = pc == 0 ? null : space.find(pc);
            if (m == null) {
                sb.append(' ').append(Long.toHexString(pc == 0 ? -1 : pc)).append(" [unknown]");
            } else {
                sb.append(' ').append(Long.toHexString(PerfDataReplay.isAnonymous(m.file()) ? pc : pc - m.start() + m.pgoff()))
                        .append(' ').append(m.file());
            }
        }
        return sb.toString();
    }

    private void need(int w, int words, long at) {
        if (w < 0 || w >= words) {
            throw InputException.atOffset(file.name, at, "sample of " + (8 + 8L * words) + " bytes is too short for its user registers and stack");
        }
    }

    /** The copied user stack: [sp, sp + size) of the sample's words. */
    private static final class StackCopy implements ReferenceUnwinder.Memory {
        private long[] rec;
        private int at;
        private long sp;
        private long size;

        void set(long[] rec, int at, long sp, long size) {
            this.rec = rec;
            this.at = at;
            this.sp = sp;
            this.size = size;
        }

        @Override
        public boolean read(long address, long[] word) {
            long off = address - sp;
            if (off < 0 || off > size - 8) {
                return false;
            }
            int i = at + (int) (off >>> 3);
            int shift = (int) (off & 7) * 8;
            word[0] = shift == 0 ? rec[i] : rec[i] >>> shift | rec[i + 1] << (64 - shift);
            return true;
        }
    }

    /** The modules of one address space: its mappings and their files' tables. */
    private final class SpaceModules implements ReferenceUnwinder.Modules {
        AddressSpace space;

        @Override
        public ReferenceUnwinder.Module find(long address) {
            AddressSpace.Mapping m = space.find(address);
            if (m == null) {
                return null;
            }
            String name = m.file();
            if (PerfDataReplay.isAnonymous(name)) {
                return new ReferenceUnwinder.Module(null, 0, true);
            }
            FileTable t = files.computeIfAbsent(name, DwarfUserStacks.this::open);
            if (t.table == null) {
                return new ReferenceUnwinder.Module(null, 0, false);
            }
            long vaddr = t.segments.virtualAddress(address - m.start() + m.pgoff());
            return new ReferenceUnwinder.Module(t.table, address - vaddr, false);
        }
    }

    private FileTable open(String name) {
        try {
            if (name.equals("[vdso]")) {
                String id = file.buildIds.get("[vdso]");
                Path saved = id == null ? null : Path.of(System.getProperty("user.home"), ".debug", "[vdso]", id, "vdso");
                if (saved != null && Files.isRegularFile(saved)) {
                    return new FileTable(tables.forFile(saved), ElfLoadSegments.read(saved));
                }
                String release = file.features.get("os release");
                byte[] image = org.stackfold.symbolize.ElfSections.ownVdsoImage();
                if (image == null || release != null && !release.equals(System.getProperty("os.version"))) {
                    return new FileTable(null, null);
                }
                return new FileTable(tables.vdso(), ElfLoadSegments.of(ByteBuffer.wrap(image)));
            }
            Path p = name.startsWith("/") ? Path.of(name) : null;
            if (p == null || !Files.isRegularFile(p)) {
                return new FileTable(null, null);
            }
            ElfLoadSegments segments = ElfLoadSegments.read(p);
            return segments == null ? new FileTable(null, null) : new FileTable(tables.forFile(p), segments);
        } catch (IOException | InputException | IllegalArgumentException e) {
            return new FileTable(null, null); // not a readable ELF file: its frames end the walk
        }
    }

    /**
     * One line for the reader's warnings where more than 1% of the user stacks ended before their
     * root (a stop row: _start, clone3), by reason; null otherwise.
     */
    String summary() {
        long early = walks - ends[ReferenceUnwinder.End.ROOT.ordinal()];
        if (walks == 0 || early * 100 <= walks) {
            return null;
        }
        StringBuilder sb = new StringBuilder();
        sb.append(early).append(" of ").append(walks).append(" user stacks (")
                .append(Math.round(1000.0 * early / walks) / 10.0).append("%) end before their root:");
        String sep = " ";
        for (ReferenceUnwinder.End e : ReferenceUnwinder.End.values()) {
            long n = ends[e.ordinal()];
            if (e == ReferenceUnwinder.End.ROOT || n == 0) {
                continue;
            }
            sb.append(sep).append(n).append(' ').append(switch (e) {
                case READ_FAULT -> "at the end of the copied stack (record with a larger --call-graph dwarf,SIZE)";
                case NO_INFO -> "in code without unwind information";
                case NO_MAPPING -> "in code no file covers (JIT) with no frame pointer to follow";
                case NO_TABLE -> "in files that could not be read";
                case UNSUPPORTED -> "at unwind rules the walker does not follow";
                case DEPTH -> "at 127 frames";
                default -> "at a zero return address";
            });
            sep = ", ";
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return walks + " user stacks unwound: " + Arrays.toString(ends);
    }
}
