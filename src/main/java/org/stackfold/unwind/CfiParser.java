package org.stackfold.unwind;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.stackfold.symbolize.ElfSections;

/**
 * Builds the rows of one file from its call frame information: {@code .eh_frame} (or
 * {@code .debug_frame}) CIEs and FDEs, each FDE's CFA program run as a DWARF consumer runs it
 * (tracking only the CFA, rbp and the return address), every state classified into an
 * {@link UnwindRow}; then a no-info row at every FDE end followed by a gap, sorted, equal
 * neighbours merged. Rules and choices in docs/unwind.md.
 */
final class CfiParser {
    private static final int REG_RBP = 6;
    private static final int REG_RSP = 7;
    /** Register rules. */
    private static final int SAME = 0;
    private static final int UNDEFINED = 1;
    private static final int OFFSET = 2;
    private static final int OTHER = 3;
    /** CFA register values besides a register number. */
    private static final int CFA_PLT_EXPR = -1;
    private static final int CFA_OTHER_EXPR = -2;
    /** GCC's PLT CFA: DW_OP_breg7 8; DW_OP_breg16 0; DW_OP_lit15; DW_OP_and; DW_OP_lit11; DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus. */
    static final byte[] PLT_EXPRESSION = {0x77, 0x08, (byte) 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22};
    /** x86-64 rt_sigreturn trampoline: mov $0xf,%rax; syscall. */
    static final byte[] SIGRETURN = {0x48, (byte) 0xc7, (byte) 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};

    private final byte[] b;
    private final long base;
    private final boolean eh;
    private final ElfSections code;
    private final Map<Integer, Cie> cies = new HashMap<>();
    private int pos;

    // rows collected: sort key (pc << 32 | sequence, 0 for end markers) and rules by sequence
    private long[] keys = new long[1024];
    private long[] rules = new long[1024];
    private int rowCount;
    private long[] fdeStart = new long[256];
    private long[] fdeEnd = new long[256];
    int fdes;

    // the CFA program's state
    private int cfaReg;
    private long cfaOff;
    private int rbpKind;
    private long rbpOff;
    private int raKind;
    private long raOff;
    private long[] stack = new long[6 * 8];
    private int depth;

    private static final class Cie {
        long codeAlign;
        long dataAlign;
        int raReg;
        int fdeEnc;
        boolean z;
        boolean signal;
        boolean ok = true;
        int addressSize = 8;
        int insStart;
        int insEnd;
        // state after the initial instructions
        int cfaReg;
        long cfaOff;
        int rbpKind;
        long rbpOff;
        int raKind;
        long raOff;
    }

    private CfiParser(byte[] section, long base, boolean eh, ElfSections code) {
        this.b = section;
        this.base = base;
        this.eh = eh;
        this.code = code;
    }

    /** Builds the table of an ELF file; {@code .debug_frame} of the file or its debug file where {@code .eh_frame} has fewer than 8 FDEs. */
    static UnwindTable build(ElfSections elf, String name, boolean lookForDebugFile) {
        CfiParser best = parse(elf, elf, ".eh_frame", true);
        if (best == null || best.fdes < 8) {
            CfiParser own = parse(elf, elf, ".debug_frame", false);
            if (own != null && (best == null || own.fdes > best.fdes)) {
                best = own;
            }
            if ((best == null || best.fdes < 8) && lookForDebugFile) {
                ElfSections debug = elf.debugFile();
                CfiParser other = debug == null ? null : parse(debug, elf, ".debug_frame", false);
                if (other != null && (best == null || other.fdes > best.fdes)) {
                    best = other;
                }
            }
        }
        long[] rows = best == null ? new long[0] : best.rows();
        return new UnwindTable(name, elf.buildId(), rows, best == null ? 0 : best.fdes);
    }

    private static CfiParser parse(ElfSections from, ElfSections code, String section, boolean eh) {
        byte[] bytes = from.section(section);
        if (bytes == null) {
            return null;
        }
        CfiParser p = new CfiParser(bytes, from.sectionAddress(section), eh, code);
        p.run();
        return p;
    }

    /** Rows from raw section bytes (tests). */
    static long[] rowsOf(byte[] section, long base, boolean eh, ElfSections code) {
        CfiParser p = new CfiParser(section, base, eh, code);
        p.run();
        return p.rows();
    }

