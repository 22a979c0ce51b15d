package org.stackfold.collapse.perf;

import org.stackfold.perf.PerfBytes;
import java.util.Arrays;
import org.stackfold.model.ByteWords;

/**
 * Parses the first line of a {@code perf script} sample, the event line, in place on bytes:
 *
 * <pre>
 *   COMM  PID[/TID]  [CPU]  TIME:  [PERIOD]  EVENT:  [TRACE DATA | ADDR SYMBOL (MODULE)]
 *   java 24636/25607 [000] 4794564.109216:     100 cycles:
 *   V8 WorkerThread 25607 4794564.109216: cycles:
 *   perf 9 [001] 1.000001: sched:sched_switch: prev_comm=perf prev_pid=9 ...
 *              false 64414 20110.539270:      34467 cycles:u:  ffffffff9aa3c8de [unknown] ([unknown])
 * </pre>
 *
 * <p>Why not the peers' rule (first all-digit word after the comm): a comm may itself contain
 * digit words ({@code "Web Content 2"}), so where the line has a timestamp the PID is the word
 * before it (skipping {@code [CPU]}), and everything before the PID is the comm. Without a
 * timestamp we fall back to the first all-digit word, as the peers do. The event is the first word
 * after that ending in {@code :} (tracepoints keep their {@code subsystem:name}); the period is
 * the all-digit word just before it.
 */
final class EventLine {
    private static final int MAX_TOKENS = 64;
    private final int[] ts = new int[MAX_TOKENS];
    private final int[] te = new int[MAX_TOKENS];

    int commStart;
    int commEnd;
    int pidStart;
    int pidEnd;
    /** -1 where perf printed only one id (the TID). */
    int tidStart;
    int tidEnd;
    /** Event name without the trailing colon, e.g. {@code cycles:u}; eventStart == -1 if none. */
    int eventStart;
    int eventEnd;
    /** End of the event name without perf's modifier suffix ({@code cycles:u} -> {@code cycles}). */
    int baseEventEnd;
    /** The sample period, or -1. */
    long period;
    /** Start of what follows the event word (trace data or a single frame), or the line end. */
    int restStart;
    /**
     * True where stackcollapse-perf.pl sees the event and period too: its pattern wants the event
     * word last on the line and right after a word ending in ':' (the timestamp), optionally with
     * the period between. Without a timestamp perl neither filters the sample nor weights it.
     */
    boolean perlSeesEvent;
    /** The line has a {@code TIME:} word: strong evidence of an event line, even when indented. */
    boolean hasTimestamp;
    /** Where hasTimestamp: the {@code SECS.FRAC} of the timestamp word (without its colon). */
    int timeStart;
    int timeEnd;
    /** A side-band record ({@code perf script --show-mmap-events} etc.: {@code PERF_RECORD_MMAP2 ...}), not a sample. */
    boolean sideBand;

    private static final int DIGITS = 1;
    private static final int PID = 2;
    private static final int CPU = 4;
    private static final int TIME = 8;
    private static final int COLON = 16;
    private final int[] kind = new int[MAX_TOKENS];
    private final int[] slashAt = new int[MAX_TOKENS];

