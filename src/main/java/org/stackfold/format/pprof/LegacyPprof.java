package org.stackfold.format.pprof;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.ProfileFormat;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameKind;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/**
 * The pprof formats before profile.proto, as {@code go tool pprof} reads them (its
 * {@code profile/legacy_profile.go}): gperftools' binary CPU profile (32- or 64-bit words, either byte
 * order), heap text ({@code heap profile: ... @ heap_v2/RATE}, growthz, fragmentationz; v2 samples
 * unsampled as pprof does), contention text ({@code --- contentionz}, Go's {@code --- mutex:}/{@code
 * --- contention:}), threadz and Go's count profiles ({@code goroutine profile: total N}). The files
 * hold addresses only: each frame is its address as pprof shows an unsymbolized location
 * ({@code 0x42ef04}; return addresses adjusted by -1 onto the call as pprof does). pprof's Java
 * variants ({@code format = java}) are named in the error, not read. Read only.
 *
 * <p>Option {@code sample-type}: a sample type by name or index (default: the last, as pprof).
 */
public final class LegacyPprof implements ProfileFormat {
    private static final Pattern HEAP_HEADER = Pattern.compile(
            "heap profile: *(\\d+): *(\\d+) *\\[ *(\\d+): *(\\d+) *\\] *@ *(heap[_a-z0-9]*)/?(\\d*)");
    private static final Pattern HEAP_SAMPLE = Pattern.compile(
            "(-?\\d+): *(-?\\d+) *\\[ *(\\d+): *(\\d+) *] @([ x0-9a-f]*)");
    private static final Pattern GROWTH_HEADER = Pattern.compile(
            "heap profile: *(\\d+): *(\\d+) *\\[ *(\\d+): *(\\d+) *\\] @ (growthz?|fragmentationz?)");
    private static final Pattern CONTENTION_SAMPLE = Pattern.compile("(\\d+) *(\\d+) @([ x0-9a-f]*)");
    private static final Pattern COUNT_START = Pattern.compile("(\\S+) profile: total \\d+");
    private static final Pattern COUNT = Pattern.compile("(\\d+) @(( 0x[0-9a-f]+)+)");
    private static final Pattern THREADZ_START = Pattern.compile("--- threadz \\d+ ---");
    private static final Pattern THREAD_START = Pattern.compile("--- Thread ([0-9a-fA-F]+) \\(name: (.*)/(\\d+)\\) stack: ---");
    private static final Pattern HEX = Pattern.compile("0x[0-9a-f]+");
    private static final String[] MAP_SENTINELS = {"--- Memory map: ---", "MAPPED_LIBRARIES:"};

    @Override
    public String name() {
        return "pprof-legacy";
    }

    @Override
    public List<String> extensions() {
        return List.of();
    }

    @Override
    public boolean canWrite() {
        return false;
    }

    @Override
    public void write(Profile profile, OutputStream out, FormatOptions options) {
        throw new UnsupportedOperationException("pprof-legacy is read only");
    }

    /** The kind of legacy profile the head shows, or null. */
    static String kind(byte[] head, int length) {
        if (cpuWordSize(head, length) != 0) {
            return "cpu";
        }
        String text = new String(head, 0, Math.min(length, 512), StandardCharsets.ISO_8859_1);
        for (String line : text.split("\n", -1)) {
            String l = line.strip();
            if (l.isEmpty() || l.startsWith("#")) {
                continue;
            }
            if (l.startsWith("heap profile:")) {
                return "heap";
            }
            if (l.startsWith("--- contentionz ") || l.startsWith("--- mutex:") || l.startsWith("--- contention:")) {
                return "contention";
            }
            if (l.startsWith("--- heapz ") || l.startsWith("--- contentionz ")) {
                return "java";
            }
            if (THREADZ_START.matcher(l).matches() || THREAD_START.matcher(l).matches()) {
                return "thread";
            }
            if (COUNT_START.matcher(l).matches()) {
                return "count";
            }
            return null;
        }
        return null;
    }