    private void run() {
        int at = 0;
        while (at + 4 <= b.length) {
            long length = u32(at) & 0xffffffffL;
            int header = 4;
            boolean wide = false;
            if (length == 0) {
                if (eh) {
                    break; // the terminator
                }
                at += 4;
                continue;
            }
            if (length == 0xffffffffL) {
                if (at + 12 > b.length) {
                    break;
                }
                length = u64(at + 4);
                header = 12;
                wide = true;
            }
            long end = at + header + length;
            if (length < 4 || end > b.length || end < 0) {
                break; // a lying length ends the section: keep what was read
            }
            int start = at + header;
            long id = wide ? u64(start) : u32(start) & 0xffffffffL;
            boolean isCie = eh ? id == 0 : (wide ? id == -1L : id == 0xffffffffL);
            if (!isCie) {
                long ciePos = eh ? start - id : id;
                if (ciePos >= 0 && ciePos < b.length) {
                    Cie cie = cie((int) ciePos);
                    if (cie != null && cie.ok) {
                        fde(cie, start + (wide ? 8 : 4), (int) end);
                    }
                }
            }
            at = (int) end;
        }
    }

    private Cie cie(int at) {
        Cie known = cies.get(at);
        if (known != null || cies.containsKey(at)) {
            return known;
        }
        Cie c = null;
        try {
            c = parseCie(at);
        } catch (RuntimeException e) {
            c = null; // cut short or malformed: its FDEs give no rows
        }
        cies.put(at, c);
        return c;
    }

    private Cie parseCie(int at) {
        long length = u32(at) & 0xffffffffL;
        int header = 4;
        int idSize = 4;
        if (length == 0xffffffffL) {
            length = u64(at + 4);
            header = 12;
            idSize = 8;
        }
        int end = (int) (at + header + length);
        if (end > b.length) {
            return null;
        }
        Cie c = new Cie();
        pos = at + header + idSize;
        int version = u8(pos++);
        int augAt = pos;
        while (b[pos] != 0) {
            pos++;
        }
        String aug = new String(b, augAt, pos - augAt, java.nio.charset.StandardCharsets.ISO_8859_1);
        pos++;
        if (aug.contains("eh")) {
            pos += 8;
        }
        if (version >= 4) {
            c.addressSize = u8(pos++);
            pos++; // segment selector size
        }
        c.codeAlign = uleb();
        c.dataAlign = sleb();
        c.raReg = version == 1 ? u8(pos++) : (int) uleb();
        c.fdeEnc = 0;
        if (aug.startsWith("z")) {
            c.z = true;
            long augLen = uleb();
            int augEnd = (int) (pos + augLen);
            for (int i = 1; i < aug.length() && c.ok; i++) {
                switch (aug.charAt(i)) {
                    case 'R' -> c.fdeEnc = u8(pos++);
                    case 'L' -> pos++;
                    case 'P' -> {
                        int enc = u8(pos++);
                        pointer(enc & 0x0f); // the personality routine: skipped, its application unused
                    }
                    case 'S' -> c.signal = true;
                    case 'B', 'G' -> {
                    }
                    default -> i = aug.length(); // unknown: the length says where the data ends
                }
            }
            pos = augEnd;
        } else if (!aug.isEmpty() && !aug.equals("eh")) {
            c.ok = false;
            return c;
        }
        c.insStart = pos;
        c.insEnd = end;
        cfaReg = REG_RSP;
        cfaOff = 0;
        rbpKind = SAME;
        rbpOff = 0;
        raKind = SAME;
        raOff = 0;
        depth = 0;
        execute(c, c.insStart, c.insEnd, 0, Long.MAX_VALUE, false);
        c.cfaReg = cfaReg;
        c.cfaOff = cfaOff;
        c.rbpKind = rbpKind;
        c.rbpOff = rbpOff;
        c.raKind = raKind;
        c.raOff = raOff;
        return c;
    }

    private void fde(Cie cie, int at, int end) {
        long pcBegin;
        long pcRange;
        int insStart;
        try {
            pos = at;
            int enc = eh ? cie.fdeEnc : (cie.addressSize == 4 ? 0x03 : 0x04);
            pcBegin = pointer(enc);
            pcRange = pointer(enc & 0x0f);
            if (cie.z) {
                long augLen = uleb();
                pos += (int) augLen;
            }
            insStart = pos;
        } catch (RuntimeException e) {
            return;
        }
        if (pcBegin == 0 || pcRange <= 0 || pcBegin < 0 || pcBegin + pcRange > 0xffffffffL || insStart > end) {
            return; // discarded (address 0), empty, or beyond the row format's 32-bit pc
        }
        fdes++;
        long pcEnd = pcBegin + pcRange;
        if (cie.signal || isSigreturn(pcBegin)) {
            // Return addresses are looked up one byte back: the trampoline's row starts a byte early.
            addFde(pcBegin - 1, pcEnd);
            add(pcBegin - 1, UnwindRow.CFA_SIGNAL, 0);
            return;
        }
        addFde(pcBegin, pcEnd);
        cfaReg = cie.cfaReg;
        cfaOff = cie.cfaOff;
        rbpKind = cie.rbpKind;
        rbpOff = cie.rbpOff;
        raKind = cie.raKind;
        raOff = cie.raOff;
        depth = 0;
        try {
            long loc = execute(cie, insStart, end, pcBegin, pcEnd, true);
            if (loc < pcEnd) {
                emit(loc);
            }
        } catch (RuntimeException e) {
            add(pcBegin, UnwindRow.CFA_UNSUPPORTED, 0); // a program cut short or malformed
        }
    }

