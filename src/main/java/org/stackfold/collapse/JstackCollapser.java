package org.stackfold.collapse;

import java.io.IOException;
import java.util.function.Consumer;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * Java thread dumps ({@code jstack PID}, many appended to one file), as
 * {@code stackcollapse-jstack.pl} reads them: each thread's {@code at ...} frames (leaf first,
 * the method name up to its {@code (}) are one stack, counted once, when the blank line after the
 * thread comes and the thread is {@code RUNNABLE} and not one of the threads that are known not to
 * run:
 *
 * <ul>
 *   <li>threads whose name contains {@code C? CompilerThread}, {@code Signal Dispatcher},
 *       {@code Service Thread} or {@code Attach Listener};
 *   <li>stacks with a frame matching {@code epollWait} or {@code EPoll.wait} (waiting), or ending
 *       in {@code socketAccept}, {@code Socket...accept0} or {@code socketRead0} (network);
 *   <li>the state is the first {@code java.lang.Thread.State:} of the thread.
 * </ul>
 *
 * <p>The thread name is the root frame ({@code includetname}, default on), without a trailing
 * {@code -NUMBER} unless {@code includetid}; {@code shortenpkgs} shortens package names. Lines
 * starting with {@code #} are skipped; other lines (lock lines, headers, SMR info) are ignored, as
 * perl ignores them after a warning. Unlike perl, a thread at the end of the input without a
 * blank line after it still counts.
 */
public final class JstackCollapser implements Collapser {
    private static final String STATE = "java.lang.Thread.State: ";

    @Override
    public String name() {
        return "jstack";
    }

    @Override
    public boolean detect(byte[] head, int length) {
        boolean thread = false;
        for (String line : Detect.lines(head, length)) {
            if (line.startsWith("Full thread dump ")) {
                return true;
            }
            if (line.startsWith("\"") && (line.contains(" prio=") || line.contains(" tid=") || line.contains(" nid="))) {
                thread = true;
            } else if (thread && line.contains(STATE)) {
                return true;
            } else {
                thread = false;
            }
        }
        return false;
    }

    private enum State { UNKNOWN, RUNNABLE, OTHER }

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        boolean includeTname = Boolean.parseBoolean(options.get("includetname", "true"));
        boolean includeTid = options.flag("includetid");
        boolean shorten = options.flag("shortenpkgs");
        Problems problems = Problems.of(in, options);
        Stacks stacks = new Stacks();
        LeafFirst stack = new LeafFirst();
        int tname = -1;
        State state = State.UNKNOWN;
        try (LineReader r = new LineReader(in.stream(), in.name())) {
            while (r.next()) {
                byte[] b = r.buffer();
                int s = r.start();
                int e = Bytes.lineEnd(r);
                if (e > s && b[s] == '#') {
                    continue;
                }
                if (e == s) {
                    count(stacks, stack, tname, state);
                    stack.clear();
                    tname = -1;
                    state = State.UNKNOWN;
                } else if (b[s] == '"') {
                    int close = Bytes.indexOf(b, s + 1, e, '"');
                    String name = Bytes.latin1(b, s + 1, close < 0 ? e : close);
                    if (includeTname) {
                        tname = stacks.frame(includeTid ? name : withoutNumber(name));
                    }
                    if (background(name)) {
                        state = State.OTHER;
                    }
                } else {
                    int st = Bytes.indexOf(b, s, e, STATE);
                    if (st >= 0) {
                        int v = st + STATE.length();
                        int ve = Bytes.skipNonSpace(b, v, e);
                        if (state == State.UNKNOWN && ve > v) {
                            state = Bytes.latin1(b, v, ve).equals("RUNNABLE") ? State.RUNNABLE : State.OTHER;
                        }
                        continue;
                    }
                    int at = Bytes.skipSpace(b, s, e);
                    if (!Bytes.startsWith(b, at, e, "at ")) {
                        continue; // "- locked <...>", dump headers, SMR info, "JNI global references"
                    }
                    int from = at + 3;
                    int to = JavaFrames.nameEnd(b, from, e);
                    if (shorten) {
                        stack.add(stacks.frame(JavaFrames.shorten(Bytes.latin1(b, from, to), false)));
                    } else {
                        stack.add(stacks.frame(b, from, to - from));
                    }
                    if (notRunning(b, from, to)) {
                        state = State.OTHER;
                    }
                }
            }
        }
        count(stacks, stack, tname, state);
        problems.finish(warnings);
        return stacks.profile();
    }

    private static void count(Stacks stacks, LeafFirst stack, int tname, State state) {
        if (state != State.RUNNABLE || stack.isEmpty() && tname < 0) {
            return; // a named thread without frames (a VM thread) counts as its name, as in perl
        }
        if (tname >= 0) {
            stack.addTo(stacks, 1, tname);
        } else {
            stack.addTo(stacks, 1);
        }
    }

    /** perl's {@code s/-\d+$//}. */
    static String withoutNumber(String name) {
        int i = name.length();
        while (i > 0 && Character.isDigit(name.charAt(i - 1)) && name.charAt(i - 1) < 128) {
            i--;
        }
        return i < name.length() && i > 0 && name.charAt(i - 1) == '-' ? name.substring(0, i - 1) : name;
    }

    private static boolean background(String name) {
        int c = name.indexOf(" CompilerThread");
        while (c >= 0) {
            if (c >= 2 && name.charAt(c - 2) == 'C') { // perl's /C. CompilerThread/
                return true;
            }
            c = name.indexOf(" CompilerThread", c + 1);
        }
        return name.contains("Signal Dispatcher") || name.contains("Service Thread") || name.contains("Attach Listener");
    }

    /** perl's state fixes: waiting in epoll, or in a socket accept or read. */
    private static boolean notRunning(byte[] b, int from, int to) {
        if (Bytes.contains(b, from, to, "epollWait") || Bytes.contains(b, from, to, "EPoll.wait")
                || Bytes.endsWith(b, from, to, "socketAccept") || Bytes.endsWith(b, from, to, "socketRead0")) {
            return true;
        }
        int socket = Bytes.indexOf(b, from, to, "Socket");
        return socket >= 0 && Bytes.endsWith(b, from, to, "accept0") && to - 7 >= socket + 6;
    }
}
