package org.stackfold.collapse.perf;

import org.stackfold.perf.FrameNamer;
import org.stackfold.perf.FrameLine;
import org.stackfold.perf.PerfBytes;
import org.stackfold.perf.InlineFrames;
import org.stackfold.perf.PerfOptions;
import org.stackfold.io.ByteBlocks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.stackfold.model.ByteStringPool;
import org.stackfold.model.CallTree;
import org.stackfold.model.DistinctStacks;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/**
 * Collapses one byte range of {@code perf script} output (or a whole stream) into its own frame
 * table and call tree. Ranges start at a sample boundary (after a blank line or at an event line),
 * so ranges are independent and run on separate threads; {@link PerfCollapser} merges their trees.
 *
 * <p>Per line: one pass finds the newline and hashes the line ({@link PerfBytes#scanLine}); inside
 * a sample, a line seen before is looked up in the {@link LineCache} and its frames are pushed
 * without parsing. Only new lines, event lines and blank lines take the slow path. A sample's
 * frames are collected leaf first; at its end its period is added to its stack's weight in the
 * {@link StackCache}, whose distinct stacks make the range's {@link #profile}.
 *
 * <p>Line classification (robust where the peers are not): a blank or whitespace-only line ends
 * the sample; {@code #} at column 0 is a comment; outside a sample a line is an event line (a frame
 * there is counted as an orphan and reported); inside one, a line at column 0 is tried as an event
 * first (perf may omit the blank line, or print frames unindented), an indented one is a frame
 * unless it carries a timestamp (perf right-aligns the comm of callchain-less samples), so a new
 * event always closes the previous sample instead of merging into it.
 */
final class PerfChunkParser implements Runnable {
    static final int MAX_LINE = 64 << 20;
    private static final int F_SKIP = 1 << 29;
    private static final int F_SKIP_AFTER = 1 << 30;
    private static final int COUNT_MASK = (1 << 29) - 1;

    /** Where the bytes come from: a mapped range, or a stream; -1 at the end. */
    private final ByteBlocks.Source source;
    private final long size;
    private final PerfOptions opt;
    private byte[] filter;
    private byte[] filterBase;
    /** No filter was given or found up front: the first event seen becomes the filter (streams). */
    private final boolean adoptFirstEvent;
    IOException ioError;

    final FrameTable frames = new FrameTable();
    final CallTree tree = new CallTree();

    // Results and diagnostics (line numbers are 1-based within the range).
    long lines;
    long samples;
    String error;
    long errorLine;
    long badLines;
    long firstBadLine;
    String firstBadText;
    long traceErrors;
    long firstTraceErrorLine;
    String firstTraceErrorText;
    long orphanLines;
    long firstOrphanLine;
    String firstOrphanText;
    byte[][] otherEvents = new byte[4][];
    long[] otherEventSamples = new long[4];
    int otherEventKinds;

    // The open sample.
    private boolean inSample;
    private boolean skipping;
    private boolean skipRemaining;
    private boolean java;
    private int pnameFrame;
    private long period;
    /** True once a sample counted its period rather than 1. */
    boolean weighted;
    private int[] stack = new int[256];
    private int depth;
    private int lastLinePos = -1;
    /** The cache entry of the line just handled where it was a known frame line in a sample, else -1. */
    private int lineEntry = -1;
    /** The {@link #skippedLines} entry of the line just handled, where it was one, else -1. */
    private int skippedEntry = -1;

    // Helpers.
    private final EventLine event = new EventLine();
    private final FrameLine frame = new FrameLine();
    private final FrameNamer namer;
    private final LineCache cache = new LineCache();
    /**
     * Lines of filtered samples already seen not to be event lines: such samples are not named, so
     * their lines never reach {@link #cache}, and without this each would be tokenised as an event
     * line and parsed as a frame again (a tenth of the lines of the 400 MB benchmark).
     */
    private final LineCache skippedLines = new LineCache();
    /** The distinct stacks and their weights (package-private: tests give it a small cap). */
    StackCache stacks = new StackCache(StackCache.MAX_INTS);
    /** At the end of a range whose stacks all fit the stack cache: those stacks, not yet in {@link #tree}. */
    private DistinctStacks distinct;
    private int[] pool = new int[4096];
    private int poolUsed;
    private final int[] hashOut = new int[1];
    private byte[] scratch = new byte[256];
    /**
     * Where asked ({@code view}'s time order): every counted sample in input order, with its thread,
     * process, time (ns) and weight; each sample is then walked into {@link #tree} at once (its node
     * is needed) instead of going through the stack cache. Threads are named by their comm.
     */
    org.stackfold.model.Timeline timeline;
    private long sampleTime;
    private long sampleTid;
    private int samplePid;
    private final java.util.Map<Long, byte[]> threadComms = new java.util.HashMap<>();
    /** Told the bytes of the range done so far, once per block. */
    java.util.function.LongConsumer progress = done -> { };

