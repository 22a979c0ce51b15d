package org.stackfold.collapse;

import java.io.IOException;
import java.util.List;
import org.stackfold.format.Formats;
import org.stackfold.format.ProfileFormat;
import org.stackfold.format.folded.FoldedKind;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.io.UsageException;

/**
 * The format of any input a command is given: a profile format ({@link Formats}), or a profiler's
 * text output that a collapser recognises ({@link CollapsedFormat}). Order: the name forced with
 * {@code --from} (a format or a collapser), the content's magic bytes, a collapser's detector, the
 * file name's ending, and last folded stacks. Where nothing fits and not one line looks like a
 * folded stack, the error says what the file looks like and which commands read it.
 */
public final class InputFormats {
    private InputFormats() {
    }

    public static ProfileFormat choose(Input in, String forced) throws IOException {
        if (forced != null) {
            return byName(forced);
        }
        ProfileFormat f = Formats.sniffed(in);
        if (f != null) {
            return f;
        }
        byte[] head = in.head(GuessCollapser.HEAD);
        byte[] probe = GuessCollapser.probe(head);
        Collapser c = GuessCollapser.choose(probe, probe.length);
        if (c instanceof ChromeTracingCollapser
                && (org.stackfold.format.chrome.ChromeTraceFormat.hasCpuProfile(probe, probe.length)
                || head.length == GuessCollapser.HEAD && laterCpuProfile(in))) {
            return Formats.byName("chrome-trace"); // the trace's sampled CPU profile, not its duration events
        }
        if (c != null) {
            return new CollapsedFormat(c); // before the name: perf script output is often called x.txt
        }
        f = Formats.byFileName(in);
        if (f != null) {
            return plainOrDifferential(f, head);
        }
        if (head.length > 0 && !FoldedShape.anyLineLooksFolded(head)) {
            throw new InputException(in.name() + ": not a profile Stackfold recognises (" + NoRecords.lookOf(null, head)
                    + "); it reads " + Formats.names() + " and, through 'stackfold collapse', the text output of "
                    + String.join(", ", collapserNames()));
        }
        return plainOrDifferential(Formats.byName("folded"), head);
    }

    /**
     * How far into a trace its CPU profile events are looked for: Chrome writes them when profiling
     * stops, after megabytes of other events (one trace had 1.6 MB before its first).
     */
    static final int TRACE_PROFILE_LOOKAHEAD = 32 << 20;

    private static boolean laterCpuProfile(Input in) throws IOException {
        byte[] more = in.head(TRACE_PROFILE_LOOKAHEAD);
        return org.stackfold.format.chrome.ChromeTraceFormat.hasCpuProfile(more, more.length);
    }

    /** Folded text whose first record has two counts is differential, whatever the file is called. */
    private static ProfileFormat plainOrDifferential(ProfileFormat f, byte[] head) {
        if (f.name().equals("folded") && FoldedKind.isDifferential(head, head.length < GuessCollapser.HEAD)) {
            return Formats.byName("diff-folded");
        }
        return f;
    }

    /** A format or a collapser by name, as {@code --from} takes it. */
    public static ProfileFormat byName(String name) {
        for (ProfileFormat f : Formats.all()) {
            if (f.name().equalsIgnoreCase(name)) {
                return f;
            }
        }
        for (Collapser c : Collapsers.all()) {
            if (c.name().equalsIgnoreCase(name)) {
                return new CollapsedFormat(c);
            }
        }
        throw new UsageException("unknown format '" + name + "'; known: " + Formats.names()
                + ", and profiler outputs " + String.join(", ", collapserNames()));
    }

    private static List<String> collapserNames() {
        return Collapsers.all().stream().map(Collapser::name).toList();
    }
}
