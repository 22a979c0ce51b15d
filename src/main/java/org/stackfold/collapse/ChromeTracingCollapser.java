package org.stackfold.collapse;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.HashMap;
import java.util.function.Consumer;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.model.IndexSort;
import org.stackfold.model.Profile;

/**
 * Chrome's Trace Event Format (the Performance panel's saved trace, {@code chrome://tracing},
 * Perfetto's JSON export), as {@code stackcollapse-chrome-tracing.py} reads it: the complete events
 * ({@code "ph": "X"} with a {@code dur}) of each thread ({@code pid}, {@code tid}), in time order,
 * nest by time; each event's self time (its {@code dur} minus its direct children's) is added to
 * the stack of event names from the outermost open event down to it. Weights are microseconds
 * (the format's unit), summed per stack and rounded to whole microseconds at the end.
 *
 * <p>Both of the format's layouts are read: {@code {"traceEvents": [...]}} (the only one the
 * Python script reads) and a bare array, which may lack its closing {@code ]} as the format allows.
 * Events of other phases are skipped. Parsed by jackson-core's streaming parser; per event only
 * four numbers and a name id are kept.
 */
public final class ChromeTracingCollapser implements Collapser {
    private static final JsonFactory JSON = JsonFactory.builder().build();

    @Override
    public String name() {
        return "chrome-tracing";
    }

    @Override
    public boolean detect(byte[] head, int length) {
        int i = 0;
        if (length >= 3 && (head[0] & 0xff) == 0xEF && (head[1] & 0xff) == 0xBB && (head[2] & 0xff) == 0xBF) {
            i = 3;
        }
        while (i < length && Text.isSpace(head[i])) {
            i++;
        }
        if (i == length) {
            return false;
        }
        String text = new String(head, i, Math.min(length - i, 4096), java.nio.charset.StandardCharsets.ISO_8859_1);
        if (head[i] == '{') {
            return text.contains("\"traceEvents\"");
        }
        return head[i] == '[' && text.contains("\"ph\"") && text.contains("\"ts\"");
    }

    /** One thread's complete events, in file order; sorted by start time before nesting. */
    private static final class Events {
        double[] ts = new double[64];
        double[] dur = new double[64];
        int[] name = new int[64];
        int size;

        void add(double t, double d, int n) {
            if (size == ts.length) {
                ts = Arrays.copyOf(ts, size * 2);
                dur = Arrays.copyOf(dur, size * 2);
                name = Arrays.copyOf(name, size * 2);
            }
            ts[size] = t;
            dur[size] = d;
            name[size++] = n;
        }
    }

