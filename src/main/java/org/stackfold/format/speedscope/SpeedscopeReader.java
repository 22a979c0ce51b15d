package org.stackfold.format.speedscope;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameKind;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;
import org.stackfold.model.Timeline;

/**
 * Reads a speedscope JSON file with jackson-core's streaming parser (no object tree): shared frames
 * into the frame table, every sampled and evented profile into one call tree.
 *
 * <p>Rules: profiles are merged (option {@code profile}: only the one of this name or 0-based index;
 * {@code thread-frames}: each profile's name as a root frame). They must share a unit. Time units
 * become nanoseconds ({@code ("time", "nanoseconds")}), {@code bytes} stays bytes, {@code none} is a
 * sample count. Fractional weights are rounded cumulatively (each sample gets
 * {@code round(end) - round(start)}), so totals stay exact. Evented profiles give each interval
 * between two events to the stack open during it; frames left open at the end are an error, as in
 * speedscope ({@code lenient}: closed at endValue). Both kinds keep their order as a {@link Timeline}
 * (thread = profile index, time and weight in the profile's unit: a sample's weight, an interval's length). Two profiles named "before" and "after" (as
 * Stackfold writes a differential profile) make a differential profile again.
 */
public final class SpeedscopeReader {
    // Jackson's default read constraints (nesting 1000, strings 20 MB) bound what a hostile file can
    // make it allocate; speedscope files nest 5 deep.
    private static final JsonFactory JSON = JsonFactory.builder().build();

    private final String select;
    private final boolean threadFrames;
    private final boolean lenient;
    private final Consumer<String> warnings;

    public SpeedscopeReader(String select, boolean threadFrames, boolean lenient, Consumer<String> warnings) {
        this.select = select;
        this.threadFrames = threadFrames;
        this.lenient = lenient;
        this.warnings = warnings;
    }

    /** One profile of the file as parsed, before frames are resolved. */
    private static final class Raw {
        String name = "";
        String type;
        String unit = "none";
        double startValue;
        double endValue = Double.NaN;
        long offset;
        int[] flat = new int[256]; // sampled: frame indices of all samples; evented: frame per event
        int flatSize;
        int[] ends = new int[64]; // sampled: end of each sample in flat
        int samples;
        double[] values = new double[64]; // sampled: weights; evented: at
        int nValues;
        byte[] open = new byte[64]; // evented: 1 = open, 0 = close
        int events;

        void addFrame(int f) {
            if (flatSize == flat.length) {
                flat = Arrays.copyOf(flat, flatSize * 2);
            }
            flat[flatSize++] = f;
        }

        void endSample() {
            if (samples == ends.length) {
                ends = Arrays.copyOf(ends, samples * 2);
            }
            ends[samples++] = flatSize;
        }

        void addValue(double v) {
            if (nValues == values.length) {
                values = Arrays.copyOf(values, nValues * 2);
            }
            values[nValues++] = v;
        }
    }

    private record RawFrame(String name, String file, int line, int col) {
    }

    public Profile read(Input in) throws IOException {
        List<RawFrame> rawFrames = new ArrayList<>();
        List<Raw> profiles = new ArrayList<>();
        parse(in, rawFrames, profiles);
        try {
            return build(in.name(), rawFrames, profiles);
        } catch (ArithmeticException e) {
            throw new InputException(in.name() + ": speedscope: weights add up past 2^63 (in nanoseconds for time units)");
        }
    }

    private static void parse(Input in, List<RawFrame> rawFrames, List<Raw> profiles) throws IOException {
        try (InputStream s = in.stream(); JsonParser p = JSON.createParser(s)) {
            try {
                parseFile(p, in.name(), rawFrames, profiles);
            } catch (StreamReadException e) {
                throw InputException.atOffset(in.name(), e.getLocation() == null ? -1
                        : e.getLocation().getByteOffset(), "speedscope: invalid JSON: " + e.getOriginalMessage());
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                // A limit (nesting depth, string length, number length): where the parser stood.
                throw InputException.atOffset(in.name(), p.currentLocation().getByteOffset(),
                        "speedscope: JSON past a limit: " + e.getOriginalMessage());
            }
        }
    }