    /** Parses the {@code size} bytes of a range of the input with the given event filter (null: no filtering). */
    PerfChunkParser(ByteBlocks.Source range, long size, PerfOptions opt, String filter) {
        this.source = range;
        this.size = size;
        this.opt = opt;
        this.namer = new FrameNamer(opt);
        this.adoptFirstEvent = false;
        setFilter(filter);
    }

    /** {@code --inline}: frames of ELF files with DWARF get their inlined frames. */
    void inlineFrames(InlineFrames frames) {
        namer.inline = frames;
    }

    /** Parses a whole stream; without a filter option the first event seen becomes the filter. */
    PerfChunkParser(java.io.InputStream in, PerfOptions opt) {
        this.source = in::read;
        this.size = Long.MAX_VALUE;
        this.opt = opt;
        this.namer = new FrameNamer(opt);
        this.adoptFirstEvent = opt.eventFilter() == null;
        setFilter(opt.eventFilter());
    }

    private void setFilter(String f) {
        if (f != null) {
            filter = f.getBytes(StandardCharsets.UTF_8);
            filterBase = Arrays.copyOf(filter, EventLine.baseEnd(filter, 0, filter.length));
        }
    }

    /** The event filter in effect at the end (the adopted one for streams), or null. */
    String filter() {
        return filter == null ? null : new String(filter, StandardCharsets.UTF_8);
    }

    @Override
    public void run() {
        try {
            parse();
        } catch (IOException e) {
            ioError = e;
        }
    }

    private void parse() throws IOException {
        ByteBlocks.Stop stop;
        try (source) {
            stop = ByteBlocks.read(source, size, MAX_LINE, this::lines, progress);
        }
        if (tree.size() == 1) {
            distinct = stacks.stacks(); // built into the tree only if someone asks (the folded writer does not)
        } else {
            stacks.addTo(tree); // stacks past the cache's cap are in the tree already
        }
        if (stop != null && error == null) {
            fail(lines + 1, stop.reason());
        }
    }

    /**
     * The range's profile once it is parsed: its distinct stacks, built into a tree only when the
     * profile's tree is asked for ({@link Profile#ofStacks}; the folded writer does not ask), or the
     * tree where stacks past the stack cache's cap were walked in.
     */
    Profile profile(List<Profile.ValueType> types) {
        return distinct != null ? Profile.ofStacks(frames, distinct, types) : new Profile(frames, tree, types);
    }