    /**
     * Splits the line into words and classifies each in the same pass (all digits, PID or
     * PID/TID, [CPU], TIME:, ends in ':'), so the rules below are lookups, not rescans.
     */
    private int tokenize(byte[] b, int s, int e) {
        int n = 0;
        int i = s;
        while (n < MAX_TOKENS) {
            while (i < e && PerfBytes.isSpace(b[i])) {
                i++;
            }
            if (i >= e) {
                break;
            }
            int start = i;
            int digits = 0;
            int dots = 0;
            int slashes = 0;
            int slash = -1;
            while (i < e) {
                byte c = b[i];
                if (c >= '0' && c <= '9') {
                    digits++;
                } else if (c == '.') {
                    dots++;
                } else if (c == '/') {
                    slashes++;
                    slash = i;
                } else if (PerfBytes.isSpace(c)) {
                    break;
                }
                i++;
            }
            int len = i - start;
            byte first = b[start];
            byte last = b[i - 1];
            int k = 0;
            if (digits == len) {
                k = DIGITS | PID;
            } else if (slashes == 1 && digits == len - 1 && first != '/' && last != '/') {
                k = PID;
            }
            if (len >= 3 && first == '[' && last == ']' && digits == len - 2) {
                k |= CPU;
            }
            if (last == ':' && len > 1) {
                k |= COLON;
                if (len >= 4 && dots == 1 && digits == len - 2 && first != '.' && b[i - 2] != '.') {
                    k |= TIME;
                }
            }
            ts[n] = start;
            te[n] = i;
            kind[n] = k;
            slashAt[n] = slash;
            n++;
        }
        return n;
    }

    /** Comms of recent event lines, most recently used first, for {@link #parseUsual}. */
    private final byte[][] comms = new byte[16][];

    /**
     * The comm of the last line {@link #parse} read the usual way, as one of the remembered comms
     * (the same array each time for the same comm, never changed), else null: a caller may key what
     * it derives from the comm on this array's identity.
     */
    byte[] usualComm;

    /** True where b[s, e) is an event line; fields are set. */
    boolean parse(byte[] b, int s, int e) {
        usualComm = null;
        return parseUsual(b, s, e) || parseAny(b, s, e);
    }

    /**
     * The usual shape, {@code COMM PID[/TID] [[CPU]] SECS.FRAC: [PERIOD] EVENT:[ REST]}, where COMM is
     * the comm of a recent event line: parsed in one pass without the word table (event lines are a
     * twentieth of the lines and were a tenth of the time). The rules of {@link #parseAny} give the
     * same fields: COMM (already seen to hold no timestamp word) is followed by the first
     * timestamp word, so that word, the PID before it and the event word after it are the ones
     * parseAny picks. Anything else is left to parseAny.
     */
    private boolean parseUsual(byte[] b, int s, int e) {
        byte first = b[s];
        for (int k = 0; k < comms.length; k++) {
            byte[] c = comms[k];
            if (c == null) {
                return false;
            }
            int i = s + c.length;
            if (c[0] == first && i < e && PerfBytes.isSpace(b[i]) && Arrays.equals(c, 0, c.length, b, s, i)
                    && afterComm(b, s, i, e)) {
                if (k > 0) { // most recently used first
                    System.arraycopy(comms, 0, comms, 1, k);
                    comms[0] = c;
                }
                usualComm = c;
                return true;
            }
        }
        return false;
    }

    /** The rest of a usual event line whose comm is b[s, commEnd), a space following; false where it is not usual. */
    private boolean afterComm(byte[] b, int s, int commEnd, int e) {
        int i = skipSpaces(b, commEnd, e);
        int ps = i;
        i = digits(b, i, e);
        if (i == ps) {
            return false;
        }
        int slash = -1;
        if (i < e && b[i] == '/') {
            slash = i;
            int t = digits(b, i + 1, e);
            if (t == i + 1) {
                return false;
            }
            i = t;
        }
        int pe = i;
        if (i == e || !PerfBytes.isSpace(b[i])) {
            return false;
        }
        i = skipSpaces(b, i, e);
        if (i < e && b[i] == '[') { // [CPU]
            int t = digits(b, i + 1, e);
            if (t == i + 1 || t >= e || b[t] != ']' || t + 1 == e || !PerfBytes.isSpace(b[t + 1])) {
                return false;
            }
            i = skipSpaces(b, t + 1, e);
        }
        int t = digits(b, i, e); // SECS.FRAC:
        if (t == i || t >= e || b[t] != '.') {
            return withoutTimestamp(b, s, commEnd, e, ps, pe, slash, i);
        }
        int f = digits(b, t + 1, e);
        if (f == t + 1 || f >= e || b[f] != ':' || (f + 1 < e && !PerfBytes.isSpace(b[f + 1]))) {
            return false;
        }
        if (!periodAndEvent(b, skipSpaces(b, f + 1, e), e)
                || sideBandWord(b, eventStart, e) || sideBandWord(b, restStart, e)) {
            return false; // parseAny's side-band test may look that far
        }
        set(b, s, commEnd, ps, pe, slash);
        hasTimestamp = true;
        timeStart = i;
        timeEnd = f;
        perlSeesEvent = restStart >= e;
        return true;
    }

