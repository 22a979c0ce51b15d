package org.stackfold.collapse;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.util.function.Consumer;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.Profile;

/**
 * {@code collapse guess}: reads the first {@value #HEAD} bytes, asks every registered collapser's
 * {@link Collapser#detect} in registry order ({@link Collapsers#all()}; inferno tries perf, dtrace,
 * sample, vtune, vsprof, ghcprof, xctrace) and collapses with the first that says yes, passing the
 * options on. No match is an error ("No applicable collapse implementation found for input"),
 * where inferno logs that and writes nothing. An input shorter than the head is given to the
 * detectors with a final newline, so its last line counts.
 *
 * <p>A file is read again from its start by the chosen collapser; standard input is not read
 * twice: the head is put back in front of the rest of the stream.
 */
public final class GuessCollapser implements Collapser {
    /** Enough for every detector: the formats announce themselves in their first few lines. */
    static final int HEAD = 1 << 20;

    @Override
    public String name() {
        return "guess";
    }

    /** The collapser that would be chosen for this head, or null. */
    public static Collapser choose(byte[] head, int length) {
        Detect.Shared lines = Detect.share(head, length);
        try {
            for (Collapser c : Collapsers.all()) {
                if (!(c instanceof GuessCollapser) && c.detect(head, length)) {
                    return c;
                }
            }
            return null;
        } finally {
            lines.close();
        }
    }

    /** The head as detectors see it: a whole input shorter than the head gets a final newline, so its last line counts. */
    static byte[] probe(byte[] head) {
        return probe(head, HEAD);
    }

    /** As {@link #probe(byte[])} for a head read with at most {@code limit} bytes. */
    static byte[] probe(byte[] head, int limit) {
        if (head.length < limit && head.length > 0 && head[head.length - 1] != '\n') {
            byte[] probe = java.util.Arrays.copyOf(head, head.length + 1);
            probe[head.length] = '\n';
            return probe;
        }
        return head;
    }

    private static final String STDIN = "<stdin>";

    private static String renamed(String message, String from, String to) {
        return message.startsWith(from) ? to + message.substring(from.length()) : message;
    }

    /** True where the collapser has a detector of its own (folded-input collapsers have none). */
    private static boolean detects(Collapser c) {
        try {
            return c.getClass().getMethod("detect", byte[].class, int.class).getDeclaringClass() != Collapser.class;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        InputStream s = in.stream();
        byte[] head;
        try {
            head = s.readNBytes(HEAD);
        } catch (IOException e) {
            s.close();
            throw e;
        }
        byte[] probe = probe(head);
        Collapser chosen = choose(probe, probe.length);
        if (chosen == null) {
            s.close();
            throw new InputException(in.name() + ": No applicable collapse implementation found for input "
                    + "(tried " + String.join(", ", Collapsers.all().stream()
                    .filter(GuessCollapser::detects).map(Collapser::name).toList())
                    + "); name the format: stackfold collapse FORMAT");
        }
        if (in.path() != null) {
            s.close();
            return chosen.collapse(in, options, warnings);
        }
        // The rest is re-opened as a stream input, named "<stdin>"; messages get the caller's name back.
        String name = in.name();
        try (Input rest = Input.open("-", new SequenceInputStream(new ByteArrayInputStream(head), s))) {
            return chosen.collapse(rest, options, w -> warnings.accept(renamed(w, rest.name(), name)));
        } catch (InputException e) {
            String m = e.getMessage();
            throw m != null && m.startsWith(STDIN) && !name.equals(STDIN)
                    ? new InputException(renamed(m, STDIN, name), e) : e;
        }
    }
}