    @Override
    public boolean sniff(byte[] head, int length) {
        return kind(head, length) != null;
    }

    /** 4 or 8 (negative: big-endian) where the head is a gperftools CPU profile's header (0, 3, 0|1, period, 0). */
    private static int cpuWordSize(byte[] b, int length) {
        for (int size : new int[] {4, -4, 8, -8}) {
            int w = Math.abs(size);
            if (length < 5 * w) {
                continue;
            }
            long n1 = word(b, 0, size), n2 = word(b, w, size), n3 = word(b, 2 * w, size);
            long n4 = word(b, 3 * w, size), n5 = word(b, 4 * w, size);
            if (n1 == 0 && n2 == 3 && (n3 == 0 || n3 == 1) && n4 != 0 && n5 == 0) {
                return size;
            }
        }
        return 0;
    }

    private static long word(byte[] b, int at, int size) {
        long v = 0;
        int w = Math.abs(size);
        for (int i = 0; i < w; i++) {
            int shift = size > 0 ? 8 * i : 8 * (w - 1 - i);
            v |= (b[at + i] & 0xffL) << shift;
        }
        return v;
    }

    @Override
    public Profile read(Input in, FormatOptions options) throws IOException {
        MemorySegment seg = in.bytes();
        if (seg.byteSize() > Integer.MAX_VALUE - 16) {
            throw new InputException(in.name() + ": legacy pprof files over 2 GiB are not supported");
        }
        byte[] data = seg.toArray(ValueLayout.JAVA_BYTE);
        String kind = kind(data, Math.min(data.length, 4096));
        Samples s = new Samples(in.name());
        if ("cpu".equals(kind)) {
            int size = cpuWordSize(data, data.length);
            if (word(data, 2 * Math.abs(size), size) == 1) {
                throw new InputException(in.name() + ": a legacy Java CPU profile (pprof's javaCPUProfile): "
                        + "not supported; convert it with go tool pprof -proto");
            }
            try {
                cpu(data, size, s);
            } catch (ArithmeticException e) {
                throw new InputException(in.name() + ": legacy pprof CPU profile: count times period past 64 bits");
            }
        } else if ("java".equals(kind)) {
            throw new InputException(in.name() + ": a legacy Java heap/contention profile (pprof's format = java): "
                    + "not supported; convert it with go tool pprof -proto");
        } else if (kind == null) {
            throw new InputException(in.name() + ": not a legacy pprof profile");
        } else {
            String[] lines = new String(data, StandardCharsets.UTF_8).split("\r?\n", -1);
            switch (kind) {
                case "heap" -> heap(lines, s);
                case "contention" -> contention(lines, s);
                case "thread" -> thread(lines, s);
                default -> count(lines, s);
            }
        }
        try {
            return s.profile(options.get("sample-type", null));
        } catch (ArithmeticException e) {
            throw new InputException(in.name() + ": legacy pprof: sample values add up past 64 bits");
        }
    }

    /** Samples as pprof's legacy parser collects them: addresses leaf first, one value per sample type. */
    private static final class Samples {
        final String source;
        final List<String[]> types = new ArrayList<>();
        final List<long[]> addrs = new ArrayList<>();
        final List<long[]> values = new ArrayList<>();

        Samples(String source) {
            this.source = source;
        }

        void types(String... typeUnit) {
            for (int i = 0; i < typeUnit.length; i += 2) {
                types.add(new String[] {typeUnit[i], typeUnit[i + 1]});
            }
        }

        void add(long[] stack, long... value) {
            addrs.add(stack);
            values.add(value);
        }

        InputException error(int line, String message) {
            return new InputException(source + ":" + line + ": " + message);
        }

