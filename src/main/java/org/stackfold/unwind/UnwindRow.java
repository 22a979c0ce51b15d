package org.stackfold.unwind;

/**
 * The 8-byte unwind row, the contract between the table builder and the BPF walker. In memory
 * (and in a BPF array map) a row is little-endian {@code struct { u32 pc; u16 cfa; s16 rbp; }}:
 * <ul>
 * <li>{@code pc}: the ELF virtual address (link address) where the row starts to apply; a runtime
 * address is looked up as {@code address - load bias}. A row applies up to the next row's pc.</li>
 * <li>{@code cfa = type << 14 | value}: type {@link #RSP} (CFA = rsp + value·8), {@link #RBP}
 * (CFA = rbp + value·8), {@link #PLT} (CFA = rsp + 8 + ((lookup &amp; 15) &ge; 11 ? 8 : 0), value 0)
 * or {@link #COMMAND}, whose value is {@link #NO_INFO} (no unwind information: an FDE's end
 * followed by a gap), {@link #STOP} (return address undefined: the outermost frame, {@code _start},
 * {@code clone3}), {@link #SIGNAL} (a signal trampoline: registers from the {@code ucontext} at
 * sp + 40) or {@link #UNSUPPORTED} (a rule the walker cannot follow).</li>
 * <li>{@code rbp}: 0 = rbp unchanged by this frame, else rbp was saved at CFA + rbp·8.</li>
 * </ul>
 * The return address is always at CFA − 8 (rows where it is not are {@link #UNSUPPORTED}). As a
 * Java {@code long} (the layout read little-endian) a row is
 * {@code pc | (long) cfa << 32 | (long) rbp << 48}; this class packs and unpacks that long.
 */
public final class UnwindRow {
    /** Bytes per row. */
    public static final int BYTES = 8;
    /** CFA types, the top two bits of {@code cfa}. */
    public static final int RSP = 0;
    public static final int RBP = 1;
    public static final int PLT = 2;
    public static final int COMMAND = 3;
    /** Command values (type {@link #COMMAND}). */
    public static final int NO_INFO = 0;
    public static final int STOP = 1;
    public static final int SIGNAL = 2;
    public static final int UNSUPPORTED = 3;
    /** The largest CFA value in eighths (14 bits). */
    public static final int MAX_CFA_EIGHTHS = (1 << 14) - 1;

    /** The {@code cfa} field of commands. */
    public static final int CFA_NO_INFO = COMMAND << 14 | NO_INFO;
    public static final int CFA_STOP = COMMAND << 14 | STOP;
    public static final int CFA_SIGNAL = COMMAND << 14 | SIGNAL;
    public static final int CFA_UNSUPPORTED = COMMAND << 14 | UNSUPPORTED;
    public static final int CFA_PLT = PLT << 14;

    private UnwindRow() {
    }

    /** A row from its three fields ({@code cfa} 16 bits, {@code rbp} the signed eighths). */
    public static long of(long pc, int cfa, int rbp) {
        return (pc & 0xffffffffL) | (long) (cfa & 0xffff) << 32 | (long) (rbp & 0xffff) << 48;
    }

    /** The {@code cfa} field of a CFA = rsp/rbp + offset rule, offset in bytes (a multiple of 8, 0 .. 131,064). */
    public static int cfa(int type, long offsetBytes) {
        return type << 14 | (int) (offsetBytes >> 3);
    }

    public static long pc(long row) {
        return row & 0xffffffffL;
    }

    /** The 16-bit cfa field. */
    public static int cfa(long row) {
        return (int) (row >>> 32) & 0xffff;
    }

    public static int type(long row) {
        return (int) (row >>> 46) & 3;
    }

    /** The 14-bit value: the CFA offset in eighths, or the command. */
    public static int value(long row) {
        return (int) (row >>> 32) & 0x3fff;
    }

    /** The CFA offset in bytes for {@link #RSP} and {@link #RBP} rows. */
    public static long cfaOffset(long row) {
        return (long) value(row) << 3;
    }

    /** The signed rbp field in eighths (0: unchanged). */
    public static int rbp(long row) {
        return (short) (row >>> 48);
    }

    /** Where rbp was saved, relative to the CFA, in bytes (0: unchanged). */
    public static long rbpOffset(long row) {
        return (long) rbp(row) << 3;
    }

    /** The row without its pc: two rows with equal rules have equal rules. */
    public static long rule(long row) {
        return row >>> 32;
    }

    /** A readable form, as in docs/unwind.md: {@code 1040 rsp+8 rbp=c-16}. */
    public static String toString(long row) {
        StringBuilder sb = new StringBuilder(Long.toHexString(pc(row))).append(' ');
        int v = value(row);
        switch (type(row)) {
            case RSP -> sb.append("rsp+").append(v * 8L);
            case RBP -> sb.append("rbp+").append(v * 8L);
            case PLT -> sb.append("plt");
            default -> sb.append(switch (v) {
                case NO_INFO -> "no-info";
                case STOP -> "stop";
                case SIGNAL -> "signal";
                case UNSUPPORTED -> "unsupported";
                default -> "command" + v;
            });
        }
        if (rbp(row) != 0) {
            sb.append(" rbp=c").append(rbp(row) * 8 >= 0 ? "+" : "").append(rbp(row) * 8);
        }
        return sb.toString();
    }
}
