package org.stackfold.record.python;

/**
 * CPython 3.11+'s location table ({@code co_linetable}, {@code Objects/locations.md} in CPython):
 * entries that each cover 1 to 8 code units, the first byte {@code 1cccclll} (code {@code c},
 * length {@code l + 1}), then per code: 0–9 short form (one byte of columns, same line), 10–12 one
 * line form (line + code − 10, two bytes of columns), 13 no columns (signed varint line delta), 14
 * long form (signed varint line delta, then end line delta, start and end column as varints), 15 no
 * location. Varints are 6 bits a byte, bit 6 set while more follow; signed ones keep the sign in
 * bit 0. Decoded in place from the bytes; never reads past them.
 */
public final class LineTable {
    /** No line: the instruction has no location or lies outside the table. */
    public static final int NONE = 0;

    private LineTable() {
    }

    /**
     * The line of the instruction at {@code instruction} (in code units from the first), as
     * {@code PyCode_Addr2Line} gives it; {@code firstLine} for a negative instruction (a 3.11/3.12
     * frame that has not begun), {@link #NONE} where the table says nothing.
     */
    public static int line(byte[] table, int firstLine, int instruction) {
        if (instruction < 0) {
            return firstLine;
        }
        int line = firstLine;
        int addr = 0;
        int p = 0;
        int n = table.length;
        int[] pos = new int[1];
        while (p < n) {
            int b = table[p++] & 0xff;
            int code = (b >> 3) & 15;
            int length = (b & 7) + 1;
            int at;
            if (code == 15) {
                at = NONE;
            } else if (code == 14) {
                pos[0] = p;
                line += signedVarint(table, pos);
                varint(table, pos);
                varint(table, pos);
                varint(table, pos);
                p = pos[0];
                at = line;
            } else if (code == 13) {
                pos[0] = p;
                line += signedVarint(table, pos);
                p = pos[0];
                at = line;
            } else if (code >= 10) {
                line += code - 10;
                p += 2;
                at = line;
            } else {
                p += 1;
                at = line;
            }
            if (instruction < addr + length) {
                return at;
            }
            addr += length;
        }
        return NONE;
    }

    private static int varint(byte[] t, int[] pos) {
        int p = pos[0];
        if (p >= t.length) {
            pos[0] = t.length;
            return 0;
        }
        int b = t[p++] & 0xff;
        int v = b & 63;
        int shift = 6;
        while ((b & 64) != 0 && p < t.length && shift < 30) {
            b = t[p++] & 0xff;
            v |= (b & 63) << shift;
            shift += 6;
        }
        pos[0] = p;
        return v;
    }

    private static int signedVarint(byte[] t, int[] pos) {
        int v = varint(t, pos);
        return (v & 1) != 0 ? -(v >>> 1) : v >>> 1;
    }
}
