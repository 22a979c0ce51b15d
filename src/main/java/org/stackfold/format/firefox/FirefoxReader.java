package org.stackfold.format.firefox;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameKind;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;
import org.stackfold.model.Timeline;

/**
 * Reads a Firefox profiler file: the Gecko format (what Firefox's profiler emits; threads of
 * {@code schema}/{@code data} tables with a per-thread {@code stringTable}, child processes under
 * {@code processes}, or wrapped in {@code profile} as Firefox's old DevTools panel saved it) and the
 * processed format (profiler.firefox.com's "Save as file", CPython's {@code --gecko}; per-thread or,
 * from version 60, {@code shared} tables; per-thread {@code stringArray} or, from version 56,
 * {@code shared.stringArray}; {@code prefix} or, from version 66, {@code prefixOffset};
 * {@code funcTable.fileName} or, from version 58, {@code source}; sample {@code time} or
 * {@code timeDeltas}). Rules in docs/formats/firefox.md:
 *
 * <ul>
 *   <li>Every thread is read, in file order, each sample's stack into one call tree, the samples
 *       in order as the {@link Timeline} (thread = tid, named by the thread's name).
 *   <li>Weights: a Gecko thread's sample weighs the time until the thread's next sample in
 *       microseconds, the last none (speedscope's rule); a processed thread's sample weighs its
 *       {@code weight} or 1 (the Firefox profiler's call tree).
 *   <li>Frames: a Gecko location {@code name (file:line:col)} is split into name, file, line and
 *       column (made 1-based); other locations are names. A processed frame is its function:
 *       name, file, line and column of the function.
 *   <li>Option {@code firefox.speedscope}: speedscope's view of a Gecko file (only the
 *       {@code GeckoMain} thread where there are several, only JavaScript frames, no Firefox
 *       internals); option {@code thread-frames}: the thread's name as the root frame.
 * </ul>
 */
final class FirefoxReader {
    private static final JsonFactory JSON = JsonFactory.builder().build();
    private static final Pattern LOCATION = Pattern.compile("(.*)\\s+\\((.*?)(?::(\\d+))?(?::(\\d+))?\\)$", Pattern.DOTALL);
    static final Profile.ValueType WALL = new Profile.ValueType("wall", "microseconds");

    /** One thread as read. */
    private static final class Thread {
        String name;
        String processName;
        String tid;
        String pid;
        double timeOffset;
        final FirefoxTables tables = new FirefoxTables();
        FirefoxProcess process;
    }

    /** A profile's (or a child process's) shared parts. */
    private static final class FirefoxProcess {
        final FirefoxTables shared = new FirefoxTables();
        double startTime = Double.NaN;
        boolean processed;
    }

    private final boolean speedscope;
    private final boolean threadFrames;
    private final List<Thread> threads = new ArrayList<>();
    private String source;
    private boolean sawProfile;

    FirefoxReader(boolean speedscope, boolean threadFrames) {
        this.speedscope = speedscope;
        this.threadFrames = threadFrames;
    }

    Profile read(Input in, Consumer<String> warnings) throws IOException {
        source = in.name();
        try (InputStream s = in.stream(); JsonParser p = JSON.createParser(s)) {
            try {
                if (p.nextToken() != JsonToken.START_OBJECT) {
                    throw InputException.atOffset(source, 0, "firefox: expected a JSON object");
                }
                profile(p, null);
            } catch (StreamReadException e) {
                long offset = e.getLocation() == null ? p.currentLocation().getByteOffset() : e.getLocation().getByteOffset();
                throw InputException.atOffset(source, Math.max(0, offset), "firefox: invalid JSON: " + e.getOriginalMessage());
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                // a parser limit (nesting depth, number length, name length): where the parser stood
                throw InputException.atOffset(source, p.currentLocation().getByteOffset(),
                        "firefox: JSON past a limit: " + e.getOriginalMessage());
            }
        }
        if (!sawProfile) {
            throw new InputException(source + ": firefox: no \"threads\" (not a Firefox profiler file)");
        }
        return build(warnings);
    }

