package org.stackfold.symbolize;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.stackfold.io.InputException;

/** The executable mappings of a {@code /proc/PID/maps} text, parsed on bytes. */
final class ProcessMaps {
    /** One executable mapping; {@code path} is empty for anonymous memory, " (deleted)" stripped. */
    record Mapping(long start, long end, long offset, long device, long inode, String path, boolean deleted) {
        boolean anonymous() {
            return path.isEmpty() || path.startsWith("[anon") || path.startsWith("/memfd:") || path.startsWith("//anon");
        }

        boolean special() {
            return path.startsWith("[");
        }

        /** The name of this mapping under /proc/PID/map_files/. */
        String mapFilesName() {
            return Long.toHexString(start) + "-" + Long.toHexString(end);
        }
    }

    private ProcessMaps() {
    }

    static List<Mapping> parseExecutable(byte[] b, String source) {
        return parseExecutable(b, b.length, source);
    }

    /** The executable mappings of the first {@code length} bytes of {@code b}. */
    static List<Mapping> parseExecutable(byte[] b, int length, String source) {
        List<Mapping> out = new ArrayList<>();
        int p = 0;
        int lineNo = 0;
        long[] v = new long[1];
        while (p < length) {
            lineNo++;
            int eol = p;
            while (eol < length && b[eol] != '\n') {
                eol++;
            }
            if (eol > p) {
                int q = hex(b, p, eol, '-', v, source, lineNo);
                long start = v[0];
                q = hex(b, q + 1, eol, ' ', v, source, lineNo);
                long end = v[0];
                if (q + 5 >= eol) {
                    throw InputException.atLine(source, lineNo, "expected 'START-END PERMS OFFSET DEV INODE PATH'");
                }
                boolean exec = b[q + 3] == 'x';
                q = hex(b, q + 6, eol, ' ', v, source, lineNo);
                long offset = v[0];
                q = hex(b, q + 1, eol, ':', v, source, lineNo);
                long major = v[0];
                q = hex(b, q + 1, eol, ' ', v, source, lineNo);
                long minor = v[0];
                q = dec(b, q + 1, eol, v, source, lineNo);
                long inode = v[0];
                while (q < eol && b[q] == ' ') {
                    q++;
                }
                if (exec) {
                    String path = new String(b, q, eol - q, StandardCharsets.UTF_8);
                    int nul = path.indexOf('\0');
                    if (nul >= 0) {
                        // The kernel never writes one; a path with it names no file (and no Path can hold it).
                        throw InputException.atLine(source, lineNo, "a NUL byte in the path (byte " + (q + nul) + ")");
                    }
                    boolean deleted = path.endsWith(" (deleted)");
                    if (deleted) {
                        path = path.substring(0, path.length() - " (deleted)".length());
                    }
                    out.add(new Mapping(start, end, offset, major << 32 | minor, inode, path, deleted));
                }
            }
            p = eol + 1;
        }
        return out;
    }

    private static int hex(byte[] b, int p, int end, char stop, long[] out, String source, int lineNo) {
        long v = 0;
        int digits = 0;
        while (p < end && b[p] != stop) {
            int d = Character.digit(b[p], 16);
            if (d < 0 || ++digits > 16) {
                throw InputException.atLine(source, lineNo, "expected 'START-END PERMS OFFSET DEV INODE PATH'");
            }
            v = v << 4 | d;
            p++;
        }
        if (digits == 0 || p >= end) {
            throw InputException.atLine(source, lineNo, "expected 'START-END PERMS OFFSET DEV INODE PATH'");
        }
        out[0] = v;
        return p;
    }

    private static int dec(byte[] b, int p, int end, long[] out, String source, int lineNo) {
        long v = 0;
        int digits = 0;
        while (p < end && b[p] != ' ') {
            if (b[p] < '0' || b[p] > '9' || ++digits > 19) {
                throw InputException.atLine(source, lineNo, "expected a decimal inode");
            }
            v = v * 10 + (b[p] - '0');
            p++;
        }
        out[0] = v;
        return p;
    }
}