    private boolean isSigreturn(long pc) {
        byte[] c = code == null ? null : code.bytesAt(pc, SIGRETURN.length);
        return c != null && Arrays.equals(c, SIGRETURN);
    }

    /**
     * Runs CFA instructions in [from, to). With {@code rows}, emits the row in force at each
     * location the program advances from; returns the location reached.
     */
    private long execute(Cie cie, int from, int to, long loc, long pcEnd, boolean rows) {
        pos = from;
        while (pos < to) {
            int op = u8(pos++);
            int high = op & 0xc0;
            int low = op & 0x3f;
            long advance = -1;
            if (high == 0x40) {
                advance = low * cie.codeAlign;
            } else if (high == 0x80) {
                setOffset(cie, low, uleb() * cie.dataAlign);
            } else if (high == 0xc0) {
                restore(cie, low);
            } else {
                switch (op) {
                    case 0x00 -> {
                    }
                    case 0x01 -> {
                        long to2 = pointer(eh ? cie.fdeEnc : (cie.addressSize == 4 ? 0x03 : 0x04));
                        advance = to2 - loc;
                    }
                    case 0x02 -> {
                        advance = u8(pos) * cie.codeAlign;
                        pos += 1;
                    }
                    case 0x03 -> {
                        advance = (u16(pos)) * cie.codeAlign;
                        pos += 2;
                    }
                    case 0x04 -> {
                        advance = (u32(pos) & 0xffffffffL) * cie.codeAlign;
                        pos += 4;
                    }
                    case 0x05 -> {
                        int reg = (int) uleb();
                        setOffset(cie, reg, uleb() * cie.dataAlign);
                    }
                    case 0x06 -> restore(cie, (int) uleb());
                    case 0x07 -> setRule((int) uleb(), cie, UNDEFINED, 0);
                    case 0x08 -> setRule((int) uleb(), cie, SAME, 0);
                    case 0x09 -> {
                        int reg = (int) uleb();
                        uleb();
                        setRule(reg, cie, OTHER, 0);
                    }
                    case 0x0a -> remember();
                    case 0x0b -> forget();
                    case 0x0c -> {
                        cfaReg = (int) uleb();
                        cfaOff = uleb();
                    }
                    case 0x0d -> cfaReg = (int) uleb();
                    case 0x0e -> cfaOff = uleb();
                    case 0x0f -> {
                        int len = (int) uleb();
                        cfaReg = isPlt(pos, len) ? CFA_PLT_EXPR : CFA_OTHER_EXPR;
                        cfaOff = 0;
                        pos += len;
                    }
                    case 0x10, 0x16 -> {
                        int reg = (int) uleb();
                        int len = (int) uleb();
                        pos += len;
                        setRule(reg, cie, OTHER, 0);
                    }
                    case 0x11 -> {
                        int reg = (int) uleb();
                        setOffset(cie, reg, sleb() * cie.dataAlign);
                    }
                    case 0x12 -> {
                        cfaReg = (int) uleb();
                        cfaOff = sleb() * cie.dataAlign;
                    }
                    case 0x13 -> cfaOff = sleb() * cie.dataAlign;
                    case 0x14 -> {
                        int reg = (int) uleb();
                        uleb();
                        setRule(reg, cie, OTHER, 0);
                    }
                    case 0x15 -> {
                        int reg = (int) uleb();
                        sleb();
                        setRule(reg, cie, OTHER, 0);
                    }
                    case 0x1d -> {
                        advance = u64(pos) * cie.codeAlign;
                        pos += 8;
                    }
                    case 0x2e -> uleb(); // GNU_args_size: nothing for the CFA
                    case 0x2f -> {
                        int reg = (int) uleb();
                        setOffset(cie, reg, -uleb() * cie.dataAlign);
                    }
                    default -> throw new IllegalStateException("unknown CFA instruction 0x" + Integer.toHexString(op));
                }
            }
            if (advance >= 0 && rows) {
                if (loc < pcEnd && advance > 0) {
                    emit(loc);
                }
                loc += advance;
            }
        }
        if (pos > to) {
            throw new IllegalStateException("CFA program runs past its entry");
        }
        return loc;
    }