    /**
     * {@code [PERIOD] EVENT:} from b[i]: sets the period (-1: none), the event (without its colon)
     * and where the rest starts; false where no word ending in ':' is there, or the period has more
     * digits than parseAny reads (it might overflow).
     */
    private boolean periodAndEvent(byte[] b, int i, int e) {
        long per = -1;
        int t = digits(b, i, e);
        if (t > i && t < e && PerfBytes.isSpace(b[t])) { // PERIOD
            if (t - i > 18) {
                return false;
            }
            per = parsePeriod(b, i, t);
            i = skipSpaces(b, t, e);
        }
        int es = i; // EVENT:
        while (i < e && !PerfBytes.isSpace(b[i])) {
            i++;
        }
        if (i - es < 2 || b[i - 1] != ':') {
            return false;
        }
        period = per;
        eventStart = es;
        eventEnd = i - 1;
        restStart = skipSpaces(b, i, e);
        return true;
    }

    /** The comm and PID[/TID] fields of a usual line (slash: -1 for none), and the event's base. */
    private void set(byte[] b, int s, int commEnd, int ps, int pe, int slash) {
        commStart = s;
        this.commEnd = commEnd;
        pidStart = ps;
        if (slash >= 0) {
            pidEnd = slash;
            tidStart = slash + 1;
            tidEnd = pe;
        } else {
            pidEnd = pe;
            tidStart = -1;
            tidEnd = -1;
        }
        sideBand = false;
        baseEventEnd = baseEnd(b, eventStart, eventEnd);
    }

    /**
     * The rest of a line {@code COMM PID[/TID] [[CPU]] [PERIOD] EVENT:} with no timestamp, from
     * {@code i} (after the PID and CPU); false where it is not that shape, for parseAny to decide.
     * parseAny takes the first PID-like word after the first word as the PID, so the remembered comm
     * must hold none past its first word; no word may look like a timestamp (parseAny would go by
     * it), and nothing may follow the event word (parseAny looks there for side-band records).
     */
    private boolean withoutTimestamp(byte[] b, int s, int commEnd, int e, int ps, int pe, int slash, int i) {
        if (!noPidWordAfterFirst(b, s, commEnd)) {
            return false;
        }
        if (!periodAndEvent(b, i, e) || restStart < e || sideBandWord(b, eventStart, e)
                || timestampWord(b, eventStart, eventEnd + 1)) {
            return false;
        }
        set(b, s, commEnd, ps, pe, slash);
        hasTimestamp = false;
        perlSeesEvent = false; // perl's pattern wants the timestamp word before the event
        return true;
    }

    /** No word of b[s, e) but the first is all digits, or digits/digits (what parseAny takes for a PID). */
    private static boolean noPidWordAfterFirst(byte[] b, int s, int e) {
        int i = s;
        while (i < e && !PerfBytes.isSpace(b[i])) {
            i++;
        }
        while (i < e) {
            i = skipSpaces(b, i, e);
            int w = i;
            int slashes = 0;
            boolean digitsOnly = true;
            while (i < e && !PerfBytes.isSpace(b[i])) {
                byte c = b[i];
                if (c == '/') {
                    slashes++;
                } else if (c < '0' || c > '9') {
                    digitsOnly = false;
                }
                i++;
            }
            if (i > w && digitsOnly && (slashes == 0 || (slashes == 1 && b[w] != '/' && b[i - 1] != '/'))) {
                return false;
            }
        }
        return true;
    }

