package org.stackfold.format.callgrind;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameKind;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/**
 * Reads a callgrind file (Valgrind's {@code callgrind.out.PID}, KCachegrind's input) into a call graph
 * of one event and unfolds it into a call tree as speedscope's {@code importFromCallgrind} does
 * ({@link CallGraph#addTo}). Lines are parsed on bytes; names are looked up through their
 * compressed ids ({@code (12)}), so a String is made once per distinct name.
 *
 * <p>Rules (docs/formats/callgrind.md): a function is its {@code fl=} file and {@code fn=} name
 * ({@code fi=}/{@code fe=} inline files do not change it); a cost line adds its cost to the function;
 * after {@code calls=} the next line is the call's inclusive cost, added to the edge from the
 * function to {@code cfn=} (in {@code cfi=}/{@code cfl=}, else the caller's file), and the callee is
 * forgotten after each call as KCachegrind does; position columns ({@code positions:}, default one
 * line column) may be {@code +N}, {@code -N}, {@code *} or hex; missing trailing costs are zero.
 */
final class CallgrindReader {
    /** The event read: by name or 0-based index; null for the first, as speedscope shows first. */
    private final String wantedEvent;

    private final List<String> strings = new ArrayList<>();
    private final HashMap<String, Integer> stringIds = new HashMap<>();
    /** Compressed name id → string id, for files and for functions (a map: ids may be any size). */
    private final LongIntMap fileRef = new LongIntMap();
    private final LongIntMap fnRef = new LongIntMap();

    private String source;
    private ByteLines lines;
    private List<String> events;
    private int eventColumn = -1;
    private int positions = 1;
    /** The columns of the previous cost line, for relative values. */
    private long[] previous = new long[8];
    private int file = -1;
    private int function = -1;
    private int calleeFile = -1;
    private int calleeFunction = -1;
    private int currentNode = -1;
    private final LongIntMap frameOfFunction = new LongIntMap();
    private final CallGraph graph = new CallGraph();
    private FrameTable frames;
    private long callsLine;

    private java.util.function.Consumer<String> warnings = w -> { };

    CallgrindReader warnings(java.util.function.Consumer<String> sink) {
        this.warnings = sink;
        return this;
    }

    CallgrindReader(String wantedEvent) {
        this.wantedEvent = wantedEvent;
    }

    Profile read(Input in) throws IOException {
        source = in.name();
        Profile profile;
        try (InputStream s = in.stream()) {
            lines = new ByteLines(s, source);
            FrameTable table = new FrameTable();
            frames = table;
            try {
                parse();
            } catch (ArithmeticException e) {
                throw new InputException(source + ":" + lines.lineNumber + ": callgrind: costs add up past 2^63-1");
            }
            if (events == null) {
                throw new InputException(source + ": callgrind: no \"events:\" line");
            }
            String event = events.get(eventColumn);
            double multiplier = event.equals("Time_(10ns)") ? 10 : 1;
            Profile.ValueType type = event.equals("Time_(10ns)") ? new Profile.ValueType("time", "nanoseconds")
                    : event.equals("Memory_(bytes)") ? new Profile.ValueType("memory", "bytes")
                    : new Profile.ValueType(event, "count");
            CallTree tree = new CallTree(1);
            try {
                if (graph.maxTotal() > 1L << 53) {
                    throw new InputException(source + ": callgrind: a function's cost of " + graph.maxTotal()
                            + " is past 2^53, where the call graph's unfolding is no longer exact");
                }
                graph.addTo(tree, multiplier);
                long held = Math.multiplyExact(declaredTotal(graph.selfSum()), (long) multiplier);
                // A conversion never reports more cost than the file holds (issue 29): its totals:/summary:
                // line where it has one, else the sum of its self costs, plus rounding (each node's
                // weight rounded once). Speedscope's rule spreads inclusive call costs by average, which
                // inflates recursion and cycles (pyprof2calltree's files ~23x) and even Valgrind's own
                // files a little (2% on our test programs): those are read as a flat profile.
                long rounding = Math.multiplyExact((long) tree.size(), Math.max(1L, (long) Math.ceil(multiplier)));
                if (tree.totalSamples() > held && tree.totalSamples() - held > rounding) {
                    warnings.accept(source + ": callgrind: unfolding the call graph gives " + tree.totalSamples()
                            + " where the file holds " + held + " (recursion or cycles): read as a flat profile,"
                            + " each function with its self cost");
                    tree = new CallTree(1);
                    graph.addFlatTo(tree, (long) multiplier);
                }
            } catch (ArithmeticException e) {
                throw new InputException(source + ": callgrind: costs add up past 2^63-1");
            }
            profile = new Profile(table, tree, List.of(type));
        }
        return profile;
    }

    /** The events the file counts, after {@link #read}. */
    List<String> events() {
        return events;
    }

    /** The value of the last totals: line, else the first summary: line; null where neither. */
    private String declared;