    /** For {@code stackfold info}: the shared frames and each profile's type, unit, size and total. */
    public static void describe(Input in, PrintWriter out) throws IOException {
        List<RawFrame> rawFrames = new ArrayList<>();
        List<Raw> profiles = new ArrayList<>();
        parse(in, rawFrames, profiles);
        out.printf(Locale.ROOT, "%-18s %d%n", "shared frames", rawFrames.size());
        out.printf(Locale.ROOT, "%-18s %d%n", "profiles", profiles.size());
        for (int i = 0; i < profiles.size(); i++) {
            Raw r = profiles.get(i);
            boolean sampled = r.type.equals("sampled");
            double total = 0;
            if (sampled) {
                for (int k = 0; k < r.nValues; k++) {
                    total += r.values[k];
                }
            } else {
                total = (Double.isNaN(r.endValue) ? (r.nValues > 0 ? r.values[r.nValues - 1] : 0) : r.endValue)
                        - r.startValue;
            }
            out.printf(Locale.ROOT, "%-18s '%s' %s, %d %s, %s %s%n", "profile " + i,
                    org.stackfold.io.Printable.of(r.name), r.type,
                    sampled ? r.samples : r.events, sampled ? "samples" : "events",
                    total == Math.rint(total) ? String.valueOf((long) total) : String.valueOf(total),
                    org.stackfold.io.Printable.of(r.unit));
        }
        out.println("all profiles are merged; read one with --profile NAME|INDEX");
    }

    private static InputException error(JsonParser p, String source, String what) {
        return InputException.atOffset(source, p.currentTokenLocation().getByteOffset(), "speedscope: " + what);
    }

    private static void expect(JsonParser p, String source, JsonToken want, String what) throws IOException {
        if (p.currentToken() != want) {
            throw error(p, source, what + ": expected " + want.asString() + " but found " + describe(p));
        }
    }

    private static String describe(JsonParser p) {
        JsonToken t = p.currentToken();
        return t == null ? "end of file" : t.isScalarValue() ? "a " + t.name().toLowerCase().replace("value_", "")
                : "'" + t.asString() + "'";
    }