    /**
     * The timestamp of the line in nanoseconds (perf prints {@code SECS.FRAC} with microseconds or,
     * with {@code --ns}, nanoseconds), or -1 where it has none.
     */
    long nanos(byte[] b) {
        if (!hasTimestamp) {
            return -1;
        }
        long secs = 0;
        int i = timeStart;
        while (i < timeEnd && b[i] != '.') {
            secs = secs * 10 + (b[i++] - '0');
        }
        long frac = 0;
        int digits = 0;
        for (i++; i < timeEnd && digits < 9; i++, digits++) {
            frac = frac * 10 + (b[i] - '0');
        }
        for (; digits < 9; digits++) {
            frac *= 10;
        }
        return secs * 1_000_000_000L + frac;
    }

    /** b[s, e) is SECS.FRAC: (tokenize's TIME word). */
    private static boolean timestampWord(byte[] b, int s, int e) {
        int t = digits(b, s, e);
        if (t == s || t >= e || b[t] != '.') {
            return false;
        }
        int f = digits(b, t + 1, e);
        return f > t + 1 && f == e - 1 && b[f] == ':';
    }

    private static boolean sideBandWord(byte[] b, int i, int e) {
        return e - i > 12 && startsWith(b, i, "PERF_RECORD_");
    }

    /**
     * The end of the run of ASCII digits at b[i], before e: eight bytes at a time (the PID, TID and
     * timestamp make up half of an event line), then byte by byte near e.
     */
    static int digits(byte[] b, int i, int e) {
        while (i + 8 <= e) {
            long w = ByteWords.word(b, i);
            // Bit 7 of each byte that is no digit: non-ASCII, at least ':' (+0x46 carries into
            // bit 7), or below '0' (| 0x80, - 0x30 leaves bit 7 clear); no carry crosses a byte.
            long t = w & 0x7F7F7F7F7F7F7F7FL;
            long not = (w | (t + 0x4646464646464646L) | ~((t | 0x8080808080808080L) - 0x3030303030303030L))
                    & 0x8080808080808080L;
            if (not != 0) {
                return i + ByteWords.firstIndex(not);
            }
            i += 8;
        }
        while (i < e && b[i] >= '0' && b[i] <= '9') {
            i++;
        }
        return i;
    }

    private static int skipSpaces(byte[] b, int i, int e) {
        while (i < e && PerfBytes.isSpace(b[i])) {
            i++;
        }
        return i;
    }

    /**
     * Remembers, first, the comm of an event line that starts at column 0 with a timestamp (see
     * parseUsual); the least recently used one makes room.
     */
    private void rememberComm(byte[] b, int s, int commWords) {
        if (commStart != s || commWords > 16) {
            return;
        }
        int k = 0;
        while (k < comms.length - 1 && comms[k] != null
                && !PerfBytes.same(comms[k], 0, comms[k].length, b, s, commEnd)) {
            k++;
        }
        byte[] c = comms[k] != null && PerfBytes.same(comms[k], 0, comms[k].length, b, s, commEnd)
                ? comms[k] : Arrays.copyOfRange(b, s, commEnd);
        System.arraycopy(comms, 0, comms, 1, k);
        comms[0] = c;
    }