    private void parse() throws IOException {
        ByteLines l = lines;
        while (l.next()) {
            byte[] b = l.buf;
            int i = skipBlanks(b, l.start, l.end);
            if (i == l.end || b[i] == '#') {
                continue;
            }
            int word = i;
            while (word < l.end && isWord(b[word])) {
                word++;
            }
            if (word < l.end && word > i && b[word] == ':') {
                header(b, i, word, l.end);
            } else if (word < l.end && word > l.start && i == l.start && b[word] == '=') {
                assignment(b, i, word, l.end);
            } else if (!costLine(false)) {
                throw error(l.lineNumber, "not a callgrind line: \"" + text(b, l.start, Math.min(l.end, l.start + 80)) + "\"");
            }
        }
    }

    private void header(byte[] b, int keyStart, int keyEnd, int end) {
        String key = text(b, keyStart, keyEnd);
        int v = skipBlanks(b, keyEnd + 1, end);
        if (key.equals("events")) {
            List<String> names = List.of(text(b, v, end).trim().split("\\s+"));
            if (events != null && !events.equals(names)) {
                throw error(lines.lineNumber, "a second \"events:\" line that differs from the first (" + String.join(" ", events) + ")");
            }
            events = names;
            eventColumn = chooseEvent(names);
        } else if (key.equals("totals") || key.equals("summary")) {
            String value = text(b, v, end).trim();
            if (key.equals("totals") || declared == null) {
                declared = value;
            }
        } else if (key.equals("positions")) {
            positions = text(b, v, end).trim().split("\\s+").length;
        }
    }

    /**
     * The file's own total of the chosen event: its {@code totals:} line, else its {@code summary:}
     * line (Callgrind writes both; they are equal), else {@code selfSum}. A line that does not parse
     * or lacks the event's column counts as absent.
     */
    private long declaredTotal(long selfSum) {
        if (declared == null) {
            return selfSum;
        }
        String[] cols = declared.split("\\s+");
        if (eventColumn >= cols.length) {
            return selfSum;
        }
        try {
            long v = Long.parseLong(cols[eventColumn]);
            return v >= 0 ? v : selfSum;
        } catch (NumberFormatException e) {
            return selfSum;
        }
    }

    private int chooseEvent(List<String> names) {
        if (wantedEvent == null) {
            return 0;
        }
        for (int k = 0; k < names.size(); k++) {
            if (names.get(k).equalsIgnoreCase(wantedEvent)) {
                return k;
            }
        }
        try {
            int k = Integer.parseInt(wantedEvent);
            if (k >= 0 && k < names.size()) {
                return k;
            }
        } catch (NumberFormatException ignored) {
            // not an index either: say which events there are
        }
        throw new InputException(source + ": callgrind: no event '" + wantedEvent + "'; the file has "
                + String.join(", ", names));
    }

    private void assignment(byte[] b, int keyStart, int keyEnd, int end) throws IOException {
        int v = skipBlanks(b, keyEnd + 1, end);
        int len = keyEnd - keyStart;
        byte c0 = b[keyStart];
        byte c1 = len > 1 ? b[keyStart + 1] : 0;
        byte c2 = len > 2 ? b[keyStart + 2] : 0;
        if (len == 2 && c0 == 'f' && c1 == 'l') {
            file = name(b, v, end, true);
            currentNode = -1;
        } else if (len == 2 && c0 == 'f' && c1 == 'n') {
            function = name(b, v, end, false);
            currentNode = -1;
        } else if (len == 3 && c0 == 'c' && c1 == 'f' && c2 == 'n') {
            calleeFunction = name(b, v, end, false);
        } else if (len == 3 && c0 == 'c' && c1 == 'f' && (c2 == 'i' || c2 == 'l')) {
            calleeFile = name(b, v, end, true);
        } else if (len == 2 && c0 == 'f' && (c1 == 'i' || c1 == 'e')) {
            name(b, v, end, true); // an inlined file: the function stays; only its name may be defined here
        } else if (len == 3 && c0 == 'j' && c1 == 'f' && c2 == 'i') {
            name(b, v, end, true);
        } else if (len == 3 && c0 == 'j' && c1 == 'f' && c2 == 'n') {
            name(b, v, end, false);
        } else if (len == 5 && text(b, keyStart, keyEnd).equals("calls")) {
            callsLine = lines.lineNumber;
            if (!lines.next() || !costLine(true)) {
                throw error(callsLine, "\"calls=\" is not followed by the call's cost line");
            }
            calleeFile = -1;
            calleeFunction = -1;
        }
        // ob=, cob=, jump=, jcnd= and unknown keys carry nothing a call tree shows
    }