        Profile profile(String sampleType) {
            int col = types.size() - 1;
            if (sampleType != null) {
                col = -1;
                for (int i = 0; i < types.size(); i++) {
                    if (types.get(i)[0].equals(sampleType)) {
                        col = i;
                    }
                }
                if (col < 0 && sampleType.matches("\\d{1,9}") && Integer.parseInt(sampleType) < types.size()) {
                    col = Integer.parseInt(sampleType);
                }
                if (col < 0) {
                    throw new InputException(source + ": pprof: no sample type '" + sampleType + "'; the file has "
                            + types.stream().map(t -> t[0]).toList());
                }
            }
            FrameTable frames = new FrameTable();
            CallTree tree = new CallTree(1);
            Map<Long, Integer> ids = new HashMap<>();
            int[] stack = new int[64];
            for (int i = 0; i < addrs.size(); i++) {
                long v = values.get(i)[col];
                if (v == 0) {
                    continue;
                }
                long[] a = addrs.get(i);
                if (a.length > stack.length) {
                    stack = Arrays.copyOf(stack, a.length * 2);
                }
                for (int k = 0; k < a.length; k++) {
                    stack[a.length - 1 - k] = ids.computeIfAbsent(a[k],
                            x -> frames.frame("0x" + Long.toHexString(x), FrameKind.UNKNOWN));
                }
                tree.addSelf(tree.path(stack, 0, a.length), 0, v);
            }
            String[] t = types.get(col);
            return new Profile(frames, tree, List.of(new Profile.ValueType(t[0], t[1])));
        }
    }

    private static void cpu(byte[] b, int size, Samples s) {
        int w = Math.abs(size);
        long period = word(b, 3 * w, size) * 1000;
        s.types("samples", "count", "cpu", "nanoseconds");
        int at = 5 * w;
        while (at + 2 * w <= b.length) {
            long count = word(b, at, size);
            long n = word(b, at + w, size);
            if (n < 0 || n > (b.length - at - 2 * w) / w) {
                throw new InputException(s.source + ": legacy pprof CPU profile: a stack of " + Long.toUnsignedString(n)
                        + " words at byte offset " + at + " runs past the end of the file");
            }
            long[] addrs = new long[(int) n];
            for (int i = 0; i < n; i++) {
                addrs[i] = word(b, at + (2 + i) * w, size) - (i > 0 ? 1 : 0);
            }
            at += (int) (2 + n) * w;
            if (count == 0 && n == 1 && addrs[0] == 0) {
                break; // the end-of-data marker; /proc/self/maps text follows
            }
            s.add(addrs, count, Math.multiplyExact(count, period));
        }
        // pprof: a frame the signal handler pushed shows as the same second-to-leaf address in (nearly)
        // all samples; up to two such are removed.
        int margin = s.addrs.size() / 32;
        for (int iter = 0; iter < 2; iter++) {
            Map<Long, Integer> second = new HashMap<>();
            for (long[] a : s.addrs) {
                if (a.length > 1) {
                    second.merge(a[1], 1, Integer::sum);
                }
            }
            for (Map.Entry<Long, Integer> e : second.entrySet()) {
                if (e.getValue() >= s.addrs.size() - margin) {
                    for (int i = 0; i < s.addrs.size(); i++) {
                        long[] a = s.addrs.get(i);
                        if (a.length > 1 && a[1] == e.getKey()) {
                            s.addrs.set(i, removeSecond(a));
                        }
                    }
                    break;
                }
            }
        }
        dedupLeaf(s);
    }

    /** pprof's cleanupDuplicateLocations: a leaf seen twice (once adjusted by -1) is one frame. */
    private static void dedupLeaf(Samples s) {
        for (int i = 0; i < s.addrs.size(); i++) {
            long[] a = s.addrs.get(i);
            if (a.length > 1 && a[0] == a[1] + 1) {
                s.addrs.set(i, removeSecond(a));
            }
        }
    }

    private static long[] removeSecond(long[] a) {
        long[] r = new long[a.length - 1];
        r[0] = a[0];
        System.arraycopy(a, 2, r, 1, a.length - 2);
        return r;
    }

    private static boolean skip(String line) {
        String t = line.strip();
        return t.isEmpty() || t.charAt(0) == '#';
    }