    /** Parses the whole lines of a block; see {@link ByteBlocks.Consumer}. */
    private int lines(byte[] buf, int start, int filled, boolean last) {
        int prev = -1; // the cache entry of the previous line, where it was a known frame line
        int prevSkipped = -1; // its skippedLines entry, where it was a line of a sample not counted
        int differs = -1; // the entry a run of lines just stopped at: not the next line
        int differsSkipped = -1; // the same in skippedLines
        while (true) {
            if (start < filled && buf[start] == '\n') {
                // A blank line: the sample ends (what line() does with it, without the newline search).
                lines++;
                endSample();
                prev = -1;
                prevSkipped = -1;
                differs = -1;
                differsSkipped = -1;
                start++;
                continue;
            }
            if (prev >= 0 && inSample) {
                // A line that followed this one before, compared in place (no newline search, no
                // hash) together with the lines that followed it when it was first seen.
                LineCache c = cache;
                int matched = c.matchRun(prev, buf, start, filled, differs);
                if (matched > 0) {
                    int end = start + matched;
                    int id = c.runFirst;
                    boolean j = java;
                    while (true) {
                        int len = c.length(id);
                        lines++;
                        if (!skipping && !skipRemaining) {
                            int v = c.value(id);
                            if (v < 0 && depth < stack.length) {
                                lastLinePos = depth; // push(v), inlined for C1: a line of one frame
                                stack[depth++] = ~v;
                            } else {
                                push(v);
                            }
                        }
                        prev = id;
                        start += len + 1;
                        if (!c.inRun(++id, start, end, j)) {
                            break;
                        }
                    }
                    differs = id;
                    continue;
                }
            }
            if (prevSkipped >= 0 && inSample) {
                // Filtered samples repeat their lines too (a tenth of the lines of the 400 MB benchmark).
                LineCache c = skippedLines;
                int matched = c.matchRun(prevSkipped, buf, start, filled, differsSkipped);
                if (matched > 0) {
                    int end = start + matched;
                    int id = c.runFirst;
                    while (true) {
                        lines++;
                        prevSkipped = id;
                        start += c.length(id) + 1;
                        if (!c.inRun(++id, start, end, false)) { // its lines are all put as not Java's
                            break;
                        }
                    }
                    differsSkipped = id;
                    continue;
                }
            }
            int nl = PerfBytes.scanLine(buf, start, filled, hashOut);
            if (nl < 0) {
                break;
            }
            lines++;
            lineEntry = -1;
            skippedEntry = -1;
            if (!line(buf, start, nl, hashOut[0])) {
                return -1;
            }
            if (prev >= 0 && lineEntry >= 0) {
                cache.followed(prev, lineEntry);
            }
            if (prevSkipped >= 0 && skippedEntry >= 0) {
                skippedLines.followed(prevSkipped, skippedEntry);
            }
            prev = lineEntry;
            prevSkipped = skippedEntry;
            differs = -1;
            differsSkipped = -1;
            start = nl + 1;
        }
        if (last) {
            if (start < filled) {
                lines++;
                if (!line(buf, start, filled, PerfBytes.hash(buf, start, filled))) {
                    return -1;
                }
                start = filled;
            }
            endSample(); // the last sample counts even without a final blank line
        }
        return start;
    }

    /** Handles one line without its newline; false stops the range (strict error). */
    private boolean line(byte[] b, int s, int e, int hash) {
        if (e == s) {
            endSample();
            return true;
        }
        byte c0 = b[s];
        if (c0 == '#') {
            return true;
        }
        if (inSample) {
            boolean skip = skipping || skipRemaining;
            if (!skip) {
                int id = cache.find(hash, java, b, s, e);
                if (id >= 0) {
                    push(cache.value(id));
                    lineEntry = id;
                    return true;
                }
            } else {
                // A known frame line of a sample we do not count.
                lineEntry = cache.find(hash, java, b, s, e);
                if (lineEntry >= 0) {
                    return true;
                }
                skippedEntry = skippedLines.find(hash, false, b, s, e);
                if (skippedEntry >= 0) {
                    return true;
                }
            }
            if (isBlank(b, s, e)) {
                endSample();
                return true;
            }
            boolean indented = PerfBytes.isSpace(c0);
            // A new event: at column 0 any event line; indented (perf right-aligns the comm when
            // it prints no callchain) only with a timestamp, since frames are indented too.
            // (An indented line without a digit before a ':' has no timestamp word: not parsed as an
            // event, which for a new frame line meant splitting it into words for nothing.)
            boolean isEvent = (!indented || digitColon(b, s, e)) && event.parse(b, s, e)
                    && (!indented || event.hasTimestamp);
            if (skip) {
                // Frames of a filtered sample are not named; only a new event ends it early.
                if (isEvent || (!frame.parse(b, s, e) && event.parse(b, s, e))) {
                    endSample();
                    return startEvent(b, s, e);
                }
                skippedEntry = skippedLines.put(hash, false, b, s, e, 0);
                return true;
            }
            if (isEvent) {
                endSample();
                return startEvent(b, s, e);
            }
            if (frame.parse(b, s, e)) {
                return newFrameLine(b, s, e, hash);
            }
            if (opt.srcline()) {
                srcline(b, s, e);
                return true;
            }
            if (indented && event.parse(b, s, e)) {
                endSample();
                return startEvent(b, s, e);
            }
            if (isTraceError(b, s, e)) {
                endSample();
                if (traceErrors++ == 0) {
                    firstTraceErrorLine = lines;
                    firstTraceErrorText = text(b, s, e);
                }
                return true;
            }
            return bad(b, s, e, "not a stack frame ('ADDRESS SYMBOL (MODULE)') nor an event line"
                    + (opt.srcline() ? "" : "; for 'perf script -F+srcline' output use --srcline"));
        }
        if (isBlank(b, s, e)) {
            return true;
        }
        if (event.parse(b, s, e)) {
            return startEvent(b, s, e);
        }
        if (isTraceError(b, s, e)) {
            if (traceErrors++ == 0) {
                firstTraceErrorLine = lines;
                firstTraceErrorText = text(b, s, e);
            }
            return true;
        }
        if (frame.parse(b, s, e)) {
            if (orphanLines++ == 0) {
                firstOrphanLine = lines;
                firstOrphanText = text(b, s, e);
            }
            return true;
        }
        return bad(b, s, e, "not an event line ('COMM PID [CPU] TIME: [PERIOD] EVENT:')");
    }