    private boolean isPlt(int at, int len) {
        if (len != PLT_EXPRESSION.length || at + len > b.length) {
            return false;
        }
        return Arrays.equals(b, at, at + len, PLT_EXPRESSION, 0, len);
    }

    private void setOffset(Cie cie, int reg, long off) {
        setRule(reg, cie, OFFSET, off);
    }

    private void setRule(int reg, Cie cie, int kind, long off) {
        if (reg == REG_RBP) {
            rbpKind = kind;
            rbpOff = off;
        }
        if (reg == cie.raReg) {
            raKind = kind;
            raOff = off;
        }
    }

    private void restore(Cie cie, int reg) {
        if (reg == REG_RBP) {
            rbpKind = cie.rbpKind;
            rbpOff = cie.rbpOff;
        }
        if (reg == cie.raReg) {
            raKind = cie.raKind;
            raOff = cie.raOff;
        }
    }

    private void remember() {
        if ((depth + 1) * 6 > stack.length) {
            stack = Arrays.copyOf(stack, stack.length * 2);
        }
        int s = depth++ * 6;
        stack[s] = cfaReg;
        stack[s + 1] = cfaOff;
        stack[s + 2] = rbpKind;
        stack[s + 3] = rbpOff;
        stack[s + 4] = raKind;
        stack[s + 5] = raOff;
    }

    private void forget() {
        if (depth == 0) {
            return; // readelf and libgcc ignore an unmatched restore_state
        }
        int s = --depth * 6;
        cfaReg = (int) stack[s];
        cfaOff = stack[s + 1];
        rbpKind = (int) stack[s + 2];
        rbpOff = stack[s + 3];
        raKind = (int) stack[s + 4];
        raOff = stack[s + 5];
    }

    /** The row of the current state at {@code loc}. */
    private void emit(long loc) {
        int cfa;
        int rbp = 0;
        if (raKind == UNDEFINED) {
            cfa = UnwindRow.CFA_STOP;
        } else if (raKind != OFFSET || raOff != -8) {
            cfa = UnwindRow.CFA_UNSUPPORTED;
        } else if (cfaReg == CFA_PLT_EXPR) {
            cfa = UnwindRow.CFA_PLT;
        } else if ((cfaReg == REG_RSP || cfaReg == REG_RBP) && cfaOff >= 0 && (cfaOff & 7) == 0
                && cfaOff >> 3 <= UnwindRow.MAX_CFA_EIGHTHS) {
            cfa = UnwindRow.cfa(cfaReg == REG_RSP ? UnwindRow.RSP : UnwindRow.RBP, cfaOff);
        } else {
            cfa = UnwindRow.CFA_UNSUPPORTED;
        }
        if (cfa != UnwindRow.CFA_STOP && cfa != UnwindRow.CFA_UNSUPPORTED) {
            if (rbpKind == OFFSET) {
                if (rbpOff != 0 && (rbpOff & 7) == 0 && rbpOff >> 3 >= Short.MIN_VALUE && rbpOff >> 3 <= Short.MAX_VALUE) {
                    rbp = (int) (rbpOff >> 3);
                } else {
                    cfa = UnwindRow.CFA_UNSUPPORTED;
                }
            } else if (rbpKind == OTHER) {
                cfa = UnwindRow.CFA_UNSUPPORTED;
            }
        }
        if (cfa == UnwindRow.CFA_UNSUPPORTED) {
            rbp = 0;
        }
        add(loc, cfa, rbp);
    }

    private void add(long pc, int cfa, int rbp) {
        if (rowCount == keys.length) {
            keys = Arrays.copyOf(keys, rowCount * 2);
            rules = Arrays.copyOf(rules, rowCount * 2);
        }
        // sequence 1.. in emission order; later rows at one pc win, end markers (0) lose
        keys[rowCount] = pc << 32 | (rowCount + 1);
        rules[rowCount] = UnwindRow.rule(UnwindRow.of(pc, cfa, rbp));
        rowCount++;
    }

    private void addFde(long start, long end) {
        if (fdeCountAdded == fdeStart.length) {
            fdeStart = Arrays.copyOf(fdeStart, fdeStart.length * 2);
            fdeEnd = Arrays.copyOf(fdeEnd, fdeEnd.length * 2);
        }
        fdeStart[fdeCountAdded] = start;
        fdeEnd[fdeCountAdded++] = end;
    }

