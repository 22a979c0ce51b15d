package org.stackfold.collapse;

import java.io.IOException;
import java.util.function.Consumer;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * IBM Java (J9, OpenJ9, Semeru) javacore thread dumps ({@code kill -3}, {@code jcmd PID
 * Dump.java}), as {@code stackcollapse-ibmjava.pl} reads them: a thread's
 * {@code 4XESTACKTRACE                at pkg.Class.method(...)} lines are its frames (leaf first);
 * the stack is counted once at the thread's {@code 3XMTHREADINFO3           Native callstack:}
 * line, under the thread name from its {@code 3XMTHREADINFO      "name" ...} line ({@code
 * includetname}, default on; {@code includetid} appends {@code -} and the native thread id of the
 * {@code 3XMTHREADINFO1} line; anonymous native threads are named {@code Anonymous native thread}).
 * All states count (perl reads the state but does not filter on it). {@code shortenpkgs} shortens
 * package names. Lines starting with {@code #} are skipped.
 */
public final class IbmjavaCollapser implements Collapser {
    private static final String NATIVE = "3XMTHREADINFO3           Native callstack:";
    private static final String THREAD = "3XMTHREADINFO      \"";
    private static final String ANONYMOUS = "3XMTHREADINFO      Anonymous native thread";
    private static final String THREAD_ID = "3XMTHREADINFO1            (native thread ID:";
    private static final String FRAME = "4XESTACKTRACE                at ";

    @Override
    public String name() {
        return "ibmjava";
    }

    @Override
    public boolean detect(byte[] head, int length) {
        for (String line : Detect.lines(head, length)) {
            if (line.startsWith("0SECTION       TITLE subcomponent dump routine") || line.startsWith(THREAD)
                    || line.startsWith(FRAME)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        boolean includeTname = Boolean.parseBoolean(options.get("includetname", "true"));
        boolean includeTid = options.flag("includetid");
        boolean shorten = options.flag("shortenpkgs");
        Problems problems = Problems.of(in, options);
        Stacks stacks = new Stacks();
        LeafFirst stack = new LeafFirst();
        String tname = null;
        try (LineReader r = new LineReader(in.stream(), in.name())) {
            while (r.next()) {
                byte[] b = r.buffer();
                int s = r.start();
                int e = Bytes.lineEnd(r);
                if (e > s && b[s] == '#') {
                    continue;
                }
                if (Bytes.startsWith(b, s, e, NATIVE)) {
                    if (!stack.isEmpty() || tname != null) { // a named thread without Java frames counts too
                        if (tname != null) {
                            stack.addTo(stacks, 1, stacks.frame(tname));
                        } else {
                            stack.addTo(stacks, 1);
                        }
                    }
                    stack.clear();
                    tname = null;
                } else if (Bytes.startsWith(b, s, e, THREAD)) {
                    int from = s + THREAD.length();
                    int close = Bytes.indexOf(b, from, e, '"');
                    if (includeTname && close >= 0 && Bytes.contains(b, close, e, " state:")) {
                        tname = Bytes.latin1(b, from, close);
                    }
                } else if (Bytes.contains(b, s, e, ANONYMOUS)) {
                    if (includeTname) {
                        tname = "Anonymous native thread";
                    }
                } else if (Bytes.startsWith(b, s, e, THREAD_ID)) {
                    int from = s + THREAD_ID.length();
                    int to = Bytes.indexOf(b, from, e, ' ');
                    if (includeTname && includeTid && to >= 0 && Bytes.startsWith(b, to, e, " native priority")) {
                        String id = Bytes.latin1(b, from, to);
                        if (id.endsWith(",")) {
                            tname = (tname == null ? "" : tname) + "-" + id.substring(0, id.length() - 1);
                        }
                    }
                } else if (Bytes.startsWith(b, s, e, FRAME)) {
                    int from = s + FRAME.length();
                    int to = JavaFrames.nameEnd(b, from, e);
                    stack.add(shorten ? stacks.frame(JavaFrames.shorten(Bytes.latin1(b, from, to), false))
                            : stacks.frame(b, from, to - from));
                }
            }
        }
        problems.finish(warnings);
        return stacks.profile();
    }
}