    private static void parseFile(JsonParser p, String src, List<RawFrame> frames, List<Raw> profiles) throws IOException {
        p.nextToken();
        expect(p, src, JsonToken.START_OBJECT, "file");
        boolean sawProfiles = false;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "$schema" -> {
                    if (p.currentToken() != JsonToken.VALUE_STRING || !p.getText().contains("speedscope")) {
                        throw error(p, src, "$schema is not speedscope's file format schema");
                    }
                }
                case "shared" -> {
                    expect(p, src, JsonToken.START_OBJECT, "shared");
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String f = p.currentName();
                        p.nextToken();
                        if (f.equals("frames")) {
                            parseFrames(p, src, frames);
                        } else {
                            p.skipChildren();
                        }
                    }
                }
                case "profiles" -> {
                    expect(p, src, JsonToken.START_ARRAY, "profiles");
                    sawProfiles = true;
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        profiles.add(parseProfile(p, src));
                    }
                }
                default -> p.skipChildren();
            }
        }
        expect(p, src, JsonToken.END_OBJECT, "file");
        if (!sawProfiles) {
            throw error(p, src, "no \"profiles\" array: not a speedscope file");
        }
    }

    private static void parseFrames(JsonParser p, String src, List<RawFrame> frames) throws IOException {
        expect(p, src, JsonToken.START_ARRAY, "shared.frames");
        while (p.nextToken() != JsonToken.END_ARRAY) {
            expect(p, src, JsonToken.START_OBJECT, "frame");
            String name = null;
            String file = null;
            int line = FrameTable.NONE;
            int col = FrameTable.NONE;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                if (p.nextToken() == JsonToken.VALUE_NULL) {
                    continue; // py-spy writes "col": null; speedscope reads null as absent
                }
                switch (f) {
                    case "name" -> name = text(p, src, "frame name");
                    case "file" -> file = text(p, src, "frame file");
                    case "line" -> line = (int) Math.min(Integer.MAX_VALUE, Math.max(0, number(p, src, "frame line")));
                    case "col" -> col = (int) Math.min(Integer.MAX_VALUE, Math.max(0, number(p, src, "frame col")));
                    default -> p.skipChildren();
                }
            }
            if (name == null) {
                throw error(p, src, "frame " + frames.size() + " has no name");
            }
            frames.add(new RawFrame(name, file, line, col));
        }
    }

    private static String text(JsonParser p, String src, String what) throws IOException {
        if (p.currentToken() != JsonToken.VALUE_STRING) {
            throw error(p, src, what + " must be a string, found " + describe(p));
        }
        return p.getText();
    }

    private static double number(JsonParser p, String src, String what) throws IOException {
        if (!p.currentToken().isNumeric()) {
            throw error(p, src, what + " must be a number, found " + describe(p));
        }
        double v = p.getDoubleValue();
        if (!Double.isFinite(v)) {
            throw error(p, src, what + " is not finite");
        }
        return v;
    }

    private static int frameIndex(JsonParser p, String src) throws IOException {
        if (p.currentToken() != JsonToken.VALUE_NUMBER_INT) {
            throw error(p, src, "frame index must be an integer, found " + describe(p));
        }
        long v = p.getLongValue();
        if (v < 0 || v > Integer.MAX_VALUE) {
            throw error(p, src, "frame index " + v + " out of range");
        }
        return (int) v;
    }

    private static Raw parseProfile(JsonParser p, String src) throws IOException {
        expect(p, src, JsonToken.START_OBJECT, "profile");
        Raw r = new Raw();
        r.offset = p.currentTokenLocation().getByteOffset();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            p.nextToken();
            switch (f) {
                case "type" -> {
                    r.type = text(p, src, "profile type");
                    if (!r.type.equals("sampled") && !r.type.equals("evented")) {
                        throw error(p, src, "unknown profile type '" + r.type + "'");
                    }
                }
                case "name" -> r.name = text(p, src, "profile name");
                case "unit" -> r.unit = text(p, src, "unit");
                case "startValue" -> r.startValue = number(p, src, "startValue");
                case "endValue" -> r.endValue = number(p, src, "endValue");
                case "samples" -> {
                    expect(p, src, JsonToken.START_ARRAY, "samples");
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        expect(p, src, JsonToken.START_ARRAY, "sample");
                        while (p.nextToken() != JsonToken.END_ARRAY) {
                            r.addFrame(frameIndex(p, src));
                        }
                        r.endSample();
                    }
                }
                case "weights" -> {
                    expect(p, src, JsonToken.START_ARRAY, "weights");
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        double w = number(p, src, "weight");
                        if (w < 0) {
                            throw error(p, src, "negative weight " + w);
                        }
                        r.addValue(w);
                    }
                }
                case "events" -> {
                    expect(p, src, JsonToken.START_ARRAY, "events");
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        parseEvent(p, src, r);
                    }
                }
                default -> p.skipChildren();
            }
        }
        if (r.type == null) {
            throw InputException.atOffset(src, r.offset, "speedscope: profile without a \"type\"");
        }
        if (r.type.equals("sampled") && r.nValues != r.samples) {
            throw InputException.atOffset(src, r.offset, "speedscope: profile '" + r.name + "' has "
                    + r.samples + " samples but " + r.nValues + " weights");
        }
        return r;
    }

    private static void parseEvent(JsonParser p, String src, Raw r) throws IOException {
        expect(p, src, JsonToken.START_OBJECT, "event");
        long at0 = p.currentTokenLocation().getByteOffset();
        String type = null;
        int frame = -1;
        double at = Double.NaN;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            p.nextToken();
            switch (f) {
                case "type" -> type = text(p, src, "event type");
                case "frame" -> frame = frameIndex(p, src);
                case "at" -> at = number(p, src, "event time");
                default -> p.skipChildren();
            }
        }
        if (type == null || frame < 0 || Double.isNaN(at) || !(type.equals("O") || type.equals("C"))) {
            throw InputException.atOffset(src, at0, "speedscope: event needs type \"O\" or \"C\", frame and at");
        }
        if (r.events == r.open.length) {
            r.open = Arrays.copyOf(r.open, r.events * 2);
        }
        r.open[r.events++] = (byte) (type.equals("O") ? 1 : 0);
        r.addFrame(frame);
        r.addValue(at);
    }

    private static double factor(String unit) {
        return switch (unit) {
            case "seconds" -> 1e9;
            case "milliseconds" -> 1e6;
            case "microseconds" -> 1e3;
            default -> 1;
        };
    }

    private static Profile.ValueType valueType(String unit) {
        return switch (unit) {
            case "seconds", "milliseconds", "microseconds", "nanoseconds" -> new Profile.ValueType("time", "nanoseconds");
            case "bytes" -> new Profile.ValueType("space", "bytes");
            default -> Profile.ValueType.SAMPLES;
        };
    }

    private List<Raw> selected(String src, List<Raw> all) {
        if (select == null) {
            return all;
        }
        for (Raw r : all) {
            if (r.name.equals(select)) {
                return List.of(r);
            }
        }
        if (select.matches("\\d{1,9}") && Integer.parseInt(select) < all.size()) {
            return List.of(all.get(Integer.parseInt(select)));
        }
        throw new InputException(src + ": speedscope: no profile named '" + select + "'; the file has "
                + all.stream().map(r -> "'" + r.name + "'").toList());
    }

    private Profile build(String src, List<RawFrame> rawFrames, List<Raw> all) {
        List<Raw> profiles = selected(src, all);
        FrameTable frames = new FrameTable();
        int[] frameId = new int[rawFrames.size()];
        for (int i = 0; i < frameId.length; i++) {
            RawFrame f = rawFrames.get(i);
            frameId[i] = frames.frame(f.name(), FrameKind.UNKNOWN, f.file(), f.line(), FrameTable.NONE, f.col(),
                    FrameTable.NONE, FrameTable.NONE);
        }
        boolean differential = profiles.size() == 2 && profiles.get(0).name.equals("before")
                && profiles.get(1).name.equals("after") && !threadFrames;
        String unit = profiles.isEmpty() ? "none" : profiles.getFirst().unit;
        for (Raw r : profiles) {
            if (!r.unit.equals(unit)) {
                throw InputException.atOffset(src, r.offset, "speedscope: profile '" + r.name + "' is in " + r.unit
                        + " but the first in " + unit + "; pick one profile with --profile NAME");
            }
        }
        Profile.ValueType vt = valueType(unit);
        CallTree tree = new CallTree(differential ? 2 : 1);
        Timeline timeline = null;
        if (!differential && !profiles.isEmpty()) {
            timeline = new Timeline(vt.unit());
        }
        double factor = factor(unit);
        long fractional = 0;
        long unclosed = 0;
        int[] stack = new int[64];
        for (int k = 0; k < profiles.size(); k++) {
            Raw r = profiles.get(k);
            int column = differential ? k : 0;
            if (timeline != null) {
                timeline.nameThread(k, r.name); // speedscope names each timeline: keep it through a round trip
            }
            int base = CallTree.ROOT;
            if (threadFrames) {
                base = tree.child(CallTree.ROOT, frames.frame(r.name, FrameKind.SYNTHETIC));
            }
            for (int i = 0; i < r.flatSize; i++) {
                if (r.flat[i] >= frameId.length) {
                    throw InputException.atOffset(src, r.offset, "speedscope: profile '" + r.name
                            + "' refers to frame " + r.flat[i] + " but there are " + frameId.length + " frames");
                }
            }
            if (r.type.equals("sampled")) {
                double at = r.startValue;
                int from = 0;
                for (int s = 0; s < r.samples; s++) {
                    int node = base;
                    for (int i = from; i < r.ends[s]; i++) {
                        node = tree.child(node, frameId[r.flat[i]]);
                    }
                    from = r.ends[s];
                    double w = r.values[s];
                    if ((at + w) * factor >= 0x1p62) {
                        throw new ArithmeticException();
                    }
                    if (w != Math.rint(w) && factor == 1) {
                        fractional++;
                    }
                    long v = Math.round((at + w) * factor) - Math.round(at * factor);
                    if (timeline != null && v > 0) {
                        timeline.add(k, 0, Math.round(at * factor), 0, node, v);
                    }
                    at += w;
                    tree.addSelf(node, column, v);
                }
            } else {
                int depth = 0;
                double last = r.events > 0 ? r.values[0] : r.startValue;
                for (int e = 0; e < r.events; e++) {
                    double at = r.values[e];
                    if (Math.abs(at * factor) >= 0x1p62) {
                        throw new ArithmeticException();
                    }
                    if (at < last) {
                        throw InputException.atOffset(src, r.offset, "speedscope: profile '" + r.name + "' event "
                                + e + " at " + at + " goes back in time (previous at " + last + ")");
                    }
                    if (depth > 0) {
                        long v = Math.round(at * factor) - Math.round(last * factor);
                        tree.addSelf(stack[depth - 1], column, v);
                        if (timeline != null && v > 0) {
                            timeline.add(k, 0, Math.round(last * factor), 0, stack[depth - 1], v);
                        }
                    }
                    last = at;
                    int f = frameId[r.flat[e]];
                    if (r.open[e] == 1) {
                        if (depth == stack.length) {
                            stack = Arrays.copyOf(stack, depth * 2);
                        }
                        stack[depth] = tree.child(depth == 0 ? base : stack[depth - 1], f);
                        depth++;
                    } else {
                        if (depth == 0 || tree.frame(stack[depth - 1]) != f) {
                            throw InputException.atOffset(src, r.offset, "speedscope: profile '" + r.name
                                    + "' event " + e + " closes frame " + r.flat[e] + ", which is not the innermost open frame");
                        }
                        depth--;
                    }
                }
                if (depth > 0) {
                    // speedscope itself rejects such a trace; --lenient closes the frames at endValue.
                    if (!lenient) {
                        throw InputException.atOffset(src, r.offset, "speedscope: profile '" + r.name + "' ends with "
                                + depth + " frame" + (depth == 1 ? "" : "s") + " still open (--lenient closes them at endValue)");
                    }
                    unclosed++;
                    double end = Double.isNaN(r.endValue) ? last : Math.max(last, r.endValue);
                    tree.addSelf(stack[depth - 1], column, Math.round(end * factor) - Math.round(last * factor));
                }
            }
        }
        if (unclosed > 0) {
            warnings.accept(src + ": " + unclosed + " evented profile" + (unclosed == 1 ? "" : "s")
                    + " ended with open frames; closed them at endValue");
        }
        if (fractional > 0) {
            warnings.accept(src + ": " + fractional + " fractional weight" + (fractional == 1 ? " was" : "s were")
                    + " rounded (cumulatively, so totals stay exact)");
        }
        List<Profile.ValueType> vts = differential ? List.of(vt, vt) : List.of(vt);
        Profile profile = new Profile(frames, tree, vts);
        profile.setTimeline(timeline);
        return profile;
    }
}
