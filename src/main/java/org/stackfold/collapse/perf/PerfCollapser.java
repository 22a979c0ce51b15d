package org.stackfold.collapse.perf;

import org.stackfold.perf.FrameLine;
import org.stackfold.perf.PerfBytes;
import org.stackfold.perf.InlineFrames;
import org.stackfold.perf.PerfOptions;
import org.stackfold.io.ByteBlocks;
import org.stackfold.io.ByteView;
import org.stackfold.io.Parallel;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.stackfold.collapse.Collapser;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.io.Progress;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/**
 * {@code stackfold collapse perf}: {@code perf script} output to folded stacks, as
 * stackcollapse-perf.pl and inferno-collapse-perf do. Rules and differences: docs/collapse-perf.md.
 *
 * <p>A file is cut at sample boundaries (blank lines, event lines) into one range per core, and each
 * range is read in blocks by plain reads ({@link Input#range}: nothing of the file counts in
 * resident memory) and collapsed by a {@link PerfChunkParser} into its own tree;
 * the trees are merged. The default event filter (the first event in the input, as both peers do)
 * is found by a short scan of the start before the ranges run, so every range filters alike.
 */
public final class PerfCollapser implements Collapser {
    @Override
    public String name() {
        return "perf";
    }

    /** An event line followed by a stack line (or an event line carrying its frame), as inferno checks. */
    @Override
    public boolean detect(byte[] head, int length) {
        EventLine ev = new EventLine();
        FrameLine fr = new FrameLine();
        int s = 0;
        boolean afterEvent = false;
        while (s < length) {
            int e = s;
            while (e < length && head[e] != '\n') {
                e++;
            }
            if (e == length && afterEvent && length == head.length) {
                return false; // the next line may be cut short
            }
            boolean blank = true;
            for (int i = s; i < e; i++) {
                blank &= PerfBytes.isSpace(head[i]);
            }
            if (e > s && head[s] == '#') {
                // comment
            } else if (blank) {
                afterEvent = false;
            } else if (afterEvent) {
                return fr.parse(head, s, e);
            } else {
                if (!ev.parse(head, s, e)) {
                    return false;
                }
                if (ev.restStart < e && fr.parse(head, ev.restStart, e)) {
                    return true;
                }
                afterEvent = true;
            }
            s = e + 1;
        }
        return false;
    }

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        return collapse(in, PerfOptions.from(options), warnings, options.flag("timeline"));
    }

    public Profile collapse(Input in, PerfOptions opt, Consumer<String> warnings) throws IOException {
        return collapse(in, opt, warnings, false);
    }

    /**
     * With {@code timeline} (the viewer's time order): the samples in input order too, each with its
     * thread (TID, named by its comm), process and time in nanoseconds; {@code perf script} prints
     * samples sorted by time. The input is then read by one parser, so that its order is kept.
     */
    public Profile collapse(Input in, PerfOptions opt, Consumer<String> warnings, boolean timeline) throws IOException {
        byte[] head = in.head(8);
        if (org.stackfold.format.perfdata.PerfData.sniff(head, head.length)) {
            return org.stackfold.format.perfdata.PerfData.collapse(in, opt, warnings, timeline); // perf.data itself
        }
        if (opt.context() && !opt.inline()) {
            warnings.accept("--context only applies with --inline; ignored");
        }
        try (InlineFrames inline = opt.inline() ? new InlineFrames(opt.context()) : null) {
            return collapse(in, opt, warnings, inline, timeline);
        }
    }

    private Profile collapse(Input in, PerfOptions opt, Consumer<String> warnings, InlineFrames inline,
                             boolean timeline) throws IOException {
        List<PerfChunkParser> parts = new ArrayList<>();
        long total;
        if (timeline || org.stackfold.collapse.LineEndStream.needed(in.head(1 << 16))) {
            // Lone-CR line ends or a byte-order mark: read through a stream that makes them plain
            // (the range parsers split on \n alone).
            total = 0;
            parts.add(new PerfChunkParser(new org.stackfold.collapse.LineEndStream(in.stream()), opt));
            if (timeline) {
                parts.getFirst().timeline = new org.stackfold.model.Timeline("nanoseconds");
            }
        } else if (in.isMappable()) {
            // A file: cut at sample boundaries, one range per core.
            ByteView data = in.view();
            total = data.size();
            String filter = opt.eventFilter() != null ? opt.eventFilter()
                    : firstEvent(in.range(0, Math.min(total, 64L << 20)), opt.perlCompat());
            long[] cuts = cutAtSamples(data, opt.threads(), opt.chunkBytes());
            for (int i = 0; i + 1 < cuts.length; i++) {
                parts.add(new PerfChunkParser(in.range(cuts[i], cuts[i + 1]), cuts[i + 1] - cuts[i], opt, filter));
            }
        } else {
            // A pipe or a gzip file: streamed in blocks by one parser, never held whole in memory
            // (perf script itself is the slower end of such a pipe).
            total = 0;
            parts.add(new PerfChunkParser(in.stream(), opt));
        }
        if (inline != null) {
            parts.forEach(p -> p.inlineFrames(inline));
        }
        try (Progress bar = Progress.start("collapsing " + in.name(), total)) {
            long[] done = new long[parts.size()];
            for (int i = 0; i < parts.size(); i++) {
                int k = i;
                parts.get(i).progress = d -> {
                    synchronized (done) {
                        done[k] = d;
                        bar.update(java.util.Arrays.stream(done).sum());
                    }
                };
            }
            Parallel.runAll(parts);
        }
        long linesBefore = 0;
        for (PerfChunkParser p : parts) {
            if (p.ioError != null) {
                throw new InputException(in.name() + ": cannot read: " + p.ioError.getMessage(), p.ioError);
            }
            if (p.error != null) {
                throw InputException.atLine(in.name(), linesBefore + p.errorLine, p.error);
            }
            linesBefore += p.lines;
        }
        String filter = parts.getFirst().filter();
        report(in.name(), parts, filter, opt, warnings);
        // Weighted by period, the counts are events of the filter's type (cycles), not samples.
        boolean weighted = parts.stream().anyMatch(p -> p.weighted);
        String unit = weighted && filter != null ? filter : "samples";
        List<Profile.ValueType> types = List.of(new Profile.ValueType(unit, weighted ? "events" : "count"));
        Profile profile = parts.getFirst().profile(types);
        org.stackfold.model.Timeline order = parts.getFirst().timeline;
        if (order != null && order.size() > 0) {
            profile.setTimeline(order);
        }
        for (int i = 1; i < parts.size(); i++) {
            merge(profile, parts.get(i).profile(types));
        }
        return profile;
    }

    private static void report(String name, List<PerfChunkParser> parts, String filter, PerfOptions opt,
                               Consumer<String> warnings) {
        long before = 0;
        long bad = 0;
        long badLine = 0;
        String badText = null;
        long traceErrors = 0;
        long traceLine = 0;
        String traceText = null;
        long orphans = 0;
        long orphanLine = 0;
        String orphanText = null;
        Map<String, Long> others = new LinkedHashMap<>();
        for (PerfChunkParser p : parts) {
            if (p.badLines > 0 && badText == null) {
                badLine = before + p.firstBadLine;
                badText = p.firstBadText;
            }
            if (p.orphanLines > 0 && orphanText == null) {
                orphanLine = before + p.firstOrphanLine;
                orphanText = p.firstOrphanText;
            }
            if (p.traceErrors > 0 && traceText == null) {
                traceLine = before + p.firstTraceErrorLine;
                traceText = p.firstTraceErrorText;
            }
            traceErrors += p.traceErrors;
            bad += p.badLines;
            orphans += p.orphanLines;
            for (int i = 0; i < p.otherEventKinds; i++) {
                others.merge(new String(p.otherEvents[i], StandardCharsets.UTF_8), p.otherEventSamples[i], Long::sum);
            }
            before += p.lines;
        }
        long samples = 0;
        long lines = 0;
        for (PerfChunkParser p : parts) {
            samples += p.samples;
            lines += p.lines;
        }
        if (samples == 0 && lines > 0 && others.isEmpty()) {
            warnings.accept(name + ": no samples found; is this 'perf script' output?");
        }
        if (bad > 0) {
            warnings.accept(name + ": skipped " + bad + " unrecognised line" + (bad == 1 ? "" : "s")
                    + " (first at line " + badLine + ": " + badText + ")");
        }
        if (traceErrors > 0) {
            warnings.accept(name + ": perf reported " + traceErrors + " instruction trace error" + (traceErrors == 1 ? "" : "s")
                    + " (samples may be missing; first at line " + traceLine + ": " + traceText + ")");
        }
        if (orphans > 0) {
            warnings.accept(name + ": ignored " + orphans + " stack line" + (orphans == 1 ? "" : "s")
                    + " outside any sample, after a blank line (first at line " + orphanLine + ": " + orphanText + ")");
        }
        if (!others.isEmpty()) {
            StringBuilder sb = new StringBuilder();
            others.forEach((ev, n) -> sb.append(sb.isEmpty() ? "" : ", ").append(n).append(" of '").append(ev).append("'"));
            warnings.accept(name + ": counted only events of type '" + filter + "'"
                    + (opt.eventFilter() == null ? " (the first in the input)" : "")
                    + "; skipped samples: " + sb + " (choose with --event-filter)");
        }
    }

    /** The event of the first event line that names one in {@code data}, or null. */
    static String firstEvent(ByteBlocks.Source data, boolean perl) throws IOException {
        EventLine ev = new EventLine();
        FrameLine fr = new FrameLine();
        String[] found = {null};
        boolean[] inSample = {false};
        ByteBlocks.read(data, ByteBlocks.BLOCK, PerfChunkParser.MAX_LINE, (buf, start, filled, last) -> {
            int s = start;
            while (s < filled) {
                int e = s;
                while (e < filled && buf[e] != '\n') {
                    e++;
                }
                if (e == filled && !last) {
                    return s; // the rest of this line comes with the next block
                }
                int end = s + Math.min(e - s, 1 << 20);
                boolean blank = true;
                for (int i = s; i < end; i++) {
                    blank &= PerfBytes.isSpace(buf[i]);
                }
                if (end > s && buf[s] == '#') {
                    // comment
                } else if (blank) {
                    inSample[0] = false;
                } else if (!(inSample[0] && PerfBytes.isSpace(buf[s]) && fr.parse(buf, s, end)) && ev.parse(buf, s, end)) {
                    if (!ev.sideBand) {
                        if (ev.eventStart >= 0 && (!perl || ev.perlSeesEvent)) {
                            found[0] = new String(buf, ev.eventStart, ev.eventEnd - ev.eventStart, StandardCharsets.UTF_8);
                            return -1;
                        }
                        inSample[0] = true;
                    }
                }
                s = e + 1;
            }
            return filled;
        }, done -> { });
        return found[0];
    }

    /**
     * Cut points: 0, then the start of a sample (after a blank line, or at an event line) near each
     * k/parts of the size, then the size. Where no boundary follows a target point the rest stays one range.
     */
    static long[] cutAtSamples(ByteView data, int threads, long chunkBytes) {
        long size = data.size();
        int parts = (int) Math.max(1, Math.min(threads, size / Math.max(1, chunkBytes)));
        List<Long> cuts = new ArrayList<>();
        cuts.add(0L);
        for (int k = 1; k < parts; k++) {
            long p = Math.max(cuts.getLast(), size * k / parts);
            long cut = nextSampleStart(data, p, size);
            if (cut < 0) {
                break;
            }
            if (cut > cuts.getLast() && cut < size) {
                cuts.add(cut);
            }
        }
        cuts.add(size);
        return cuts.stream().mapToLong(Long::longValue).toArray();
    }

    /**
     * The first sample boundary at or after p: just after a blank line, or just before an event
     * line with a timestamp (the parser closes any open sample there, so files without blank
     * lines, such as one-line samples, still split). -1 where there is none.
     */
    private static long nextSampleStart(ByteView data, long p, long size) {
        while (p > 0 && p < size && data.get(p - 1) != '\n') {
            p++; // to the start of a line
        }
        EventLine ev = new EventLine();
        byte[] line = new byte[1024];
        while (p < size) {
            long q = p;
            boolean blank = true;
            while (q < size) {
                byte c = data.get(q);
                if (c == '\n') {
                    break;
                }
                blank &= PerfBytes.isSpace(c);
                q++;
            }
            if (blank) {
                return Math.min(size, q + 1);
            }
            int len = (int) Math.min(q - p, line.length);
            data.copy(p, line, 0, len);
            if (line[0] != '#' && ev.parse(line, 0, len) && ev.hasTimestamp && p > 0) {
                return p;
            }
            p = q + 1;
        }
        return -1;
    }

    /**
     * Adds b's tree into a's: frames re-interned, nodes re-parented, counts summed. b's nodes come
     * after their parents, so a node whose parent was created by this merge has no match in a and
     * is created without a lookup.
     */
    private static void merge(Profile a, Profile b) {
        FrameTable fb = b.frames();
        int[] frameMap = new int[fb.size()];
        for (int f = 0; f < frameMap.length; f++) {
            byte[] name = fb.nameBytes(f);
            frameMap[f] = a.frames().plain(name, 0, name.length);
        }
        CallTree ta = a.tree();
        CallTree tb = b.tree();
        int[] nodeMap = new int[tb.size()];
        int created = ta.size();
        for (int n = 1; n < tb.size(); n++) {
            int parent = nodeMap[tb.parent(n)];
            int frame = frameMap[tb.frame(n)];
            int m = ta.child(parent, frame, created);
            nodeMap[n] = m;
            long s = tb.self(n);
            if (s != 0) {
                ta.addSelf(m, s);
            }
        }
    }
}
