package org.stackfold.format;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.stackfold.format.folded.DiffFoldedFormat;
import org.stackfold.format.folded.FoldedFormat;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;

/**
 * The registry of formats. Detection order: an explicit name, then content (magic bytes and
 * sniffing), then the file name's ending, then folded as the lingua franca.
 */
public final class Formats {
    private static final List<ProfileFormat> ALL = new ArrayList<>(List.of(
            new org.stackfold.format.jfr.JfrFormat(),
            new org.stackfold.format.otlp.OtlpFormat(), // before pprof, whose sniffing would take it too
            new org.stackfold.format.pprof.PprofFormat(),
            new org.stackfold.format.pprof.LegacyPprof(),
            new org.stackfold.format.speedscope.SpeedscopeFormat(),
            new org.stackfold.format.chrome.CpuProfileFormat(),
            new org.stackfold.format.chrome.ChromeTraceFormat(),
            new org.stackfold.format.firefox.FirefoxFormat(),
            new DiffFoldedFormat(),
            new org.stackfold.format.tachyon.TachyonFormat(),
            new org.stackfold.format.perfdata.PerfDataFormat(),
            new org.stackfold.format.callgrind.CallgrindFormat(),
            new org.stackfold.format.stackprof.StackprofFormat(),
            new org.stackfold.format.v8log.V8LogFormat(),
            new FoldedFormat()
            // New formats register here.
    ));

    private Formats() {
    }

    public static List<ProfileFormat> all() {
        return List.copyOf(ALL);
    }

    public static ProfileFormat byName(String name) {
        for (ProfileFormat f : ALL) {
            if (f.name().equalsIgnoreCase(name)) {
                return f;
            }
        }
        throw new org.stackfold.io.UsageException("unknown format '" + name + "'; known: " + names());
    }

    public static String names() {
        return String.join(", ", ALL.stream().map(ProfileFormat::name).toList());
    }

    /** The format of an input to read: by {@code forced} name, content, or extension; else folded. */
    public static ProfileFormat forInput(Input in, String forced) throws IOException {
        if (forced != null) {
            return byName(forced);
        }
        ProfileFormat f = sniffed(in);
        if (f == null) {
            f = byFileName(in);
        }
        return f != null ? f : byName("folded");
    }

    /** The format the content's first bytes show (magic bytes, JSON shape, two-count lines), or null. */
    public static ProfileFormat sniffed(Input in) throws IOException {
        byte[] head = in.head(4096);
        for (ProfileFormat f : ALL) {
            if (f.canRead() && f.sniff(head, head.length)) {
                return f;
            }
        }
        return null;
    }

    /** The format the input's file name ends with, or null (standard input has no name). */
    public static ProfileFormat byFileName(Input in) {
        if (in.name().equals("<stdin>")) {
            return null;
        }
        // A FIFO or /dev/fd/N name says nothing, but a named pipe called x.jfr does.
        return byExtension(java.nio.file.Path.of(in.name()).getFileName().toString(), true);
    }

    /** The format for an output file name, or {@code fallback} where its ending says nothing. */
    public static ProfileFormat forOutput(String fileName, String forced, String fallback) {
        if (forced != null) {
            return byName(forced);
        }
        if (fileName != null && !fileName.equals("-")) {
            ProfileFormat f = byExtension(fileName, false);
            if (f != null) {
                return f;
            }
        }
        return byName(fallback);
    }

    private static ProfileFormat byExtension(String fileName, boolean reading) {
        String lower = fileName.toLowerCase(Locale.ROOT);
        if (lower.endsWith(".gz")) {
            lower = lower.substring(0, lower.length() - 3);
        } else if (lower.endsWith(".zst")) {
            lower = lower.substring(0, lower.length() - 4);
        }
        ProfileFormat best = null;
        int bestLen = 0;
        for (ProfileFormat f : ALL) {
            // For output every format counts, so that "x.jfr" names JFR and the caller can say it
            // cannot be written, rather than silently writing folded text into it.
            if (reading && !f.canRead()) {
                continue;
            }
            for (String prefix : f.namePrefixes()) {
                if (lower.startsWith(prefix, lower.lastIndexOf('/') + 1) && best == null) {
                    best = f;
                }
            }
            for (String ext : f.extensions()) {
                if (lower.endsWith("." + ext) && ext.length() > bestLen) {
                    best = f;
                    bestLen = ext.length();
                }
            }
        }
        return best;
    }
}
