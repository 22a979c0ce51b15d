package org.stackfold.collapse;

import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.function.Consumer;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * Off-CPU time from scheduler tracepoints, as {@code stackcollapse-perf-sched.awk} reads them:
 * {@code perf record -g -e sched:sched_switch -e sched:sched_stat_sleep -e sched:sched_stat_blocked}
 * then {@code perf script -F time,comm,pid,tid,event,ip,sym,dso,trace}. A {@code sched_switch}
 * event's stack (frames {@code ADDR NAME (DSO)}, leaf first, up to the blank line) is remembered
 * for its {@code prev_pid}; the next {@code sched_stat_sleep} or {@code sched_stat_blocked} event
 * for that {@code pid} adds its {@code delay} (ns) to {@code comm;stack}. Weights are microseconds:
 * each stack's summed delay divided by 1000, rounded down, as the awk script prints them.
 *
 * <p>Options, the awk variables' names: {@code record_tid} (root {@code comm-pid}, and the waker
 * {@code comm-pid}), {@code record_wake_stack} (the waking event's stack, leaf first, and the
 * waker's name above the sleeping stack), {@code recurse} (also the waker's own last sleeping
 * stack after a {@code -} frame, when the waker was itself woken; implies the wake stack).
 *
 * <p>Differences from the awk script: the event line is never taken for a frame (awk takes it
 * when perf pads the command name with leading spaces, as plain {@code perf script} does), command
 * names may contain spaces, and {@code recurse} finds the waker by thread id also when perf prints
 * {@code pid/tid} (awk keys it by the printed field and so never finds it then).
 */
public final class PerfSchedCollapser implements Collapser {
    private static final String SWITCH = "sched:sched_switch";
    private static final String SLEEP = "sched:sched_stat_sleep";
    private static final String BLOCKED = "sched:sched_stat_blocked";

    @Override
    public String name() {
        return "perf-sched";
    }

    @Override
    public boolean detect(byte[] head, int length) {
        // sched_stat events: a perf script of sched_switch alone is perf's (nothing here would count)
        for (String line : Detect.lines(head, length)) {
            if (!line.startsWith("#") && line.contains(": sched:sched_stat_")
                    && (line.contains(": " + SLEEP + ": ") || line.contains(": " + BLOCKED + ": "))) {
                return true;
            }
        }
        return false;
    }