    private boolean bad(byte[] b, int s, int e, String what) {
        String t = text(b, s, e);
        if (!opt.lenient()) {
            fail(lines, what + ": " + t);
            return false;
        }
        if (badLines++ == 0) {
            firstBadLine = lines;
            firstBadText = what + ": " + t;
        }
        return true;
    }

    static String text(byte[] b, int s, int e) {
        int n = Math.min(e - s, 120);
        // Control bytes are escaped where the message is made (InputException, warnings: Printable).
        String t = org.stackfold.io.Printable.of(new String(b, s, n, StandardCharsets.UTF_8).strip());
        return "'" + t + (e - s > n ? "...'" : "'");
    }

    private void fail(long line, String what) {
        error = what;
        errorLine = line;
    }

    private static final byte[] TRACE_ERROR = "instruction trace error".getBytes(StandardCharsets.US_ASCII);

    /** perf's Intel PT decoder reports ({@code instruction trace error type 1 ... Lost trace data}). */
    private static boolean isTraceError(byte[] b, int s, int e) {
        while (s < e && PerfBytes.isSpace(b[s])) {
            s++;
        }
        return e - s >= TRACE_ERROR.length && PerfBytes.same(b, s, s + TRACE_ERROR.length, TRACE_ERROR, 0, TRACE_ERROR.length);
    }

    private static long digitsValue(byte[] b, int s, int e) {
        long v = 0;
        for (int i = s; i < e; i++) {
            v = v * 10 + (b[i] - '0');
        }
        return v;
    }

    /** Some ':' in b[s, e) follows a digit (as in a timestamp word, {@code SECS.FRAC:}). */
    private static boolean digitColon(byte[] b, int s, int e) {
        for (int i = s + 1; i < e; i++) {
            if (b[i] == ':' && b[i - 1] >= '0' && b[i - 1] <= '9') {
                return true;
            }
        }
        return false;
    }

    private static boolean isBlank(byte[] b, int s, int e) {
        for (int i = s; i < e; i++) {
            if (!PerfBytes.isSpace(b[i])) {
                return false;
            }
        }
        return true;
    }

