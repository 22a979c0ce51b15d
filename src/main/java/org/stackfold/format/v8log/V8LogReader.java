package org.stackfold.format.v8log;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameKind;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/**
 * Reads the JSON of {@code node --prof-process --preprocess isolate*.log} ({@code code},
 * {@code functions}, {@code ticks}) as speedscope's {@code importFromV8ProfLog} does:
 *
 * <ul>
 *   <li>ticks in time order ({@code tm}, a stable sort); each weighs the time since the tick before
 *       it (the first since 0), in microseconds;
 *   <li>a tick's stack is {@code s[len-2], s[len-4], ..., } root first: the even positions from the
 *       end, the JavaScript frames of V8's interleaved stack; {@code -1} is padding and skipped, an
 *       index past the code table is a raw address ({@code 0x...}), a missing entry
 *       {@code (unknown type)};
 *   <li>names by code type: {@code CPP} → {@code (c++) NAME}, {@code SHARED_LIB} → {@code (LIB) NAME},
 *       {@code JS} → the function name (or {@code (anonymous FILE:LINE)}) with its file, line and
 *       column, {@code CODE} → by kind ({@code (IC)}, {@code (bytecode) ~}, {@code (stub)},
 *       {@code (builtin)}, {@code (regexp)}), anything else {@code (TYPE) NAME}.
 * </ul>
 */
final class V8LogReader {
    private static final JsonFactory JSON = JsonFactory.builder().build();
    private static final Pattern CPP = Pattern.compile("[tT] ([^(<]*)");
    private static final Pattern JS = Pattern.compile("([a-zA-Z0-9._\\-$]*) ([a-zA-Z0-9.\\-_/$]*):(\\d+):(\\d+)");

    private final List<String[]> codes = new ArrayList<>(); // name, type, kind
    private int ticks;
    private long[] tm = new long[1024];
    private int[] stackStart = new int[1025];
    private long[] stacks = new long[8192];
    private int nStacks;

    Profile read(Input in) throws IOException {
        try (InputStream s = in.stream(); JsonParser p = JSON.createParser(s)) {
            try {
                parse(p, in.name());
            } catch (StreamReadException e) {
                throw InputException.atLine(in.name(), e.getLocation() == null ? 0 : e.getLocation().getLineNr(),
                        "v8log: invalid JSON: " + e.getOriginalMessage());
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                // a parser limit (nesting depth, number length, name length): where the parser stood
                throw InputException.atOffset(in.name(), p.currentLocation().getByteOffset(),
                        "v8log: JSON past a limit: " + e.getOriginalMessage());
            }
        }
        Profile profile = new Profile(new FrameTable(), new CallTree(1),
                List.of(new Profile.ValueType("cpu", "microseconds")));
        build(profile);
        return profile;
    }

