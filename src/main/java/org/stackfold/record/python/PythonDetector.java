package org.stackfold.record.python;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds CPython in a live process from {@code /proc/PID/maps} and the mapped file: a mapping whose
 * file is named like {@code python3.X} or {@code libpython3.X.so…} and has a {@code .PyRuntime}
 * section or a {@code _PyRuntime} symbol (pyenv's shared builds, Debian's static
 * {@code /usr/bin/python3.11}, any {@code libpython} loaded by an embedding program). The version
 * comes from {@code _Py_DebugOffsets} (3.13+, cookie {@code xdebugpy} at the start of
 * {@code _PyRuntime}) or from the {@code Py_Version} symbol (3.11+). Reads the process's memory
 * and never stops or signals it.
 */
public final class PythonDetector {
    /** What detection found for one process. */
    public sealed interface Detection {
    }

    /** A supported CPython. */
    public record Found(PythonProcess process) implements Detection {
    }

    /** No CPython interpreter in this process. */
    public record NotPython() implements Detection {
    }

    /** CPython, but not one Stackfold can walk: the reason in one line (version, build). */
    public record Unsupported(String reason) implements Detection {
    }

    private static final Pattern NAME = Pattern.compile("(lib)?python(\\d+)(?:\\.(\\d+))?[a-z]*(\\.so.*)?");
    private static final byte[] COOKIE = "xdebugpy".getBytes(StandardCharsets.US_ASCII);
    static final String EVAL = "_PyEval_EvalFrameDefault";
    static final String EVAL_COLD = "_PyEval_EvalFrameDefault.cold";

    private PythonDetector() {
    }

    /** A file-backed mapping: the lowest one of its file. */
    private record Mapping(long start, long end, long offset, String path) {
    }

    public static Detection detect(int pid) throws IOException {
        return detect(pid, null);
    }

    /**
     * As {@link #detect(int)}, from {@code maps}, the text of {@code /proc/PID/maps} just read by the
     * caller (the unwind worker reads it anyway: one read a new process instead of two), or null to read it.
     */
    public static Detection detect(int pid, String maps) throws IOException {
        if (maps != null && !maps.contains("python")) {
            return new NotPython(); // no file named like CPython: most processes, decided without a look at a file
        }
        List<Mapping> candidates = candidates(pid, maps);
        if (candidates.isEmpty()) {
            return new NotPython();
        }
        String lastReason = null;
        try (ProcessMemory mem = ProcessMemory.open(pid)) {
            for (Mapping m : candidates) {
                PythonElf elf;
                try {
                    elf = PythonElf.open(elfPath(pid, m));
                } catch (IOException e) {
                    lastReason = "pid " + pid + ": cannot read " + m.path + ": " + e.getMessage();
                    continue;
                }
                Detection d = detect(pid, mem, m, elf);
                if (d instanceof Found || d instanceof Unsupported) {
                    return d;
                }
            }
        }
        return lastReason != null ? new Unsupported(lastReason) : new NotPython();
    }

    private static Detection detect(int pid, ProcessMemory mem, Mapping m, PythonElf elf) throws IOException {
        String base = m.path.substring(m.path.lastIndexOf('/') + 1);
        Map<String, PythonElf.Symbol> syms = elf.symbols(Set.of("_PyRuntime", "Py_Version", EVAL, EVAL_COLD));
        PythonElf.Section section = elf.section(".PyRuntime");
        PythonElf.Symbol runtimeSym = syms.get("_PyRuntime");
        if (section == null && runtimeSym == null) {
            return new NotPython();
        }
        long vaddr = elf.vaddrAtFileOffset(m.offset);
        if (vaddr < 0) {
            return new Unsupported("pid " + pid + ": " + m.path + ": no loadable segment at file offset " + m.offset);
        }
        long bias = m.start - vaddr;
        long runtime = bias + (section != null ? section.addr() : runtimeSym.value());
        byte[] head = mem.read(runtime, 24);
        PythonOffsets offsets;
        if (Arrays.equals(head, 0, 8, COOKIE, 0, 8)) {
            byte[] raw = mem.read(runtime, PythonOffsets.DEBUG_OFFSETS_READ);
            try {
                offsets = PythonOffsets.fromDebugOffsets(raw);
            } catch (IllegalArgumentException e) {
                return new Unsupported("pid " + pid + ": " + e.getMessage() + " (" + m.path + ")");
            }
        } else {
            PythonElf.Symbol pv = syms.get("Py_Version");
            int version;
            if (pv != null) {
                version = mem.u32(bias + pv.value());
            } else {
                Matcher n = NAME.matcher(base);
                String v = n.matches() && n.group(3) != null ? n.group(2) + "." + n.group(3) : "?";
                return new Unsupported("pid " + pid + ": CPython " + v + " (" + m.path
                        + "): only 3.11 to 3.15 are supported");
            }
            offsets = PythonOffsets.builtIn(version);
            if (offsets == null) {
                int minor = (version >>> 16) & 0xff;
                return new Unsupported("pid " + pid + ": CPython " + PythonOffsets.versionString(version) + " ("
                        + m.path + "): " + (minor >= 13 && version >>> 24 == 3
                        ? "no _Py_DebugOffsets at _PyRuntime" : "only 3.11 to 3.15 are supported"));
            }
        }
        PythonElf.Symbol eval = syms.get(EVAL);
        PythonElf.Symbol cold = syms.get(EVAL_COLD);
        long evalStart = eval != null ? bias + eval.value() : 0;
        long evalEnd = eval != null ? evalStart + Math.max(eval.size(), 1) : 0;
        long coldStart = cold != null ? bias + cold.value() : 0;
        long coldEnd = cold != null ? coldStart + Math.max(cold.size(), 1) : 0;
        if (eval != null && cold == null && eval.size() < SPLIT_ENTRY) {
            long[] body = body(elf, eval);
            if (body != null) {
                coldStart = bias + body[0];
                coldEnd = bias + body[1];
            }
        }
        return new Found(new PythonProcess(pid, m.path, base.startsWith("lib"), bias, runtime, offsets,
                evalStart, evalEnd, coldStart, coldEnd));
    }