    private boolean startEvent(byte[] b, int s, int e) {
        EventLine ev = event;
        if (ev.sideBand) {
            inSample = false;
            return true;
        }
        inSample = true;
        skipping = false;
        skipRemaining = false;
        depth = 0;
        lastLinePos = -1;
        boolean hasEvent = ev.eventStart >= 0 && (!opt.perlCompat() || ev.perlSeesEvent);
        if (hasEvent && filter == null && adoptFirstEvent) {
            setFilter(new String(b, ev.eventStart, ev.eventEnd - ev.eventStart, StandardCharsets.UTF_8));
        }
        if (filter != null && hasEvent && !matchesFilter(b, ev)) {
            skipping = true;
            countOtherEvent(b, ev.eventStart, ev.eventEnd);
            if (ev.restStart < e && frame.parse(b, ev.restStart, e)) {
                inSample = false; // a one-line sample
            }
            return true;
        }
        period = ev.period > 0 && hasEvent && !opt.countSamples() ? ev.period : 1;
        weighted |= period != 1;
        pnameFrame = pname(b, ev);
        if (timeline != null) {
            sampleTime = ev.nanos(b);
            samplePid = ev.tidStart < 0 ? -1 : (int) digitsValue(b, ev.pidStart, ev.pidEnd);
            sampleTid = ev.tidStart < 0 ? digitsValue(b, ev.pidStart, ev.pidEnd) : digitsValue(b, ev.tidStart, ev.tidEnd);
            // A thread is named by its latest comm (a process that exec'd dd from sh is dd).
            byte[] last = threadComms.get(sampleTid);
            if (last == null || !PerfBytes.same(last, 0, last.length, b, ev.commStart, ev.commEnd)) {
                threadComms.put(sampleTid, Arrays.copyOfRange(b, ev.commStart, ev.commEnd));
                timeline.nameThread(sampleTid, new String(b, ev.commStart, ev.commEnd - ev.commStart, StandardCharsets.UTF_8));
            }
        }
        // A frame on the event line itself: perf without a callchain prints one sample per line.
        if (ev.restStart < e && frame.parse(b, ev.restStart, e)) {
            int rs = ev.restStart;
            if (!newFrameLine(b, rs, e, PerfBytes.hash(b, rs, e))) {
                return false;
            }
            endSample();
        }
        return true;
    }

    private boolean matchesFilter(byte[] b, EventLine ev) {
        return PerfBytes.same(b, ev.eventStart, ev.eventEnd, filter, 0, filter.length)
                || PerfBytes.same(b, ev.eventStart, ev.baseEventEnd, filter, 0, filter.length)
                || PerfBytes.same(b, ev.eventStart, ev.baseEventEnd, filterBase, 0, filterBase.length);
    }

    private void countOtherEvent(byte[] b, int s, int e) {
        for (int i = 0; i < otherEventKinds; i++) {
            if (PerfBytes.same(otherEvents[i], 0, otherEvents[i].length, b, s, e)) {
                otherEventSamples[i]++;
                return;
            }
        }
        if (otherEventKinds == otherEvents.length) {
            otherEvents = Arrays.copyOf(otherEvents, otherEventKinds * 2);
            otherEventSamples = Arrays.copyOf(otherEventSamples, otherEventKinds * 2);
        }
        otherEvents[otherEventKinds] = Arrays.copyOfRange(b, s, e);
        otherEventSamples[otherEventKinds++] = 1;
    }

    // The root frames of recent comms where no PID or TID goes into them: by the identity of the
    // event line's remembered comm array (EventLine.usualComm), with whether the comm is Java's.
    private final byte[][] rootComms = new byte[16][];
    private final int[] rootFrames = new int[16];
    private final boolean[] rootJava = new boolean[16];
    private int rootNext;

    /** The root frame: comm (spaces as underscores), with -PID or -PID/TID. */
    private int pname(byte[] b, EventLine ev) {
        byte[] comm = opt.pid() || opt.tid() ? null : ev.usualComm;
        if (comm != null) {
            for (int k = 0; k < rootComms.length; k++) {
                if (rootComms[k] == comm) {
                    java = rootJava[k];
                    return rootFrames[k];
                }
            }
        }
        int frame = pnameOf(b, ev);
        if (comm != null) {
            int k = rootNext;
            rootNext = (k + 1) & (rootComms.length - 1);
            rootComms[k] = comm;
            rootFrames[k] = frame;
            rootJava[k] = java;
        }
        return frame;
    }