    /** A stack as frame ids, root first (never a map key: records compare arrays by identity). */
    private record Stack(int[] frames) {
        Stack append(int... more) {
            int[] all = Arrays.copyOf(frames, frames.length + more.length);
            System.arraycopy(more, 0, all, frames.length, more.length);
            return new Stack(all);
        }
    }

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        boolean recordTid = options.flag("record_tid");
        boolean recurse = options.flag("recurse");
        boolean wakeStack = recurse || options.flag("record_wake_stack");
        Problems problems = Problems.of(in, options);
        Stacks stacks = new Stacks();
        HashMap<String, Stack> switchStacks = new HashMap<>();     // sleeping thread → its stack
        HashMap<String, Stack> lastSwitchStacks = new HashMap<>(); // recurse: woken thread → its full stack
        HashMap<String, Boolean> woken = new HashMap<>();          // recurse: threads that were woken
        long[][] delays = {new long[1024]}; // ns per call-tree node
        int dash = stacks.frame("-");
        LeafFirst frames = new LeafFirst();
        Event event = null;
        try (LineReader r = new LineReader(in.stream(), in.name())) {
            while (r.next()) {
                byte[] b = r.buffer();
                int s = r.start();
                int e = Bytes.lineEnd(r);
                if (e > s && b[s] == '#') {
                    continue;
                }
                if (e == s) {
                    if (event != null) {
                        event.end(frames, stacks, switchStacks, lastSwitchStacks, woken, delays, recordTid, wakeStack,
                                recurse, dash);
                    }
                    event = null;
                    frames.clear();
                    continue;
                }
                boolean isSwitch = Bytes.contains(b, s, e, SWITCH);
                boolean header = isSwitch || Bytes.contains(b, s, e, SLEEP) || Bytes.contains(b, s, e, BLOCKED);
                if (!header && event != null && Text.isSpace(b[s])) {
                    frames.add(frame(stacks, b, s, e));
                } else {
                    if (event != null) { // a header right after another: perf script without -g
                        event.end(frames, stacks, switchStacks, lastSwitchStacks, woken, delays, recordTid, wakeStack,
                                recurse, dash);
                    }
                    frames.clear();
                    event = header ? Event.parse(b, s, e, isSwitch, r.lineNumber(), problems) : null;
                }
            }
        }
        if (event != null) {
            event.end(frames, stacks, switchStacks, lastSwitchStacks, woken, delays, recordTid, wakeStack, recurse, dash);
        }
        for (int node = 0; node < delays[0].length; node++) {
            long us = delays[0][node] / 1000;
            if (us > 0) {
                stacks.addAt(node, us);
            }
        }
        problems.finish(warnings);
        return stacks.profile();
    }

    /** awk's {@code $2 ... $(NF-1)} of a frame line: the symbol between the address and the DSO. */
    private static int frame(Stacks stacks, byte[] b, int s, int e) {
        int p = Bytes.skipSpace(b, s, e);
        int second = Bytes.skipSpace(b, Bytes.skipNonSpace(b, p, e), e); // past the address
        if (second == e) {
            return stacks.frame(b, s, 0);
        }
        int end = Bytes.trimEnd(b, second, e);
        int last = end;
        while (last > second && !Text.isSpace(b[last - 1])) {
            last--;
        }
        int to = last == second ? end : Bytes.trimEnd(b, second, last); // one field: awk's NF == 2 keeps it
        boolean single = true;
        for (int i = second; i < to && single; i++) {
            single = b[i] == ' ' ? !Text.isSpace(b[i + 1]) : !Text.isSpace(b[i]);
        }
        if (single) {
            return stacks.frame(b, second, to - second);
        }
        StringBuilder name = new StringBuilder();
        for (int i = second; i < to; ) {
            int q = Bytes.skipNonSpace(b, i, to);
            name.append(name.isEmpty() ? "" : " ").append(Bytes.latin1(b, i, q));
            i = Bytes.skipSpace(b, q, to);
        }
        return stacks.frame(name.toString());
    }

    /** One scheduler event of interest: what its header line says. */
    private static final class Event {
        boolean isSwitch;
        String pid;       // switch: prev_pid; stat: the sleeper's pid
        String comm;      // stat: the sleeper's comm
        long delay;       // stat: ns
        String wakeComm;  // stat: the waker (the event's own comm)
        String wakePid;   // stat: as printed (pid or pid/tid)
        String wakeTid;   // stat: the thread id of the waker

        static Event parse(byte[] b, int s, int e, boolean isSwitch, long line, Problems problems) {
            Event ev = new Event();
            ev.isSwitch = isSwitch;
            if (isSwitch) {
                ev.pid = variable(b, s, e, "prev_pid=");
                if (ev.pid == null) {
                    problems.bad(line, "sched_switch event without prev_pid=");
                    return null;
                }
                return ev;
            }
            ev.pid = variable(b, s, e, "pid=");
            ev.comm = variable(b, s, e, "comm=");
            String delay = variable(b, s, e, "delay=");
            ev.delay = delay == null ? -1 : Text.parseCount(delay);
            if (ev.pid == null || ev.comm == null || ev.delay < 0) {
                problems.bad(line, "sched_stat event without comm=, pid= and a whole delay=");
                return null;
            }
            // header: COMM PID[/TID] [CPU] TIME: EVENT: ...
            int colon = timestampEnd(b, s, e);
            int p = colon;
            while (p > s && b[p - 1] != ' ') {
                p--;
            }
            int end = Bytes.trimEnd(b, s, p);
            if (end > s && b[end - 1] == ']') { // [CPU]
                end = Bytes.trimEnd(b, s, Bytes.lastIndexOf(b, s, end, '['));
            }
            int pidStart = Bytes.lastIndexOf(b, s, end, ' ') + 1;
            if (pidStart <= s) {
                problems.bad(line, "cannot find the command and pid before the time stamp");
                return null;
            }
            ev.wakePid = Bytes.latin1(b, pidStart, end);
            int slash = ev.wakePid.indexOf('/');
            ev.wakeTid = slash < 0 ? ev.wakePid : ev.wakePid.substring(slash + 1);
            ev.wakeComm = Bytes.latin1(b, Bytes.skipSpace(b, s, pidStart), Bytes.trimEnd(b, s, pidStart));
            return ev;
        }

        /** awk's {@code match($0, " [^ :]+:")}: the index of that colon (the time stamp's end). */
        private static int timestampEnd(byte[] b, int s, int e) {
            for (int i = s; i < e; i++) {
                if (b[i] == ' ') {
                    int j = i + 1;
                    while (j < e && b[j] != ' ' && b[j] != ':') {
                        j++;
                    }
                    if (j > i + 1 && j < e && b[j] == ':') {
                        return j;
                    }
                }
            }
            return e;
        }

        /** awk's {@code match($0, NAME "=[^[:space:]]+")}: the first such value, or null. */
        private static String variable(byte[] b, int s, int e, String name) {
            int from = s;
            while (true) {
                int at = Bytes.indexOf(b, from, e, name);
                if (at < 0) {
                    return null;
                }
                int v = at + name.length();
                int end = Bytes.skipNonSpace(b, v, e);
                if (end > v) {
                    return Bytes.latin1(b, v, end);
                }
                from = at + 1;
            }
        }

        void end(LeafFirst frames, Stacks stacks, HashMap<String, Stack> switchStacks,
                 HashMap<String, Stack> lastSwitchStacks, HashMap<String, Boolean> woken,
                 long[][] delays, boolean recordTid, boolean wakeStack, boolean recurse, int dash) {
            if (isSwitch) {
                if (!pid.equals("0")) {
                    int[] ids = new int[frames.size()];
                    for (int i = 0; i < ids.length; i++) {
                        ids[i] = frames.at(ids.length - 1 - i);
                    }
                    switchStacks.put(pid, new Stack(ids));
                    lastSwitchStacks.remove(pid);
                }
                return;
            }
            if (pid.equals("0")) {
                return;
            }
            Stack stack = switchStacks.remove(pid);
            if (stack == null) {
                return; // perf repeats stat events; only the first after a switch counts
            }
            woken.put(pid, Boolean.TRUE);
            if (wakeStack) {
                int[] wake = new int[frames.size() + 1];
                for (int i = 0; i < frames.size(); i++) {
                    wake[i] = frames.at(i); // leaf first, as awk appends them
                }
                wake[frames.size()] = stacks.frame(recordTid ? wakeComm + "-" + wakePid : wakeComm);
                stack = stack.append(wake);
            }
            if (recurse) {
                Stack waker = lastSwitchStacks.get(wakeTid);
                if (woken.containsKey(wakeTid)) {
                    // awk appends ";-;" and the waker's stack, empty when it has none (an empty frame)
                    stack = stack.append(dash).append(waker == null ? new int[] {stacks.frame("")} : waker.frames());
                }
                lastSwitchStacks.put(pid, stack);
            }
            stacks.clear();
            stacks.push(recordTid ? comm + "-" + pid : comm);
            for (int f : stack.frames()) {
                stacks.pushFrame(f);
            }
            int node = stacks.node();
            if (node >= delays[0].length) {
                delays[0] = Arrays.copyOf(delays[0], Math.max(node + 1, delays[0].length * 2));
            }
            delays[0][node] += delay;
        }
    }
}