    private void parse(JsonParser p, String source) throws IOException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw InputException.atLine(source, p.currentLocation().getLineNr(), "v8log: expected a JSON object");
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            switch (field) {
                case "code" -> {
                    expect(p, t, JsonToken.START_ARRAY, source, "\"code\" is not an array");
                    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                        codes.add(code(p, t));
                    }
                }
                case "ticks" -> {
                    expect(p, t, JsonToken.START_ARRAY, source, "\"ticks\" is not an array");
                    while ((t = p.nextToken()) == JsonToken.START_OBJECT) {
                        tick(p, source);
                    }
                    expect(p, t, JsonToken.END_ARRAY, source, "a tick is not an object");
                }
                default -> p.skipChildren();
            }
        }
    }

    private static String[] code(JsonParser p, JsonToken t) throws IOException {
        String[] c = new String[3];
        if (t != JsonToken.START_OBJECT) {
            p.skipChildren(); // null or another value: speedscope shows "(unknown type)"
            return c;
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            JsonToken v = p.nextToken();
            int k = switch (f) {
                case "name" -> 0;
                case "type" -> 1;
                case "kind" -> 2;
                default -> -1;
            };
            if (k >= 0 && v == JsonToken.VALUE_STRING) {
                c[k] = p.getText();
            } else {
                p.skipChildren();
            }
        }
        return c;
    }

    private void tick(JsonParser p, String source) throws IOException {
        if (ticks + 1 >= stackStart.length) {
            tm = Arrays.copyOf(tm, ticks * 2 + 2);
            stackStart = Arrays.copyOf(stackStart, ticks * 2 + 3);
        }
        long time = 0;
        stackStart[ticks] = nStacks;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            JsonToken v = p.nextToken();
            if (f.equals("tm")) {
                time = p.getValueAsLong(0);
            } else if (f.equals("s") && v == JsonToken.START_ARRAY) {
                nStacks = stackStart[ticks]; // a repeated "s" replaces the first, as JSON.parse keeps the last
                while ((v = p.nextToken()) != JsonToken.END_ARRAY) {
                    if (v != JsonToken.VALUE_NUMBER_INT) {
                        throw InputException.atLine(source, p.currentLocation().getLineNr(),
                                "v8log: a tick's stack holds something other than whole numbers");
                    }
                    if (nStacks == stacks.length) {
                        stacks = Arrays.copyOf(stacks, nStacks * 2);
                    }
                    stacks[nStacks++] = p.getLongValue();
                }
            } else {
                p.skipChildren();
            }
        }
        tm[ticks++] = time;
        stackStart[ticks] = nStacks;
    }

    private static void expect(JsonParser p, JsonToken got, JsonToken want, String source, String what) {
        if (got != want) {
            throw InputException.atLine(source, p.currentLocation().getLineNr(), "v8log: " + what);
        }
    }

    private void build(Profile profile) {
        FrameTable frames = profile.frames();
        CallTree tree = profile.tree();
        int[] frameOfCode = new int[codes.size()];
        Arrays.fill(frameOfCode, -1);
        int unknown = -1;
        int[] order = timeOrder();
        long last = 0;
        for (int k = 0; k < ticks; k++) {
            int t = order[k];
            int node = CallTree.ROOT;
            int from = stackStart[t];
            for (int i = stackStart[t + 1] - 2; i >= from; i -= 2) {
                long id = stacks[i];
                if (id == -1) {
                    continue;
                }
                int f;
                if (id > codes.size()) {
                    f = frames.plain("0x" + Long.toHexString(id));
                } else if (id >= 0 && id < codes.size() && codes.get((int) id)[1] != null) {
                    if (frameOfCode[(int) id] < 0) {
                        frameOfCode[(int) id] = frame(frames, codes.get((int) id));
                    }
                    f = frameOfCode[(int) id];
                } else {
                    if (unknown < 0) {
                        unknown = frames.plain("(unknown type)");
                    }
                    f = unknown;
                }
                node = tree.child(node, f);
            }
            tree.addSelf(node, tm[t] - last);
            last = tm[t];
        }
    }

    /** Tick indexes by time, ties in file order (speedscope's sort is stable). */
    private int[] timeOrder() {
        int[] order = new int[ticks];
        boolean sorted = true;
        for (int t = 0; t < ticks; t++) {
            order[t] = t;
            sorted &= t == 0 || tm[t - 1] <= tm[t];
        }
        if (!sorted) {
            Integer[] boxed = new Integer[ticks];
            for (int t = 0; t < ticks; t++) {
                boxed[t] = t;
            }
            Arrays.sort(boxed, (a, b) -> Long.compare(tm[a], tm[b]));
            for (int t = 0; t < ticks; t++) {
                order[t] = boxed[t];
            }
        }
        return order;
    }

    private static int frame(FrameTable frames, String[] code) {
        String name = code[0] == null ? "undefined" : code[0];
        String type = code[1];
        switch (type) {
            case "CPP" -> {
                Matcher m = CPP.matcher(name);
                if (m.find()) {
                    name = "(c++) " + m.group(1);
                }
            }
            case "SHARED_LIB" -> name = "(LIB) " + name;
            case "JS" -> {
                Matcher m = JS.matcher(name);
                if (m.find()) {
                    String file = m.group(2);
                    int line = Integer.parseInt(m.group(3));
                    int column = Integer.parseInt(m.group(4));
                    String function = !m.group(1).isEmpty() ? m.group(1)
                            : !file.isEmpty() ? "(anonymous " + file.substring(file.lastIndexOf('/') + 1) + ":" + line + ")"
                            : "(anonymous)";
                    return frames.frame(function, FrameKind.UNKNOWN, file.isEmpty() ? "(unknown file)" : file, line,
                            FrameTable.NONE, column, FrameTable.NONE, FrameTable.NONE);
                }
            }
            case "CODE" -> {
                String kind = code[2] == null ? "" : code[2];
                switch (kind) {
                    case "LoadIC", "StoreIC", "KeyedStoreIC", "KeyedLoadIC", "LoadGlobalIC", "Handler" ->
                            name = "(IC) " + name;
                    case "BytecodeHandler" -> name = "(bytecode) ~" + name;
                    case "Stub" -> name = "(stub) " + name;
                    case "Builtin" -> name = "(builtin) " + name;
                    case "RegExp" -> name = "(regexp) " + name;
                    default -> {
                        // other kinds keep their name
                    }
                }
            }
            default -> name = "(" + type + ") " + name;
        }
        return frames.plain(name);
    }
}