    private int pnameOf(byte[] b, EventLine ev) {
        int n = 0;
        int need = (ev.commEnd - ev.commStart) + (ev.pidEnd - ev.pidStart) + Math.max(0, ev.tidEnd - ev.tidStart) + 4;
        if (need > scratch.length) {
            scratch = new byte[Math.max(need, scratch.length * 2)];
        }
        byte[] o = scratch;
        for (int i = ev.commStart; i < ev.commEnd; i++) {
            byte c = b[i];
            o[n++] = c == ' ' ? (byte) '_' : c;
        }
        java = n >= 4 && o[0] == 'j' && o[1] == 'a' && o[2] == 'v' && o[3] == 'a';
        if (opt.pid() || opt.tid()) {
            o[n++] = '-';
            int ps = ev.pidStart;
            int pe = ev.pidEnd;
            int tsx = ev.tidStart;
            int tex = ev.tidEnd;
            if (tsx < 0) {
                // One id: perf printed the TID; the PID is unknown.
                tsx = ps;
                tex = pe;
                ps = -1;
            } else if (opt.perlCompat() && tex - tsx == 1 && b[tsx] == '0') {
                // perl: a TID of "0" is false, so it takes the PID's place (swapper 0/0 -> swapper-?/0).
                tsx = ps;
                tex = pe;
                ps = -1;
            }
            if (ps < 0) {
                o[n++] = '?';
            } else {
                System.arraycopy(b, ps, o, n, pe - ps);
                n += pe - ps;
            }
            if (opt.tid()) {
                o[n++] = '/';
                System.arraycopy(b, tsx, o, n, tex - tsx);
                n += tex - tsx;
            }
        }
        return frames.plain(o, 0, n);
    }

    /** A frame line not in the cache: name it, remember the result, push it. */
    private boolean newFrameLine(byte[] b, int s, int e, int hash) {
        namer.name(b, frame, java);
        int count = namer.skip ? 0 : namer.pieces;
        int flags = (namer.skip ? F_SKIP : 0) | (namer.skipAfterMatch ? F_SKIP_AFTER : 0);
        if (poolUsed + count + 1 > pool.length) {
            pool = Arrays.copyOf(pool, Math.max(pool.length * 2, poolUsed + count + 1));
        }
        int at = poolUsed;
        pool[at] = count | flags;
        // Pieces are stored innermost first: the stack is collected leaf first.
        int pieceStart;
        for (int k = 0; k < count; k++) {
            int piece = count - 1 - k;
            pieceStart = piece == 0 ? 0 : namer.ends[piece - 1];
            int len = namer.ends[piece] - pieceStart;
            pool[at + 1 + k] = frames.plain(namer.out, pieceStart, len,
                    ByteStringPool.hash(namer.out, pieceStart, len));
        }
        poolUsed += count + 1;
        int value = at;
        if (count == 1 && flags == 0) {
            value = ~pool[at + 1]; // the usual line, one frame: kept in the cache itself
            poolUsed = at;
        }
        int id = cache.put(hash, java, b, s, e, value);
        push(value);
        if (id < 0) {
            poolUsed = at; // the cache is full: the entry was only needed for this line
        } else if (inSample) {
            lineEntry = id;
        }
        return true;
    }

    /**
     * Pushes a line's frames: {@code ~frame} for a line of one frame (most lines: no call nor read of
     * the pool for them on the hot path, {@link #lines}), else the line's pool entry.
     */
    private void push(int at) {
        if (at < 0) {
            if (depth == stack.length) {
                stack = Arrays.copyOf(stack, stack.length * 2);
            }
            lastLinePos = depth;
            stack[depth++] = ~at;
            return;
        }
        int head = pool[at];
        if ((head & F_SKIP) != 0) {
            lastLinePos = -1;
            return;
        }
        int count = head & COUNT_MASK;
        if (depth + count > stack.length) {
            stack = Arrays.copyOf(stack, Math.max(stack.length * 2, depth + count));
        }
        lastLinePos = depth;
        System.arraycopy(pool, at + 1, stack, depth, count);
        depth += count;
        if ((head & F_SKIP_AFTER) != 0) {
            skipRemaining = true;
        }
    }