    /** A name with compression: "(id) name" defines id, "(id)" uses it, anything else is itself. */
    private int name(byte[] b, int start, int end, boolean isFile) {
        LongIntMap refs = isFile ? fileRef : fnRef;
        if (start < end && b[start] == '(') {
            int i = start + 1;
            long id = 0;
            while (i < end && b[i] >= '0' && b[i] <= '9' && id < Integer.MAX_VALUE) {
                id = id * 10 + (b[i++] - '0');
            }
            if (i > start + 1 && i < end && b[i] == ')' && id < Integer.MAX_VALUE) {
                int nameStart = skipBlanks(b, i + 1, end);
                int known = refs.get(id);
                if (nameStart == end) {
                    if (known < 0) {
                        throw error(lines.lineNumber, "name (" + id + ") used before it was defined");
                    }
                    return known;
                }
                if (known >= 0) {
                    throw error(lines.lineNumber, "name (" + id + ") defined twice (first as \"" + strings.get(known) + "\")");
                }
                int s = intern(text(b, nameStart, end));
                refs.put(id, s);
                return s;
            }
        }
        return intern(text(b, start, end));
    }

    private int intern(String s) {
        Integer id = stringIds.get(s);
        if (id == null) {
            id = strings.size();
            strings.add(s);
            stringIds.put(s, id);
        }
        return id;
    }

    /**
     * A cost line (positions, then costs): its cost of the chosen event goes to the current function,
     * or to the call's edge. False where the line is not one.
     */
    private boolean costLine(boolean call) {
        byte[] b = lines.buf;
        int i = lines.start;
        int end = lines.end;
        long cost = 0;
        int column = 0;
        int wanted = positions + Math.max(eventColumn, 0);
        while (i < end) {
            if (b[i] == ' ' || b[i] == '\t') {
                if (column == 0) {
                    return false;
                }
                i++;
                continue;
            }
            int s = i;
            while (i < end && b[i] != ' ' && b[i] != '\t') {
                i++;
            }
            if (column >= previous.length) {
                previous = Arrays.copyOf(previous, Math.max(column + 1, previous.length * 2));
            }
            long v = value(b, s, i, previous[column], column < positions);
            if (v == Long.MIN_VALUE) {
                return false;
            }
            previous[column] = v;
            if (column == wanted) {
                cost = v;
            }
            column++;
        }
        if (column == 0) {
            return false;
        }
        if (events == null) {
            throw error(lines.lineNumber, "a cost line before the \"events:\" line");
        }
        if (currentNode < 0) {
            currentNode = graph.node(frameOf(file, function));
        }
        if (call) {
            int callee = graph.node(frameOf(calleeFile >= 0 ? calleeFile : file, calleeFunction));
            graph.addCall(currentNode, callee, cost);
        } else {
            graph.addSelf(currentNode, cost);
        }
        return true;
    }

    /**
     * One column of a cost line: a number, or relative to the same column of the previous cost line
     * ({@code *} the same, {@code +N}, {@code -N}); positions may be hex. speedscope applies the
     * relative forms to cost columns too, so they are read there as well.
     */
    private static long value(byte[] b, int s, int e, long previous, boolean position) {
        if (e - s == 1 && b[s] == '*') {
            return previous;
        }
        if (b[s] == '+' || b[s] == '-') {
            long n = number(b, s + 1, e);
            long v = n < 0 ? Long.MIN_VALUE : b[s] == '+' ? previous + n : previous - n;
            return !position && v < 0 ? Long.MIN_VALUE : v;
        }
        if (position && e - s > 2 && b[s] == '0' && (b[s + 1] == 'x' || b[s + 1] == 'X')) {
            long n = 0;
            for (int i = s + 2; i < e; i++) {
                int d = Character.digit(b[i], 16);
                if (d < 0 || n >>> 60 != 0) {
                    return Long.MIN_VALUE;
                }
                n = n << 4 | d;
            }
            return n;
        }
        long n = number(b, s, e);
        return n < 0 ? Long.MIN_VALUE : n;
    }

    /** A decimal count, or -1 where the bytes are not one (or it overflows). */
    private static long number(byte[] b, int s, int e) {
        if (s == e) {
            return -1;
        }
        long n = 0;
        for (int i = s; i < e; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9 || n > (Long.MAX_VALUE - d) / 10) {
                return -1;
            }
            n = n * 10 + d;
        }
        return n;
    }

    /** The frame of a function: its name and file, "(unknown)" where the file did not say. */
    private int frameOf(int fileId, int functionId) {
        long key = ((long) fileId << 32) | (functionId & 0xFFFFFFFFL);
        int f = frameOfFunction.get(key);
        if (f < 0) {
            String name = functionId < 0 ? "(unknown)" : strings.get(functionId);
            String fileName = fileId < 0 ? null : strings.get(fileId);
            f = frames.frame(name, FrameKind.UNKNOWN, fileName, FrameTable.NONE, FrameTable.NONE, FrameTable.NONE,
                    FrameTable.NONE, FrameTable.NONE);
            frameOfFunction.put(key, f);
        }
        return f;
    }

    private InputException error(long line, String what) {
        return InputException.atLine(source, line, "callgrind: " + what);
    }

    private static boolean isWord(byte c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    }

    private static int skipBlanks(byte[] b, int i, int end) {
        while (i < end && (b[i] == ' ' || b[i] == '\t')) {
            i++;
        }
        return i;
    }

    private static String text(byte[] b, int s, int e) {
        return new String(b, s, e - s, StandardCharsets.UTF_8);
    }
}