    /** A profile object (the parser is on its START_OBJECT); {@code parent} for a child process. */
    private void profile(JsonParser p, FirefoxProcess parent) throws IOException {
        FirefoxProcess process = new FirefoxProcess();
        int firstThread = threads.size();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            switch (field) {
                case "meta" -> meta(p, t, process);
                case "threads" -> {
                    sawProfile = true;
                    if (t != JsonToken.START_ARRAY) {
                        throw InputException.atOffset(source, p.currentLocation().getByteOffset(),
                                "firefox: \"threads\" is not an array");
                    }
                    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                        if (t == JsonToken.START_OBJECT) {
                            thread(p, process);
                        } else {
                            // Gecko before version 9 could store a thread as a JSON string
                            throw InputException.atOffset(source, p.currentLocation().getByteOffset(),
                                    "firefox: a thread is not a JSON object (Gecko profiles before 2017 are not read)");
                        }
                    }
                }
                case "processes" -> {
                    if (t == JsonToken.START_ARRAY) {
                        while ((t = p.nextToken()) == JsonToken.START_OBJECT) {
                            profile(p, process);
                        }
                    } else {
                        p.skipChildren();
                    }
                }
                case "profile" -> {
                    if (t == JsonToken.START_OBJECT && parent == null && threads.isEmpty()) {
                        profile(p, null); // Firefox's old DevTools panel wraps the Gecko profile
                    } else {
                        p.skipChildren();
                    }
                }
                case "shared" -> shared(p, t, process);
                default -> p.skipChildren();
            }
        }
        // A child process's sample times count from its own start; shift them onto the parent's clock.
        if (parent != null && !Double.isNaN(parent.startTime) && !Double.isNaN(process.startTime)) {
            for (int i = firstThread; i < threads.size(); i++) {
                threads.get(i).timeOffset = process.startTime - parent.startTime;
            }
        }
    }

    private void meta(JsonParser p, JsonToken t, FirefoxProcess process) throws IOException {
        if (t != JsonToken.START_OBJECT) {
            p.skipChildren();
            return;
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken v = p.nextToken();
            if (field.equals("startTime") && v.isNumeric()) {
                process.startTime = p.getDoubleValue();
            } else if (field.equals("preprocessedProfileVersion")) {
                process.processed = true;
            }
            p.skipChildren();
        }
    }

    private void shared(JsonParser p, JsonToken t, FirefoxProcess process) throws IOException {
        if (t != JsonToken.START_OBJECT) {
            p.skipChildren();
            return;
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken v = p.nextToken();
            if (field.equals("stringArray")) {
                process.shared.strings = FirefoxTables.readStrings(p, v);
            } else if (!process.shared.readTable(field, p, v, source)) {
                p.skipChildren();
            }
        }
    }

    private void thread(JsonParser p, FirefoxProcess process) throws IOException {
        Thread th = new Thread();
        th.process = process;
        threads.add(th);
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken v = p.nextToken();
            switch (field) {
                case "name" -> th.name = v == JsonToken.VALUE_STRING ? p.getText() : th.name;
                case "processName" -> th.processName = v == JsonToken.VALUE_STRING ? p.getText() : null;
                case "tid" -> th.tid = v.isScalarValue() ? p.getValueAsString() : null;
                case "pid" -> th.pid = v.isScalarValue() ? p.getValueAsString() : null;
                case "stringTable", "stringArray" -> th.tables.strings = FirefoxTables.readStrings(p, v);
                default -> {
                    if (!th.tables.readTable(field, p, v, source)) {
                        p.skipChildren();
                    }
                }
            }
        }
    }

    private Profile build(Consumer<String> warnings) {
        // Time-weighted: Gecko threads (speedscope's rule) and processed "tracing-ms" weights
        boolean timed = threads.stream().anyMatch(t -> t.tables.geckoSamples || "tracing-ms".equals(t.tables.weightType));
        Profile profile = new Profile(new FrameTable(), new CallTree(1), List.of(timed ? WALL : Profile.ValueType.SAMPLES));
        Timeline timeline = new Timeline("microseconds");
        List<Thread> chosen = threads;
        if (speedscope && threads.size() > 1) {
            chosen = threads.stream().filter(t -> "GeckoMain".equals(t.name)).limit(1).toList();
        }
        long nextId = 1L << 40; // threads without a numeric tid
        for (Thread th : chosen) {
            long id;
            try {
                id = th.tid == null ? nextId++ : Long.parseLong(th.tid);
            } catch (NumberFormatException e) {
                id = nextId++;
            }
            String name = th.name != null ? th.name : "thread " + (th.tid != null ? th.tid : id);
            timeline.nameThread(id, name);
            new ThreadBuilder(th, profile, timeline, id, name).build();
        }
        if (timeline.size() > 0) {
            profile.setTimeline(timeline);
        }
        return profile;
    }

    /** Turns one thread's samples into call-tree nodes and timeline samples. */
    private final class ThreadBuilder {
        private final Thread th;
        private final Profile profile;
        private final Timeline timeline;
        private final long threadId;
        private final FirefoxTables stacks;
        private final FirefoxTables frameTables;
        private final FirefoxTables funcTables;
        private final List<String> strings;
        private final int root;
        private int[] nodeOf;
        private int[] frameOf;

        ThreadBuilder(Thread th, Profile profile, Timeline timeline, long threadId, String name) {
            this.th = th;
            this.profile = profile;
            this.timeline = timeline;
            this.threadId = threadId;
            FirefoxTables own = th.tables;
            FirefoxTables shared = th.process.shared;
            this.stacks = own.hasStacks() ? own : shared;
            this.frameTables = own.frameFunc != null ? own : shared;
            this.funcTables = own.funcName != null ? own : shared;
            this.strings = own.strings != null ? own.strings : shared.strings != null ? shared.strings : List.of();
            this.root = threadFrames ? profile.tree().child(CallTree.ROOT, profile.frames().frame(name, FrameKind.UNKNOWN,
                    null, FrameTable.NONE, FrameTable.NONE, FrameTable.NONE, FrameTable.NONE, FrameTable.NONE))
                    : CallTree.ROOT;
        }

        void build() {
            FirefoxTables s = th.tables;
            if (s.sampleStack == null || stacks.stackFrame == null) {
                return;
            }
            int n = s.sampleStack.size;
            double[] time = times(s, n);
            nodeOf = new int[stacks.stackFrame.size];
            Arrays.fill(nodeOf, Integer.MIN_VALUE);
            frameOf = new int[frameTables.frameFunc != null ? Math.max(frameTables.frameFunc.size,
                    frameTables.frameLocation == null ? 0 : frameTables.frameLocation.size) : 0];
            Arrays.fill(frameOf, Integer.MIN_VALUE);
            CallTree tree = profile.tree();
            for (int i = 0; i < n; i++) {
                int stack = s.sampleStack.v[i];
                long at = Math.round((time[i] + th.timeOffset) * 1000);
                long weight;
                if (s.geckoSamples) {
                    // speedscope: a sample's stack runs until the next sample; the last gets nothing
                    weight = i + 1 < n ? Math.max(0, Math.round((time[i + 1] + th.timeOffset) * 1000) - at) : 0;
                } else {
                    double w = s.sampleWeight != null && i < s.sampleWeight.size ? s.sampleWeight.v[i] : 1;
                    weight = "tracing-ms".equals(s.weightType) ? Math.round(w * 1000) : Math.round(w);
                }
                if (stack < 0 || weight <= 0) {
                    continue;
                }
                int node = node(stack);
                if (node == CallTree.ROOT && root == CallTree.ROOT) {
                    continue; // every frame was left out
                }
                tree.addSelf(node, weight);
                timeline.add(threadId, 0, at, 0, node, weight);
            }
        }

        private double[] times(FirefoxTables s, int n) {
            double[] t = new double[n];
            if (s.sampleTime != null) {
                System.arraycopy(s.sampleTime.v, 0, t, 0, Math.min(n, s.sampleTime.size));
            } else if (s.sampleDelta != null) {
                double sum = 0;
                for (int i = 0; i < Math.min(n, s.sampleDelta.size); i++) {
                    sum += s.sampleDelta.v[i];
                    t[i] = sum;
                }
            }
            return t;
        }

        /** The call-tree node of a stack index, made once (prefix chains resolved iteratively). */
        private int node(int stack) {
            if (stack >= nodeOf.length) {
                throw new InputException(source + ": firefox: thread " + th.name + ": a sample names stack " + stack
                        + ", past the stack table's " + nodeOf.length);
            }
            int[] chain = new int[16];
            int depth = 0;
            int at = stack;
            while (at >= 0 && nodeOf[at] == Integer.MIN_VALUE) {
                if (depth == chain.length) {
                    chain = Arrays.copyOf(chain, depth * 2);
                }
                chain[depth++] = at;
                if (depth > nodeOf.length) {
                    throw new InputException(source + ": firefox: thread " + th.name + ": the stack table's prefixes form a cycle");
                }
                at = prefix(at);
                if (at >= nodeOf.length) {
                    throw new InputException(source + ": firefox: thread " + th.name + ": a stack's prefix " + at
                            + " is past the stack table");
                }
            }
            int parent = at >= 0 ? nodeOf[at] : root;
            for (int k = depth - 1; k >= 0; k--) {
                int f = frame(stacks.stackFrame.get(chain[k]));
                parent = f < 0 ? parent : profile.tree().child(parent, f);
                nodeOf[chain[k]] = parent;
            }
            return parent;
        }

        private int prefix(int stack) {
            if (stacks.stackPrefixOffset != null) {
                int off = stacks.stackPrefixOffset.get(stack);
                return off <= 0 ? -1 : stack - off;
            }
            return stacks.stackPrefix.get(stack);
        }

        /** The frame id of a frame index, or -1 where the frame is left out (speedscope's view). */
        private int frame(int index) {
            if (index < 0 || index >= frameOf.length) {
                throw new InputException(source + ": firefox: thread " + th.name + ": a stack names frame " + index
                        + ", past the frame table");
            }
            if (frameOf[index] != Integer.MIN_VALUE) {
                return frameOf[index];
            }
            int f = frameTables.frameLocation != null && frameTables.frameFunc.get(index) < 0
                    ? geckoFrame(string(frameTables.frameLocation.get(index)))
                    : processedFrame(frameTables.frameFunc.get(index));
            frameOf[index] = f;
            return f;
        }

        private String string(int index) {
            if (index < 0 || index >= strings.size() || strings.get(index) == null) {
                throw new InputException(source + ": firefox: thread " + th.name + ": string " + index
                        + " is past the string table's " + strings.size());
            }
            return strings.get(index);
        }

        private int geckoFrame(String location) {
            Matcher m = LOCATION.matcher(location);
            FrameTable frames = profile.frames();
            if (!m.matches()) {
                return speedscope ? -1 : frames.frame(location, FrameKind.UNKNOWN, null, FrameTable.NONE,
                        FrameTable.NONE, FrameTable.NONE, FrameTable.NONE, FrameTable.NONE);
            }
            String file = m.group(2);
            if (speedscope && (file.startsWith("resource:") || file.equals("self-hosted") || file.startsWith("self-hosted:"))) {
                return -1; // Firefox internals, as speedscope leaves them out
            }
            int line = number(m.group(3), 0);
            int column = number(m.group(4), 1);
            return frames.frame(m.group(1), FrameKind.UNKNOWN, file, line, FrameTable.NONE, column, FrameTable.NONE,
                    FrameTable.NONE);
        }

        /** A location's line or column (plus {@code add}), or none where absent or past an int. */
        private static int number(String digits, int add) {
            if (digits == null || digits.length() > 9) {
                return FrameTable.NONE;
            }
            return Integer.parseInt(digits) + add;
        }

        private int processedFrame(int func) {
            FirefoxTables f = funcTables;
            if (f.funcName == null || func < 0 || func >= f.funcName.size) {
                throw new InputException(source + ": firefox: thread " + th.name + ": a frame names function " + func
                        + ", past the function table");
            }
            String name = string(f.funcName.get(func));
            int fileIndex = f.funcFile != null ? f.funcFile.get(func) : FirefoxTables.NONE;
            if (f.funcSource != null && f.funcSource.get(func) >= 0) {
                FirefoxTables sources = th.tables.sourceFile != null ? th.tables : th.process.shared;
                fileIndex = sources.sourceFile == null ? FirefoxTables.NONE : sources.sourceFile.get(f.funcSource.get(func));
            }
            String file = fileIndex >= 0 ? string(fileIndex) : null;
            int line = f.funcLine.get(func);
            int column = f.funcColumn.get(func);
            return profile.frames().frame(name, FrameKind.UNKNOWN, file, line < 0 ? FrameTable.NONE : line,
                    FrameTable.NONE, column < 0 ? FrameTable.NONE : column, FrameTable.NONE, FrameTable.NONE);
        }
    }
}