    /** perf script -F+srcline: the source line of the frame above, added to its innermost piece. */
    private void srcline(byte[] b, int s, int e) {
        int pos = lastLinePos;
        lastLinePos = -1; // one source line per frame
        if (pos < 0) {
            return;
        }
        // Drop [...] groups (module offsets), trim; perl's rule.
        byte[] t = new byte[e - s];
        int n = 0;
        for (int i = s; i < e; i++) {
            if (b[i] == '[') {
                int close = EventLine.indexOf(b, i + 1, e, (byte) ']');
                if (close >= 0) {
                    i = close;
                    continue;
                }
            }
            t[n++] = b[i];
        }
        int ts = 0;
        while (ts < n && PerfBytes.isSpace(t[ts])) {
            ts++;
        }
        while (n > ts && PerfBytes.isSpace(t[n - 1])) {
            n--;
        }
        if (n == ts) {
            return;
        }
        byte[] name = frames.nameBytes(stack[pos]);
        int tag = name.length;
        if (!opt.perlCompat() && tag >= 4 && name[tag - 4] == '_' && name[tag - 3] == '[' && name[tag - 1] == ']') {
            tag -= 4; // keep the annotation last, where flame graph colouring looks for it
        }
        byte[] o = new byte[name.length + 1 + (n - ts)];
        System.arraycopy(name, 0, o, 0, tag);
        o[tag] = ':';
        System.arraycopy(t, ts, o, tag + 1, n - ts);
        System.arraycopy(name, tag, o, tag + 1 + (n - ts), name.length - tag);
        stack[pos] = frames.plain(o, 0, o.length);
    }

    // Per root frame (slot = frame id + 1, 0 for no root), the last stack newStack walked under it,
    // root first: frame ids (level 0 = the root frame) and their nodes, and its length.
    private int[][] pathIds = new int[16][];
    private int[][] pathNodes = new int[16][];
    private int[] pathLens = new int[16];

    /**
     * A stack past the stack cache's cap, walked into the tree at once. The walk starts below the
     * levels it shares with the last new stack under the same root frame (a process's samples share
     * their outer frames, and processes interleave), so only the differing part costs tree lookups.
     */
    private int newStack(int root) {
        int len = depth + 1;
        int r = root + 1;
        if (r >= pathLens.length) {
            int cap = Math.max(r + 1, pathLens.length * 2);
            pathIds = Arrays.copyOf(pathIds, cap);
            pathNodes = Arrays.copyOf(pathNodes, cap);
            pathLens = Arrays.copyOf(pathLens, cap);
        }
        int[] ids = pathIds[r];
        int[] nodes = pathNodes[r];
        if (ids == null || len > ids.length) {
            int cap = Math.max(len, ids == null ? 64 : ids.length * 2);
            ids = pathIds[r] = ids == null ? new int[cap] : Arrays.copyOf(ids, cap);
            nodes = pathNodes[r] = nodes == null ? new int[cap] : Arrays.copyOf(nodes, cap);
        }
        int k = pathLens[r];
        if (k == 0) {
            ids[0] = root;
            nodes[0] = root < 0 ? CallTree.ROOT : tree.child(CallTree.ROOT, root);
            k = 1;
        } else {
            int limit = Math.min(len, k);
            k = 1;
            while (k < limit && ids[k] == stack[depth - k]) {
                k++;
            }
        }
        int node = nodes[k - 1];
        int newFrom = tree.size(); // below a node created in this walk there is nothing to look up
        for (int i = k; i < len; i++) {
            int f = stack[depth - i];
            node = tree.child(node, f, newFrom);
            ids[i] = f;
            nodes[i] = node;
        }
        pathLens[r] = len;
        return node;
    }

    /**
     * Closes the open sample: its stack's weight is added in the stack cache (or, past its cap, the
     * stack is walked into the tree at once).
     */
    private void endSample() {
        if (inSample && !skipping && timeline != null) {
            int root = skipRemaining ? -1 : pnameFrame;
            int node = newStack(root);
            if (node != CallTree.ROOT) {
                tree.addSelf(node, period);
                samples++;
                if (sampleTime >= 0) {
                    timeline.add(sampleTid, samplePid, sampleTime, 0, node, period);
                }
            }
        } else if (inSample && !skipping) {
            int root = skipRemaining ? -1 : pnameFrame;
            int h = StackCache.hash(root, stack, depth);
            int at = stacks.find(h, root, stack, depth);
            if (at >= 0) {
                stacks.add(at, period);
            } else if (!stacks.put(h, root, stack, depth, period)) {
                int node = newStack(root);
                if (node != CallTree.ROOT) {
                    tree.addSelf(node, period);
                }
            }
            if (root >= 0 || depth > 0) { // else the stack is the tree's root: not counted
                samples++;
            }
        }
        inSample = false;
        skipping = false;
        skipRemaining = false;
        depth = 0;
        lastLinePos = -1;
        lineEntry = -1;
    }
}