    /** The general rules (see the class comment); package-private for the test that parseUsual agrees. */
    boolean parseAny(byte[] b, int s, int e) {
        int n = tokenize(b, s, e);
        if (n < 2) {
            return false;
        }
        int time = -1;
        for (int k = 1; k < n; k++) {
            if ((kind[k] & TIME) != 0) {
                time = k;
                break;
            }
        }
        int p = -1;
        if (time > 0) {
            int k = time - 1;
            if (k >= 1 && (kind[k] & CPU) != 0) {
                k--;
            }
            if (k >= 1 && (kind[k] & PID) != 0) {
                p = k;
            }
        }
        if (p < 0) {
            for (int k = 1; k < n; k++) {
                if ((kind[k] & PID) != 0) {
                    p = k;
                    break;
                }
            }
            if (p < 0) {
                return false;
            }
        }
        sideBand = false;
        hasTimestamp = time > 0;
        if (hasTimestamp) {
            timeStart = ts[time];
            timeEnd = te[time] - 1; // without the colon
        }
        for (int k = p + 1; k < Math.min(n, p + 4); k++) {
            if (te[k] - ts[k] > 12 && startsWith(b, ts[k], "PERF_RECORD_")) {
                sideBand = true;
                commStart = ts[0];
                commEnd = te[p - 1];
                return true;
            }
        }
        // The event word: the first word after the PID (and CPU, timestamp) ending in ':'.
        int ev = -1;
        for (int k = p + 1; k < n; k++) {
            if (k == time) {
                continue;
            }
            if ((kind[k] & COLON) != 0) {
                ev = k;
                break;
            }
            if ((kind[k] & (CPU | DIGITS)) == 0) {
                break; // something else: no event word where we expect one
            }
        }
        if (ev < 0 && time < 0) {
            return false; // neither a timestamp nor an event: not an event line
        }
        commStart = ts[0];
        commEnd = te[p - 1];
        int slash = slashAt[p];
        if (slash >= 0) {
            pidStart = ts[p];
            pidEnd = slash;
            tidStart = slash + 1;
            tidEnd = te[p];
        } else {
            pidStart = ts[p];
            pidEnd = te[p];
            tidStart = -1;
            tidEnd = -1;
        }
        period = -1;
        if (ev >= 0) {
            eventStart = ts[ev];
            eventEnd = te[ev] - 1;
            baseEventEnd = baseEnd(b, eventStart, eventEnd);
            if (ev - 1 > p && ev - 1 != time && (kind[ev - 1] & DIGITS) != 0) {
                period = parsePeriod(b, ts[ev - 1], te[ev - 1]);
            }
            restStart = te[ev];
            int before = ev - 1;
            if (period >= 0 && before - 1 > p) {
                before--;
            }
            perlSeesEvent = before >= 0 && (kind[before] & COLON) != 0 && (period < 0 || before == ev - 2);
        } else {
            perlSeesEvent = false;
            eventStart = -1;
            eventEnd = -1;
            baseEventEnd = -1;
            restStart = te[time];
        }
        while (restStart < e && PerfBytes.isSpace(b[restStart])) {
            restStart++;
        }
        perlSeesEvent &= restStart >= e;
        if (time > p) { // the PID came from the timestamp word: no word of the comm is one
            rememberComm(b, s, p);
        }
        return true;
    }

    /** "cycles:uppp" -> end of "cycles": strips a trailing ":" + perf modifier letters. */
    static int baseEnd(byte[] b, int s, int e) {
        int colon = -1;
        for (int i = e - 1; i > s; i--) {
            if (b[i] == ':') {
                colon = i;
                break;
            }
        }
        if (colon < 0 || colon == e - 1) {
            return e;
        }
        for (int i = colon + 1; i < e; i++) {
            if ("ukhIGHpPSDWeb".indexOf(b[i]) < 0) {
                return e;
            }
        }
        return colon;
    }

    private static long parsePeriod(byte[] b, int s, int e) {
        long v = 0;
        for (int i = s; i < e; i++) {
            int d = b[i] - '0';
            if (v > (Long.MAX_VALUE - d) / 10) {
                return -1;
            }
            v = v * 10 + d;
        }
        return v;
    }

    private static boolean startsWith(byte[] b, int s, String p) {
        for (int i = 0; i < p.length(); i++) {
            if (b[s + i] != p.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    static int indexOf(byte[] b, int s, int e, byte x) {
        for (int i = s; i < e; i++) {
            if (b[i] == x) {
                return i;
            }
        }
        return -1;
    }
}
