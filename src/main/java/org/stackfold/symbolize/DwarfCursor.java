package org.stackfold.symbolize;

import java.nio.charset.StandardCharsets;
import org.stackfold.io.InputException;

/** Little-endian reads over one DWARF section's bytes; every read past the end is an {@link InputException}. */
final class DwarfCursor {
    final byte[] b;
    final String source;
    int pos;

    DwarfCursor(byte[] b, String source, int pos) {
        this.b = b;
        this.source = source;
        this.pos = pos;
    }

    private void need(int n) {
        if (pos < 0 || n < 0 || pos > b.length - n) {
            throw InputException.atOffset(source, pos, "DWARF data runs past the end of the section");
        }
    }

    int u8() {
        need(1);
        return b[pos++] & 0xff;
    }

    int u16() {
        need(2);
        int v = (b[pos] & 0xff) | (b[pos + 1] & 0xff) << 8;
        pos += 2;
        return v;
    }

    int u24() {
        need(3);
        int v = (b[pos] & 0xff) | (b[pos + 1] & 0xff) << 8 | (b[pos + 2] & 0xff) << 16;
        pos += 3;
        return v;
    }

    long u32() {
        need(4);
        long v = (b[pos] & 0xff) | (b[pos + 1] & 0xff) << 8 | (b[pos + 2] & 0xff) << 16 | (long) (b[pos + 3] & 0xff) << 24;
        pos += 4;
        return v;
    }

    long u64() {
        long lo = u32();
        return lo | u32() << 32;
    }

    long sized(int size) {
        return switch (size) {
            case 1 -> u8();
            case 2 -> u16();
            case 4 -> u32();
            case 8 -> u64();
            default -> throw InputException.atOffset(source, pos, "unsupported field size " + size);
        };
    }

    long uleb() {
        long result = 0;
        int shift = 0;
        while (true) {
            need(1);
            int x = b[pos++];
            if (shift < 64) {
                result |= (long) (x & 0x7f) << shift;
            }
            shift += 7;
            if ((x & 0x80) == 0) {
                return result;
            }
        }
    }

    long sleb() {
        long result = 0;
        int shift = 0;
        int x;
        do {
            need(1);
            x = b[pos++];
            if (shift < 64) {
                result |= (long) (x & 0x7f) << shift;
            }
            shift += 7;
        } while ((x & 0x80) != 0);
        if (shift < 64 && (x & 0x40) != 0) {
            result |= -1L << shift;
        }
        return result;
    }

    void skip(long n) {
        if (n < 0 || n > b.length - pos) {
            throw InputException.atOffset(source, pos, "DWARF data runs past the end of the section");
        }
        pos += (int) n;
    }

    /** Skips a NUL-terminated string, returning where it started. */
    int skipString() {
        int start = pos;
        while (true) {
            need(1);
            if (b[pos++] == 0) {
                return start;
            }
        }
    }

    String string() {
        int start = skipString();
        return new String(b, start, pos - 1 - start, StandardCharsets.UTF_8);
    }

    /** The NUL-terminated string at {@code offset} of {@code section}, or null when out of bounds. */
    static String stringAt(byte[] section, long offset) {
        if (section == null || offset < 0 || offset >= section.length) {
            return null;
        }
        int start = (int) offset;
        int end = start;
        while (end < section.length && section[end] != 0) {
            end++;
        }
        return new String(section, start, end - start, StandardCharsets.UTF_8);
    }
}