    private int fdeCountAdded;

    /** Sorted rows with end markers, equal neighbours merged. */
    long[] rows() {
        // end markers where the union of the FDEs' ranges has a gap
        int n = fdeCountAdded;
        long[] ranges = new long[n];
        for (int i = 0; i < n; i++) {
            ranges[i] = fdeStart[i] << 32 | i;
        }
        Arrays.sort(ranges, 0, n);
        int markers = 0;
        long[] markerPcs = new long[n];
        long maxEnd = -1;
        for (int k = 0; k < n; k++) {
            int i = (int) (ranges[k] & 0xffffffffL);
            maxEnd = Math.max(maxEnd, fdeEnd[i]);
            long next = k + 1 < n ? fdeStart[(int) (ranges[k + 1] & 0xffffffffL)] : Long.MAX_VALUE;
            if (next > maxEnd) {
                markerPcs[markers++] = maxEnd;
            }
        }
        long[] all = Arrays.copyOf(keys, rowCount + markers);
        for (int i = 0; i < markers; i++) {
            all[rowCount + i] = markerPcs[i] << 32;
        }
        Arrays.sort(all);
        long noInfo = UnwindRow.rule(UnwindRow.of(0, UnwindRow.CFA_NO_INFO, 0));
        long[] out = new long[all.length];
        int m = 0;
        long prevRule = noInfo; // a leading no-info row says nothing
        for (int i = 0; i < all.length; i++) {
            long pc = all[i] >>> 32;
            if (i + 1 < all.length && all[i + 1] >>> 32 == pc) {
                continue; // the last row at a pc wins
            }
            int seq = (int) (all[i] & 0xffffffffL);
            long rule = seq == 0 ? noInfo : rules[seq - 1];
            if (rule == prevRule) {
                continue;
            }
            out[m++] = pc | rule << 32;
            prevRule = rule;
        }
        return Arrays.copyOf(out, m);
    }

    // --- reading

    private int u8(int at) {
        return b[at] & 0xff;
    }

    private int u16(int at) {
        return (b[at] & 0xff) | (b[at + 1] & 0xff) << 8;
    }

    private int u32(int at) {
        return (b[at] & 0xff) | (b[at + 1] & 0xff) << 8 | (b[at + 2] & 0xff) << 16 | (b[at + 3] & 0xff) << 24;
    }

    private long u64(int at) {
        return (u32(at) & 0xffffffffL) | (long) u32(at + 4) << 32;
    }

    private long uleb() {
        long v = 0;
        int shift = 0;
        while (true) {
            int x = b[pos++];
            if (shift < 64) {
                v |= (long) (x & 0x7f) << shift;
            }
            shift += 7;
            if (x >= 0) {
                return v;
            }
        }
    }

    private long sleb() {
        long v = 0;
        int shift = 0;
        int x;
        do {
            x = b[pos++];
            if (shift < 64) {
                v |= (long) (x & 0x7f) << shift;
            }
            shift += 7;
        } while (x < 0);
        if (shift < 64 && (x & 0x40) != 0) {
            v |= -1L << shift;
        }
        return v;
    }

    /** An encoded pointer (DW_EH_PE_*) at pos. */
    private long pointer(int enc) {
        if (enc == 0xff) {
            return 0;
        }
        int fieldAt = pos;
        long v = switch (enc & 0x0f) {
            case 0x00 -> {
                long x = u64(pos);
                pos += 8;
                yield x;
            }
            case 0x01 -> uleb();
            case 0x02 -> {
                long x = u16(pos);
                pos += 2;
                yield x;
            }
            case 0x03 -> {
                long x = u32(pos) & 0xffffffffL;
                pos += 4;
                yield x;
            }
            case 0x04, 0x0c -> {
                long x = u64(pos);
                pos += 8;
                yield x;
            }
            case 0x09 -> sleb();
            case 0x0a -> {
                long x = (short) u16(pos);
                pos += 2;
                yield x;
            }
            case 0x0b -> {
                long x = u32(pos);
                pos += 4;
                yield x;
            }
            default -> throw new IllegalStateException("pointer encoding 0x" + Integer.toHexString(enc));
        };
        return switch (enc & 0x70) {
            case 0x00 -> v;
            case 0x10 -> v + base + fieldAt;
            default -> throw new IllegalStateException("pointer application 0x" + Integer.toHexString(enc));
        };
    }
}
