package org.stackfold.unwind;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.stackfold.symbolize.ElfSections;

/**
 * Compares a table with {@code readelf --debug-dump=frames-interp}: for every row readelf prints
 * (or, for an FDE without instructions, its CIE's initial row), the rule our table gives at the
 * row's first and last address must be the row's rule classified as docs/unwind.md says; and where
 * an FDE ends before the next begins, the table must say "no info" there.
 */
final class ReadelfOracle {
    /** One comparison's outcome. */
    record Result(int fdes, int rowsCompared, List<String> mismatches) {
    }

    private ReadelfOracle() {
    }

    static String readelf(Path file) throws IOException, InterruptedException {
        Path out = Files.createTempFile("readelf", ".txt");
        try {
            Process p = new ProcessBuilder("readelf", "--debug-dump=frames-interp", file.toString())
                    .redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("readelf timed out on " + file);
            }
            return Files.readString(out, StandardCharsets.ISO_8859_1);
        } finally {
            Files.deleteIfExists(out);
        }
    }

    private record Fde(long begin, long end, String cie, List<long[]> locs, List<String[]> states, String[] columns) {
    }

    static Result compare(UnwindTable table, ElfSections elf, String readelfText) {
        Map<String, String[]> cieColumns = new HashMap<>();
        Map<String, String[]> cieInitial = new HashMap<>();
        Map<String, Boolean> cieSignal = new HashMap<>();
        List<Fde> fdes = new ArrayList<>();
        String[] lines = readelfText.split("\n");
        boolean debugFrame = false;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (line.startsWith("Contents of the .debug_frame")) {
                debugFrame = true;
            } else if (line.startsWith("Contents of the .eh_frame")) {
                debugFrame = false;
            }
            String[] f = split(line);
            if (f.length >= 5 && f[3].equals("CIE")) {
                String id = (debugFrame ? "d" : "e") + f[0];
                cieSignal.put(id, f[4].contains("S"));
                int j = i + 1;
                if (j < lines.length && lines[j].trim().startsWith("LOC")) {
                    String[] cols = split(lines[j]);
                    cieColumns.put(id, cols);
                    if (j + 1 < lines.length && !lines[j + 1].isBlank()) {
                        cieInitial.put(id, split(lines[j + 1]));
                    }
                }
            } else if (f.length >= 6 && f[3].equals("FDE")) {
                String cie = (debugFrame ? "d" : "e") + f[4].substring(4);
                String[] range = f[5].substring(3).split("\\.\\.");
                long begin = Long.parseUnsignedLong(range[0], 16);
                long end = Long.parseUnsignedLong(range[1], 16);
                List<long[]> locs = new ArrayList<>();
                List<String[]> states = new ArrayList<>();
                String[] cols = null;
                int j = i + 1;
                if (j < lines.length && lines[j].trim().startsWith("LOC")) {
                    cols = split(lines[j]);
                    for (j = j + 1; j < lines.length && !lines[j].isBlank(); j++) {
                        String[] row = split(lines[j]);
                        locs.add(new long[] {Long.parseUnsignedLong(row[0], 16)});
                        states.add(row);
                    }
                }
                fdes.add(new Fde(begin, end, cie, locs, states, cols));
            }
        }
        List<String> bad = new ArrayList<>();
        int compared = 0;
        int counted = 0;
        // FDE ranges, to find the ends followed by a gap
        List<long[]> ranges = new ArrayList<>();
        for (Fde fde : fdes) {
            if (fde.begin == 0 || fde.end <= fde.begin) {
                continue;
            }
            counted++;
            boolean signal = Boolean.TRUE.equals(cieSignal.get(fde.cie)) || isSigreturn(elf, fde.begin);
            ranges.add(new long[] {signal ? fde.begin - 1 : fde.begin, fde.end});
            List<long[]> locs = fde.locs;
            List<String[]> states = fde.states;
            String[] cols = fde.columns;
            if (locs.isEmpty()) {
                String[] init = cieInitial.get(fde.cie);
                cols = cieColumns.get(fde.cie);
                if (init == null) {
                    continue;
                }
                String[] row = init.clone();
                row[0] = Long.toHexString(fde.begin);
                locs = List.<long[]>of(new long[] {fde.begin});
                states = List.<String[]>of(row);
            }
            for (int k = 0; k < locs.size(); k++) {
                long from = locs.get(k)[0];
                long to = k + 1 < locs.size() ? locs.get(k + 1)[0] : fde.end;
                if (from >= to) {
                    continue; // readelf shows a row that a later one at the same address replaces
                }
                long want = signal ? UnwindRow.of(from, UnwindRow.CFA_SIGNAL, 0) : expected(states.get(k), cols, elf, from);
                for (long at : new long[] {from, to - 1}) {
                    long got = table.find(at);
                    compared++;
                    if (signal) {
                        if (UnwindRow.cfa(got) != UnwindRow.CFA_SIGNAL) {
                            bad.add(String.format("%x: readelf signal frame FDE, table %s", at, UnwindRow.toString(got)));
                        }
                    } else if (UnwindRow.rule(got) != UnwindRow.rule(want)) {
                        bad.add(String.format("%x: readelf %s -> %s, table %s", at, String.join(" ", states.get(k)),
                                UnwindRow.toString(want), UnwindRow.toString(got)));
                    }
                }
            }
        }
        ranges.sort((a, b) -> Long.compare(a[0], b[0]));
        long maxEnd = -1;
        for (int k = 0; k < ranges.size(); k++) {
            maxEnd = Math.max(maxEnd, ranges.get(k)[1]);
            long next = k + 1 < ranges.size() ? ranges.get(k + 1)[0] : Long.MAX_VALUE;
            if (next > maxEnd) {
                long got = table.find(maxEnd);
                compared++;
                if (UnwindRow.cfa(got) != UnwindRow.CFA_NO_INFO) {
                    bad.add(String.format("%x: end of an FDE before a gap, table %s", maxEnd, UnwindRow.toString(got)));
                }
            }
        }
        return new Result(counted, compared, bad);
    }

    /** A line's fields; readelf prints a register rule as "r10 (r10)", one field here. */
    private static String[] split(String line) {
        return line.trim().replaceAll("(\\S+) \\((\\w+)\\)", "$1($2)").split("\\s+");
    }

    private static boolean isSigreturn(ElfSections elf, long pc) {
        byte[] b = elf.bytesAt(pc, CfiParser.SIGRETURN.length);
        return b != null && java.util.Arrays.equals(b, CfiParser.SIGRETURN);
    }

    /** The row readelf's printed state classifies to (docs/unwind.md), at {@code pc}. */
    static long expected(String[] state, String[] cols, ElfSections elf, long pc) {
        String cfa = state[1];
        String ra = null;
        String rbp = "u";
        for (int c = 2; c < cols.length && c < state.length; c++) {
            if (cols[c].equals("ra")) {
                ra = state[c];
            } else if (cols[c].equals("rbp")) {
                rbp = state[c];
            }
        }
        if ("u".equals(ra)) {
            return UnwindRow.of(pc, UnwindRow.CFA_STOP, 0);
        }
        if (!"c-8".equals(ra)) {
            return UnwindRow.of(pc, UnwindRow.CFA_UNSUPPORTED, 0);
        }
        int cfaField;
        if (cfa.equals("exp")) {
            String section = elf.sectionNameAt(pc);
            cfaField = section != null && section.startsWith(".plt") ? UnwindRow.CFA_PLT : UnwindRow.CFA_UNSUPPORTED;
        } else if (cfa.startsWith("rsp+") || cfa.startsWith("rbp+")) {
            long off = Long.parseLong(cfa.substring(4));
            if (off % 8 != 0 || off / 8 > UnwindRow.MAX_CFA_EIGHTHS) {
                return UnwindRow.of(pc, UnwindRow.CFA_UNSUPPORTED, 0);
            }
            cfaField = UnwindRow.cfa(cfa.startsWith("rsp") ? UnwindRow.RSP : UnwindRow.RBP, off);
        } else {
            return UnwindRow.of(pc, UnwindRow.CFA_UNSUPPORTED, 0);
        }
        if (cfaField == UnwindRow.CFA_UNSUPPORTED) {
            return UnwindRow.of(pc, cfaField, 0);
        }
        int rbpField = 0;
        if (rbp.startsWith("c")) {
            long off = Long.parseLong(rbp.substring(1));
            if (off == 0 || off % 8 != 0 || off / 8 < Short.MIN_VALUE || off / 8 > Short.MAX_VALUE) {
                return UnwindRow.of(pc, UnwindRow.CFA_UNSUPPORTED, 0);
            }
            rbpField = (int) (off / 8);
        } else if (!rbp.equals("u") && !rbp.equals("s")) {
            return UnwindRow.of(pc, UnwindRow.CFA_UNSUPPORTED, 0);
        }
        return UnwindRow.of(pc, cfaField, rbpField);
    }
}