    /** An eval loop smaller than this is only the entry of a function split in two (PGO builds). */
    static final long SPLIT_ENTRY = 16 << 10;
    /** The other part of a split eval loop is at least this large: the opcode cases. */
    static final long SPLIT_BODY = 32 << 10;

    /**
     * The other part of an eval loop that GCC's hot/cold partitioning split in two, in a stripped
     * file that has no {@code .cold} symbol (Debian's PGO builds of 3.14 and 3.15: the exported
     * {@code _PyEval_EvalFrameDefault} is 1184 bytes, the opcode cases are an 84 KiB part elsewhere
     * that it jumps to): the largest FDE of at least {@link #SPLIT_BODY} bytes that a direct
     * {@code jmp}/{@code call rel32} in the entry lands in. The byte scan may see false "instructions";
     * a false target only matters if it lands in a function that large, and the eval loop is
     * CPython's largest. x86-64 only; null if nothing qualifies.
     */
    static long[] body(PythonElf elf, PythonElf.Symbol eval) throws IOException {
        if (!"x86_64".equals(System.getProperty("os.arch")) && !"amd64".equals(System.getProperty("os.arch"))) {
            return null;
        }
        byte[] code = elf.bytesAt(eval.value(), (int) eval.size());
        if (code == null) {
            return null;
        }
        List<long[]> fdes = elf.fdeRanges();
        long[] best = null;
        for (int i = 0; i + 5 <= code.length; i++) {
            int op = code[i] & 0xff;
            if (op != 0xe9 && op != 0xe8) {
                continue;
            }
            int rel = (code[i + 1] & 0xff) | (code[i + 2] & 0xff) << 8 | (code[i + 3] & 0xff) << 16 | code[i + 4] << 24;
            long target = eval.value() + i + 5 + rel;
            if (target >= eval.value() && target < eval.value() + eval.size()) {
                continue;
            }
            for (long[] f : fdes) {
                if (target >= f[0] && target < f[1] && f[1] - f[0] >= SPLIT_BODY
                        && (best == null || f[1] - f[0] > best[1] - best[0])) {
                    best = f;
                }
            }
        }
        return best;
    }

    /** The file as the process sees it: through its root (containers), or the mapping itself if deleted. */
    private static Path elfPath(int pid, Mapping m) {
        if (m.path.endsWith(" (deleted)")) {
            return Path.of(String.format("/proc/%d/map_files/%x-%x", pid, m.start, m.end));
        }
        Path inRoot = Path.of("/proc/" + pid + "/root" + m.path);
        return Files.isReadable(inRoot) ? inRoot : Path.of(m.path);
    }

    /** Mappings of files named like CPython, libpython first (an embedding program's executable is not it). */
    private static List<Mapping> candidates(int pid, String maps) throws IOException {
        List<String> lines;
        try {
            lines = maps != null ? maps.lines().toList()
                    : Files.readAllLines(Path.of("/proc/" + pid + "/maps"), StandardCharsets.ISO_8859_1);
        } catch (NoSuchFileException e) {
            throw new IOException("pid " + pid + ": no such process");
        }
        Map<String, Mapping> lowest = new LinkedHashMap<>();
        java.util.Set<String> executable = new java.util.HashSet<>();
        for (String line : lines) {
            int slash = line.indexOf('/');
            if (slash < 0) {
                continue;
            }
            String path = line.substring(slash);
            String file = path.endsWith(" (deleted)") ? path.substring(0, path.length() - 10) : path;
            String base = file.substring(file.lastIndexOf('/') + 1);
            if (!NAME.matcher(base).matches()) {
                continue;
            }
            String[] f = line.substring(0, slash).trim().split("\\s+");
            if (f.length > 1 && f[1].indexOf('x') >= 0) {
                executable.add(path);
            }
            if (lowest.containsKey(path)) {
                continue;
            }
            int dash = f[0].indexOf('-');
            lowest.put(path, new Mapping(Long.parseUnsignedLong(f[0].substring(0, dash), 16),
                    Long.parseUnsignedLong(f[0].substring(dash + 1), 16), Long.parseUnsignedLong(f[2], 16), path));
        }
        List<Mapping> libs = new ArrayList<>();
        List<Mapping> others = new ArrayList<>();
        for (Mapping m : lowest.values()) {
            if (!executable.contains(m.path)) {
                continue; // mapped as data (a reader such as this recorder's own ELF parser), not run
            }
            (m.path.substring(m.path.lastIndexOf('/') + 1).startsWith("lib") ? libs : others).add(m);
        }
        libs.addAll(others);
        return libs;
    }
}
