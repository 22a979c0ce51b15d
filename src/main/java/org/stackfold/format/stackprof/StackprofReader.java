package org.stackfold.format.stackprof;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import java.io.IOException;
import java.io.InputStream;
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
 * Reads Ruby stackprof's JSON ({@code stackprof --json}, {@code StackProf.results} dumped as JSON)
 * as speedscope's {@code importFromStackprof} does:
 *
 * <ul>
 *   <li>{@code raw} is a run of records {@code [height, frame id × height, count]}; the first frame
 *       id is the root; a frame is the {@code frames} entry's name ({@code (unknown)} where it has
 *       none), file and line;
 *   <li>a stack of the single frame {@code (garbage collection)} goes on top of the stack before it;
 *   <li>weights: mode {@code object} counts objects; {@code cpu} weighs {@code count × interval}
 *       µs; any other mode ({@code wall}) the sum of the record's {@code count} next
 *       {@code raw_timestamp_deltas} (µs).
 * </ul>
 *
 * The JSON is read with jackson-core's streaming parser; {@code raw} and the deltas into primitive
 * arrays, whatever order the keys come in.
 */
final class StackprofReader {
    private static final JsonFactory JSON = JsonFactory.builder().build();

    private String mode = "wall";
    private long interval = 1;
    private final HashMap<Long, Integer> frameOfId = new HashMap<>();
    private long[] raw = new long[4096];
    private int nRaw;
    private long[] deltas = new long[1024];
    private int nDeltas;

    Profile read(Input in) throws IOException {
        FrameTable frames = new FrameTable();
        try (InputStream s = in.stream(); JsonParser p = JSON.createParser(s)) {
            try {
                parse(p, frames, in.name());
            } catch (StreamReadException e) {
                throw InputException.atLine(in.name(), e.getLocation() == null ? 0 : e.getLocation().getLineNr(),
                        "stackprof: invalid JSON: " + e.getOriginalMessage());
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                // a parser limit (nesting depth, number length, name length): where the parser stood
                throw InputException.atOffset(in.name(), p.currentLocation().getByteOffset(),
                        "stackprof: JSON past a limit: " + e.getOriginalMessage());
            }
        }
        Profile.ValueType type = switch (mode) {
            case "object" -> new Profile.ValueType("objects", "count");
            case "cpu" -> new Profile.ValueType("cpu", "microseconds");
            default -> new Profile.ValueType(mode, "microseconds");
        };
        Profile profile = new Profile(frames, new CallTree(1), List.of(type));
        build(profile.tree(), frames, in.name());
        return profile;
    }

    private void parse(JsonParser p, FrameTable frames, String source) throws IOException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw InputException.atLine(source, p.currentLocation().getLineNr(), "stackprof: expected a JSON object");
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            switch (field) {
                case "mode" -> mode = t == JsonToken.VALUE_STRING ? p.getText() : mode;
                case "interval" -> interval = p.getValueAsLong(1);
                case "frames" -> {
                    expect(p, t, JsonToken.START_OBJECT, source, "\"frames\" is not an object");
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        long id = id(p, source);
                        p.nextToken();
                        frameOfId.put(id, frame(p, frames));
                    }
                }
                case "raw" -> {
                    expect(p, t, JsonToken.START_ARRAY, source, "\"raw\" is not an array");
                    while ((t = p.nextToken()) == JsonToken.VALUE_NUMBER_INT) {
                        if (nRaw == raw.length) {
                            raw = Arrays.copyOf(raw, nRaw * 2);
                        }
                        raw[nRaw++] = p.getLongValue();
                    }
                    expect(p, t, JsonToken.END_ARRAY, source, "\"raw\" holds something other than whole numbers");
                }
                case "raw_timestamp_deltas" -> {
                    expect(p, t, JsonToken.START_ARRAY, source, "\"raw_timestamp_deltas\" is not an array");
                    while ((t = p.nextToken()) == JsonToken.VALUE_NUMBER_INT) {
                        if (nDeltas == deltas.length) {
                            deltas = Arrays.copyOf(deltas, nDeltas * 2);
                        }
                        deltas[nDeltas++] = p.getLongValue();
                    }
                    expect(p, t, JsonToken.END_ARRAY, source, "\"raw_timestamp_deltas\" holds something other than whole numbers");
                }
                default -> p.skipChildren();
            }
        }
    }

    private static long id(JsonParser p, String source) throws IOException {
        try {
            return Long.parseLong(p.currentName());
        } catch (NumberFormatException e) {
            throw InputException.atLine(source, p.currentLocation().getLineNr(),
                    "stackprof: frame id \"" + p.currentName() + "\" is not a number");
        }
    }

    private static int frame(JsonParser p, FrameTable frames) throws IOException {
        String name = null;
        String file = null;
        int line = FrameTable.NONE;
        if (p.currentToken() != JsonToken.START_OBJECT) {
            p.skipChildren();
        } else {
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                JsonToken v = p.nextToken();
                switch (f) {
                    case "name" -> name = v == JsonToken.VALUE_STRING ? p.getText() : name;
                    case "file" -> file = v == JsonToken.VALUE_STRING ? p.getText() : file;
                    case "line" -> line = v == JsonToken.VALUE_NUMBER_INT ? p.getIntValue() : line;
                    default -> p.skipChildren();
                }
            }
        }
        return frames.frame(name == null ? "(unknown)" : name, FrameKind.UNKNOWN, file, line, FrameTable.NONE,
                FrameTable.NONE, FrameTable.NONE, FrameTable.NONE);
    }

    private static void expect(JsonParser p, JsonToken got, JsonToken want, String source, String what) {
        if (got != want) {
            throw InputException.atLine(source, p.currentLocation().getLineNr(), "stackprof: " + what);
        }
    }

    private void build(CallTree tree, FrameTable frames, String source) {
        int previous = CallTree.ROOT;
        int delta = 0;
        int[] stack = new int[64];
        for (int i = 0; i < nRaw; ) {
            long height = raw[i++];
            if (height < 0 || height > nRaw - i - 1) {
                throw new InputException(source + ": stackprof: raw[" + (i - 1) + "]: a stack of " + height
                        + " frames does not fit in raw");
            }
            int h = (int) height;
            if (h > stack.length) {
                stack = Arrays.copyOf(stack, Math.max(h, stack.length * 2));
            }
            for (int j = 0; j < h; j++, i++) {
                Integer f = frameOfId.get(raw[i]);
                if (f == null) {
                    throw new InputException(source + ": stackprof: raw[" + i + "]: frame " + raw[i] + " is not in \"frames\"");
                }
                stack[j] = f;
            }
            boolean onPrevious = h == 1 && frames.name(stack[0]).equals("(garbage collection)");
            int node = onPrevious ? tree.child(previous, stack[0]) : tree.path(stack, 0, h);
            long count = raw[i++];
            long weight;
            switch (mode) {
                case "object" -> weight = count;
                case "cpu" -> weight = Math.multiplyExact(count, interval);
                default -> {
                    weight = 0;
                    for (long k = 0; k < count; k++) {
                        if (delta == nDeltas) {
                            throw new InputException(source + ": stackprof: raw counts more samples than the "
                                    + nDeltas + " raw_timestamp_deltas");
                        }
                        weight += deltas[delta++];
                    }
                }
            }
            tree.addSelf(node, weight);
            previous = node;
        }
    }
}