    private record Thread(long pid, long tid) {
    }

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        Problems problems = Problems.of(in, options);
        Stacks stacks = new Stacks().utf8();
        HashMap<Thread, Events> threads = new HashMap<>();
        try (InputStream s = in.stream(); JsonParser p = JSON.createParser(s)) {
            try {
                read(p, stacks, threads, problems);
            } catch (StreamReadException e) {
                throw problems.fatal(e.getLocation() == null ? 0 : e.getLocation().getLineNr(),
                        "chrome-tracing: invalid JSON: " + e.getOriginalMessage());
            }
        }
        double[] weights = new double[1024];
        for (Events events : threads.values()) {
            weights = nest(events, stacks, weights);
        }
        for (int node = 0; node < weights.length; node++) {
            long w = Math.round(weights[node]);
            if (w > 0) {
                stacks.addAt(node, w);
            }
        }
        problems.finish(warnings);
        return stacks.profile();
    }

    private static void read(JsonParser p, Stacks stacks, HashMap<Thread, Events> threads, Problems problems)
            throws IOException {
        JsonToken t = p.nextToken();
        if (t == JsonToken.START_OBJECT) {
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                t = p.nextToken();
                if (field.equals("traceEvents") && t == JsonToken.START_ARRAY) {
                    events(p, stacks, threads, problems, false);
                } else {
                    p.skipChildren();
                }
            }
        } else if (t == JsonToken.START_ARRAY) {
            events(p, stacks, threads, problems, true);
        } else {
            throw problems.fatal(p.currentLocation().getLineNr(),
                    "chrome-tracing: expected a JSON object with \"traceEvents\" or an array of events");
        }
    }

    private static void events(JsonParser p, Stacks stacks, HashMap<Thread, Events> threads, Problems problems,
                               boolean mayBeOpen) throws IOException {
        JsonToken t;
        while (true) {
            try {
                t = p.nextToken();
            } catch (com.fasterxml.jackson.core.io.JsonEOFException e) {
                if (mayBeOpen) {
                    return; // the array format may end without its "]"
                }
                throw e;
            }
            if (t == null && mayBeOpen || t == JsonToken.END_ARRAY) {
                return;
            }
            if (t != JsonToken.START_OBJECT) {
                p.skipChildren();
                continue;
            }
            long line = p.currentLocation().getLineNr();
            String ph = null;
            String name = null;
            double ts = Double.NaN;
            double dur = Double.NaN;
            long pid = 0;
            long tid = 0;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                t = p.nextToken();
                switch (field) {
                    case "ph" -> ph = t == JsonToken.VALUE_STRING ? p.getText() : null;
                    case "name" -> name = t == JsonToken.VALUE_STRING ? p.getText() : null;
                    case "ts" -> ts = number(p, t);
                    case "dur" -> dur = number(p, t);
                    case "pid" -> pid = (long) number(p, t);
                    case "tid" -> tid = (long) number(p, t);
                    default -> p.skipChildren();
                }
            }
            if (!"X".equals(ph) || Double.isNaN(dur)) {
                continue;
            }
            if (Double.isNaN(ts) || name == null) {
                problems.bad(line, "complete event without " + (name == null ? "a \"name\"" : "a numeric \"ts\""));
                continue;
            }
            threads.computeIfAbsent(new Thread(pid, tid), k -> new Events()).add(ts, dur, stacks.frame(name));
        }
    }

    /** A JSON number, or a string holding one (the format allows both); NaN otherwise. */
    private static double number(JsonParser p, JsonToken t) throws IOException {
        if (t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) {
            return p.getDoubleValue();
        }
        if (t == JsonToken.VALUE_STRING) {
            try {
                return Double.parseDouble(p.getText().trim());
            } catch (NumberFormatException e) {
                return Double.NaN;
            }
        }
        p.skipChildren();
        return Double.NaN;
    }

    /** The Python script's nesting: an event closes when the next one starts at or after its end. */
    private static double[] nest(Events ev, Stacks stacks, double[] weights) {
        double[] ts = ev.ts;
        // Stable, as Python's sort; times are never NaN (such events are skipped), so < and > order them.
        int[] order = IndexSort.sorted(ev.size, (x, y) -> ts[x] < ts[y] ? -1 : ts[x] > ts[y] ? 1 : 0);
        int[] open = new int[16];
        double[] self = new double[16];
        int depth = 0;
        stacks.clear();
        for (int k = 0; k <= ev.size; k++) {
            int e = k < ev.size ? order[k] : -1;
            while (depth > 0 && (e < 0 || ev.ts[open[depth - 1]] + ev.dur[open[depth - 1]] <= ev.ts[e])) {
                int node = stacks.node();
                if (node >= weights.length) {
                    weights = Arrays.copyOf(weights, Math.max(node + 1, weights.length * 2));
                }
                weights[node] += self[depth - 1];
                depth--;
                stacks.truncate(depth);
            }
            if (e < 0) {
                break;
            }
            if (depth > 0) {
                self[depth - 1] -= ev.dur[e];
            }
            if (depth == open.length) {
                open = Arrays.copyOf(open, depth * 2);
                self = Arrays.copyOf(self, depth * 2);
            }
            open[depth] = e;
            self[depth++] = ev.dur[e];
            stacks.pushFrame(ev.name[e]);
        }
        return weights;
    }
}