    private static boolean mapSentinel(String line) {
        for (String m : MAP_SENTINELS) {
            if (line.contains(m)) {
                return true;
            }
        }
        return false;
    }

    private static long[] hex(String text, Samples s, int line, boolean adjustAll) {
        Matcher m = HEX.matcher(text);
        List<Long> out = new ArrayList<>();
        while (m.find()) {
            try {
                long a = Long.parseUnsignedLong(m.group().substring(2), 16);
                out.add(adjustAll || !out.isEmpty() ? a - 1 : a);
            } catch (NumberFormatException e) {
                throw s.error(line, "address " + m.group() + " does not fit 64 bits");
            }
        }
        return out.stream().mapToLong(Long::longValue).toArray();
    }

    private static long parse(String v, Samples s, int line) {
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw s.error(line, "number " + v + " does not fit 64 bits");
        }
    }

    private static void heap(String[] lines, Samples s) {
        int first = 0;
        while (first < lines.length && skip(lines[first])) {
            first++;
        }
        String header = lines[first];
        Matcher h = HEAP_HEADER.matcher(header);
        boolean v2 = false;
        boolean alloc = false;
        long rate = 1;
        if (h.find()) {
            alloc = (!h.group(3).equals(h.group(1)) && !h.group(3).equals("0"))
                    || (!h.group(4).equals(h.group(2)) && !h.group(4).equals("0"));
            long period = h.group(6).isEmpty() ? 0 : parse(h.group(6), s, first + 1);
            switch (h.group(5)) {
                case "heapz_v2", "heap_v2" -> {
                    v2 = true;
                    rate = period;
                }
                case "heapprofile" -> rate = 1;
                case "heap" -> {
                    v2 = true;
                    rate = period / 2;
                }
                default -> throw s.error(first + 1, "legacy pprof heap profile of unknown kind '" + h.group(5) + "'");
            }
        } else if (!GROWTH_HEADER.matcher(header).find()) {
            throw s.error(first + 1, "not a legacy pprof heap profile header");
        }
        if (alloc) {
            s.types("alloc_objects", "count", "alloc_space", "bytes", "inuse_objects", "count", "inuse_space", "bytes");
        } else {
            s.types("objects", "count", "space", "bytes");
        }
        for (int i = first + 1; i < lines.length; i++) {
            String line = lines[i].strip();
            if (skip(line)) {
                continue;
            }
            if (mapSentinel(line)) {
                break;
            }
            Matcher m = HEAP_SAMPLE.matcher(line);
            if (!m.find()) {
                throw s.error(i + 1, "not a heap profile sample (COUNT: BYTES [COUNT: BYTES] @ ADDRESSES)");
            }
            long[] v = new long[alloc ? 4 : 2];
            int k = 0;
            if (alloc) {
                k = heapValues(m.group(3), m.group(4), v, k, v2, rate, s, i + 1);
            }
            heapValues(m.group(1), m.group(2), v, k, v2, rate, s, i + 1);
            s.add(hex(m.group(5), s, i + 1, true), v);
        }
    }

    private static int heapValues(String c, String b, long[] v, int k, boolean v2, long rate, Samples s, int line) {
        long count = parse(c, s, line);
        long size = parse(b, s, line);
        if (count == 0 && size != 0) {
            throw s.error(line, "count 0 with " + size + " bytes");
        }
        if (count != 0 && v2 && size != 0 && rate > 1) {
            // pprof's scaleHeapSample: divided by the probability 1-exp(-avg/rate) of being sampled
            double scale = 1 / (1 - Math.exp(-((double) size / count) / rate));
            count = (long) (count * scale);
            size = (long) (size * scale);
        } else if (count != 0 && v2 && size == 0) {
            count = 0;
        }
        v[k] = count;
        v[k + 1] = size;
        return k + 2;
    }

    private static void contention(String[] lines, Samples s) {
        s.types("contentions", "count", "delay", "nanoseconds");
        long period = 1;
        long cpuHz = 0;
        int i = 1;
        for (; i < lines.length; i++) {
            String line = lines[i].strip();
            if (skip(line)) {
                continue;
            }
            if (line.startsWith("---")) {
                break;
            }
            int eq = line.indexOf('=');
            if (eq < 0) {
                break;
            }
            String key = line.substring(0, eq).strip();
            String val = line.substring(eq + 1).strip();
            switch (key) {
                case "cycles/second" -> cpuHz = parse(val, s, i + 1);
                case "sampling period" -> period = parse(val, s, i + 1);
                case "ms since reset", "discarded samples" -> { }
                case "format", "resolution" -> throw s.error(i + 1,
                        "a legacy Java contention profile (pprof's format = java): not supported; convert it with go tool pprof -proto");
                default -> throw s.error(i + 1, "unknown contention profile attribute '" + key + "'");
            }
        }
        for (; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.startsWith("---")) {
                break;
            }
            if (skip(line)) {
                continue;
            }
            Matcher m = CONTENTION_SAMPLE.matcher(line);
            if (!m.find()) {
                throw s.error(i + 1, "not a contention sample (CYCLES COUNT @ ADDRESSES)");
            }
            long v1 = parse(m.group(1), s, i + 1);
            long v2 = parse(m.group(2), s, i + 1);
            if (period > 0) {
                if (cpuHz > 0) {
                    v1 = (long) (v1 * (double) period / (cpuHz / 1e9));
                }
                v2 = v2 * period;
            }
            s.add(hex(m.group(3), s, i + 1, true), v2, v1);
        }
    }

    private static void thread(String[] lines, Samples s) {
        s.types("thread", "count");
        int i = 0;
        while (i < lines.length && skip(lines[i])) {
            i++;
        }
        if (THREADZ_START.matcher(lines[i].strip()).find()) {
            for (i++; i < lines.length; i++) {
                if (mapSentinel(lines[i]) || lines[i].startsWith("-")) {
                    break;
                }
            }
        }
        while (i < lines.length && !mapSentinel(lines[i])) {
            String line = lines[i];
            if (line.startsWith("---- no stack trace for")) {
                break;
            }
            if (!THREAD_START.matcher(line).find()) {
                if (line.isBlank()) {
                    i++;
                    continue;
                }
                throw s.error(i + 1, "not a thread header (--- Thread ID (name: NAME/TID) stack: ---)");
            }
            List<Long> addrs = new ArrayList<>();
            boolean same = false;
            for (i++; i < lines.length; i++) {
                String t = lines[i].strip();
                if (t.isEmpty()) {
                    continue;
                }
                if (t.startsWith("---")) {
                    break;
                }
                if (t.contains("same as previous thread")) {
                    same = true;
                    continue;
                }
                for (long a : hex(t, s, i + 1, true)) {
                    addrs.add(a);
                }
            }
            if (same || addrs.isEmpty()) {
                if (!s.values.isEmpty()) {
                    s.values.get(s.values.size() - 1)[0]++;
                }
                continue;
            }
            long[] a = addrs.stream().mapToLong(Long::longValue).toArray();
            a[0]++; // the leaf is no return address: not adjusted
            s.add(a, 1);
        }
        dedupLeaf(s);
    }

    private static void count(String[] lines, Samples s) {
        int i = 0;
        while (i < lines.length && skip(lines[i])) {
            i++;
        }
        Matcher start = COUNT_START.matcher(lines[i].strip());
        if (!start.matches()) {
            throw s.error(i + 1, "not a Go count profile header (NAME profile: total N)");
        }
        s.types(start.group(1), "count");
        for (i++; i < lines.length; i++) {
            String line = lines[i];
            if (skip(line)) {
                continue;
            }
            if (line.startsWith("---")) {
                break;
            }
            Matcher m = COUNT.matcher(line);
            if (!m.matches()) {
                throw s.error(i + 1, "not a count sample (N @ ADDRESSES)");
            }
            s.add(hex(m.group(2), s, i + 1, true), parse(m.group(1), s, i + 1));
        }
    }
}
