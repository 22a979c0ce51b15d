package org.stackfold.format.jfr;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.util.List;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.ProfileFormat;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.Profile;

/**
 * JDK Flight Recorder recordings ({@code .jfr}, from the JDK or async-profiler), read-only. Options:
 * {@code event}, {@code thread-frames}, {@code lines}, {@code bci}; see {@link JfrReader}.
 */
public final class JfrFormat implements ProfileFormat {
    @Override
    public String name() {
        return "jfr";
    }

    @Override
    public List<String> extensions() {
        return List.of("jfr");
    }

    /** JFR chunks start with the magic "FLR\0". */
    @Override
    public boolean sniff(byte[] head, int length) {
        return length >= 4 && head[0] == 'F' && head[1] == 'L' && head[2] == 'R' && head[3] == 0;
    }

    @Override
    public boolean canWrite() {
        return false;
    }

    @Override
    public Profile read(Input in, FormatOptions options) throws IOException {
        return new JfrReader(options.get("event", null), options.flag("thread-frames"), options.flag("lines"),
                options.flag("bci"), options.flag("timeline"), options.warnings()).read(in);
    }

    @Override
    public void write(Profile profile, OutputStream out, FormatOptions options) {
        throw new InputException("JFR is read-only: convert to folded, speedscope or pprof instead");
    }

    /**
     * The {@code --event} aliases (cpu, alloc, lock...) of which the recording holds events with stack
     * traces, in {@code --event}'s order: the profiles the viewer offers to choose between.
     */
    public static List<String> eventsWithStacks(Input in) throws IOException {
        return JfrReader.withPath(in, p -> {
            java.util.Set<String> names = new java.util.HashSet<>();
            try (jdk.jfr.consumer.RecordingFile file = new jdk.jfr.consumer.RecordingFile(p)) {
                while (file.hasMoreEvents()) {
                    jdk.jfr.consumer.RecordedEvent e = file.readEvent();
                    if (e.getStackTrace() != null) {
                        names.add(e.getEventType().getName());
                    }
                }
            } catch (IOException | RuntimeException | InternalError | StackOverflowError ex) {
                throw new InputException(in.name() + ": " + JfrReader.unreadable(ex), ex);
            }
            List<String> aliases = new java.util.ArrayList<>();
            for (JfrEvents e : JfrEvents.KNOWN) {
                if (e.eventNames().stream().anyMatch(names::contains)) {
                    aliases.add(e.alias());
                }
            }
            return aliases;
        });
    }

    @Override
    public boolean describe(Input in, FormatOptions options, PrintWriter out) throws IOException {
        JfrReader.withPath(in, p -> {
            JfrReader.describe(p, in.name(), out);
            return null;
        });
        return true;
    }
}
