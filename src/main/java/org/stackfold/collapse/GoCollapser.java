package org.stackfold.collapse;

import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.function.Consumer;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * Go profiles printed by {@code go tool pprof -raw} (the text form of {@code profile.proto}), as
 * {@code stackcollapse-go.pl} reads them: after {@code Samples:}, each line
 * {@code COUNT VALUE...: LOC LOC ...} is a stack of location ids, leaf first, weighted by its
 * first value; after {@code Locations}, each {@code ID: 0xADDR [M=N] NAME ...} line names a
 * location by its (first) function; the input ends at {@code Mappings}. A location without a name
 * keeps its id as the frame name. Lines starting with {@code #} are skipped.
 *
 * <p>perl needs exactly two values before the colon (a CPU profile's count and nanoseconds) and
 * skips samples with more; here every sample counts its first value, whatever the number of values.
 */
public final class GoCollapser implements Collapser {
    @Override
    public String name() {
        return "go";
    }

    @Override
    public boolean detect(byte[] head, int length) {
        boolean samples = false;
        for (String line : Detect.lines(head, length)) {
            if (line.startsWith("PeriodType: ") || line.startsWith("Samples:") && !samples) {
                samples = true;
            } else if (samples && line.startsWith("Locations")) {
                return true;
            }
        }
        return false;
    }

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        Problems problems = Problems.of(in, options);
        Stacks stacks = new Stacks();
        // Samples, stored until the locations that name them are read: ids leaf first.
        long[] ids = new long[1024];
        int nIds = 0;
        int[] ends = new int[256];
        long[] counts = new long[256];
        int nSamples = 0;
        LocationNames names = new LocationNames();
        int section = 0; // 0 before Samples:, 1 samples, 2 locations
        try (LineReader r = new LineReader(in.stream(), in.name())) {
            lines:
            while (r.next()) {
                byte[] b = r.buffer();
                int s = r.start();
                int e = Bytes.lineEnd(r);
                if (e > s && b[s] == '#') {
                    continue;
                }
                switch (section) {
                    case 0 -> {
                        if (Bytes.contains(b, s, e, "Samples:")) {
                            section = 1;
                        }
                    }
                    case 1 -> {
                        int p = Bytes.skipSpace(b, s, e);
                        int countEnd = Bytes.skipDigits(b, p, e);
                        int colon = Bytes.indexOf(b, countEnd, e, ':');
                        if (countEnd > p && colon > 0 && isValues(b, countEnd, colon)
                                && colon + 1 < e && b[colon + 1] == ' ') {
                            long count = Bytes.parseCount(b, p, countEnd);
                            if (count < 0) {
                                problems.bad(r.lineNumber(), "sample count too large");
                                continue;
                            }
                            if (nSamples == counts.length) {
                                counts = Arrays.copyOf(counts, nSamples * 2);
                                ends = Arrays.copyOf(ends, nSamples * 2);
                            }
                            int q = colon + 2;
                            while (q < e) {
                                while (q < e && b[q] == ' ') {
                                    q++;
                                }
                                int idEnd = Bytes.skipDigits(b, q, e);
                                if (idEnd == q) {
                                    break; // perl's [0-9 ]+ ends here
                                }
                                long id = Bytes.parseCount(b, q, idEnd);
                                if (id < 0) {
                                    problems.bad(r.lineNumber(), "location id too large");
                                    nIds = nSamples == 0 ? 0 : ends[nSamples - 1];
                                    continue lines;
                                }
                                if (nIds == ids.length) {
                                    ids = Arrays.copyOf(ids, nIds * 2);
                                }
                                ids[nIds++] = id;
                                q = idEnd;
                            }
                            counts[nSamples] = count;
                            ends[nSamples++] = nIds;
                        } else if (Bytes.contains(b, s, e, "Locations")) {
                            section = 2;
                        }
                    }
                    default -> {
                        if (Bytes.contains(b, s, e, "Mappings")) {
                            break lines;
                        }
                        location(b, s, e, names, stacks);
                    }
                }
            }
        }
        int start = 0;
        for (int i = 0; i < nSamples; i++) {
            stacks.clear();
            for (int k = ends[i] - 1; k >= start; k--) {
                int frame = names.get(ids[k]);
                stacks.pushFrame(frame >= 0 ? frame : stacks.frame(Long.toString(ids[k])));
            }
            if (ends[i] > start) {
                stacks.add(counts[i]);
            }
            start = ends[i];
        }
        problems.finish(warnings);
        return stacks.profile();
    }

    /** {@code [ 0-9]} only: the other values between the count and the colon. */
    private static boolean isValues(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if ((b[i] < '0' || b[i] > '9') && !Text.isSpace(b[i])) {
                return false;
            }
        }
        return true;
    }

    /** perl's {@code ^\s*([0-9]*): 0x[0-9a-f]+ (M=[0-9]+ )?([^ ]+) .*}. */
    private static void location(byte[] b, int s, int e, LocationNames names, Stacks stacks) {
        int p = Bytes.skipSpace(b, s, e);
        int idEnd = Bytes.skipDigits(b, p, e);
        if (!Bytes.startsWith(b, idEnd, e, ": 0x")) {
            return;
        }
        int hex = idEnd + 4;
        int q = hex;
        while (q < e && (b[q] >= '0' && b[q] <= '9' || b[q] >= 'a' && b[q] <= 'f')) {
            q++;
        }
        if (q == hex || q >= e || b[q] != ' ') {
            return;
        }
        q++;
        int name = q;
        if (Bytes.startsWith(b, q, e, "M=")) {
            int m = Bytes.skipDigits(b, q + 2, e);
            if (m > q + 2 && m < e && b[m] == ' ') {
                int n = m + 1;
                int nEnd = Bytes.indexOf(b, n, e, ' ');
                // no function: the address names it (perl takes "M=N" for the name)
                addName(b, p, idEnd, nEnd > n ? n : hex - 2, nEnd > n ? nEnd : q - 1, names, stacks);
                return;
            }
        }
        int nameEnd = Bytes.indexOf(b, name, e, ' ');
        if (nameEnd > name) {
            addName(b, p, idEnd, name, nameEnd, names, stacks);
        }
    }

    private static void addName(byte[] b, int idStart, int idEnd, int from, int to, LocationNames names,
                                Stacks stacks) {
        long id = idEnd > idStart ? Bytes.parseCount(b, idStart, idEnd) : -1;
        if (id >= 0) {
            names.put(id, stacks.frame(b, from, to - from));
        }
    }

    /** Location id → frame id: an array for the small dense ids pprof assigns, a map beyond. */
    private static final class LocationNames {
        private static final int DENSE = 1 << 20;
        private int[] dense = new int[256];
        private final HashMap<Long, Integer> sparse = new HashMap<>();

        LocationNames() {
            Arrays.fill(dense, -1);
        }

        void put(long id, int frame) {
            if (id < DENSE) {
                if (id >= dense.length) {
                    int old = dense.length;
                    dense = Arrays.copyOf(dense, (int) Math.min(DENSE, Math.max(id + 1, old * 2L)));
                    Arrays.fill(dense, old, dense.length, -1);
                }
                dense[(int) id] = frame;
            } else {
                sparse.put(id, frame);
            }
        }

        int get(long id) {
            if (id < DENSE) {
                return id < dense.length ? dense[(int) id] : -1;
            }
            return sparse.getOrDefault(id, -1);
        }
    }
}
