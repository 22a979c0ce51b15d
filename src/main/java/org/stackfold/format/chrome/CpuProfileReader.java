package org.stackfold.format.chrome;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;
import org.stackfold.model.Timeline;

/**
 * Reads a {@code .cpuprofile} ({@code {"nodes": [...], "startTime", "endTime", "samples": [...],
 * "timeDeltas": [...]}}) as speedscope's {@code importFromChromeCPUProfile} does:
 *
 * <ul>
 *   <li>Each node's stack is the node and its ancestors (by {@code children} lists or
 *       {@code parent} ids) up to, not including, a {@code (root)} or {@code (idle)} node or a
 *       node with url {@code native dummy.js}; {@code (program)} and {@code (garbage collector)}
 *       are put on top of the previous sample's stack instead of under their own parent.
 *   <li>Time: sample {@code i} is taken {@code timeDeltas[0] + ... + timeDeltas[i]} µs after the
 *       start (a time earlier than the latest seen counts as the latest); runs of equal samples
 *       are one; each run's stack gets the time up to the next run's, the last run none. Weights
 *       are microseconds; the runs, in order, are the profile's {@link Timeline}.
 *   <li>Frames: {@code functionName}, or {@code (anonymous FILE:LINE)} / {@code (anonymous)};
 *       location url, line and column (made 1-based, as speedscope shows them).
 * </ul>
 *
 * Errors: invalid JSON (with its line), a sample naming no node (skipped, as speedscope skips it,
 * but counted in one warning), {@code samples} and {@code timeDeltas} of different lengths.
 */
final class CpuProfileReader {
    private static final JsonFactory JSON = JsonFactory.builder().build();
    static final Profile.ValueType TIME = new Profile.ValueType("cpu", "microseconds");

    private final CpuProfileNodes nodes = new CpuProfileNodes();

    Profile read(Input in) throws IOException {
        Profile profile = new Profile(new FrameTable(), new CallTree(1), List.of(TIME));
        try (InputStream s = in.stream(); JsonParser p = JSON.createParser(s)) {
            try {
                parse(p, profile.frames(), in.name());
            } catch (StreamReadException e) {
                throw InputException.atLine(in.name(), e.getLocation() == null ? 0 : e.getLocation().getLineNr(),
                        "cpuprofile: invalid JSON: " + e.getOriginalMessage());
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                // a parser limit (nesting depth, number length, name length): where the parser stood
                throw InputException.atOffset(in.name(), p.currentLocation().getByteOffset(),
                        "cpuprofile: JSON past a limit: " + e.getOriginalMessage());
            }
        }
        if (nodes.nDeltas != nodes.nSamples) {
            throw new InputException(in.name() + ": cpuprofile: " + nodes.nSamples + " samples but " + nodes.nDeltas
                    + " timeDeltas");
        }
        Timeline timeline = new Timeline("microseconds");
        try {
            nodes.replay(profile.tree(), CallTree.ROOT, (node, start, micros) -> timeline.add(0, 0, start, 0, node, micros));
        } catch (InputException e) {
            throw new InputException(in.name() + ": cpuprofile: " + e.getMessage());
        }
        if (timeline.size() > 0) {
            profile.setTimeline(timeline);
        }
        return profile;
    }

    private void parse(JsonParser p, FrameTable frames, String source) throws IOException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw InputException.atLine(source, p.currentLocation().getLineNr(), "cpuprofile: expected a JSON object");
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            switch (field) {
                case "nodes" -> {
                    expect(p, t, JsonToken.START_ARRAY, source, "\"nodes\" is not an array");
                    while (p.nextToken() == JsonToken.START_OBJECT) {
                        nodes.readNode(p, frames, source, "cpuprofile");
                    }
                }
                case "samples" -> {
                    expect(p, t, JsonToken.START_ARRAY, source, "\"samples\" is not an array");
                    while ((t = p.nextToken()) == JsonToken.VALUE_NUMBER_INT) {
                        nodes.addSample(p.getLongValue());
                    }
                    expect(p, t, JsonToken.END_ARRAY, source, "a sample is not a whole number");
                }
                case "timeDeltas" -> {
                    expect(p, t, JsonToken.START_ARRAY, source, "\"timeDeltas\" is not an array");
                    while ((t = p.nextToken()) == JsonToken.VALUE_NUMBER_INT) {
                        nodes.addDelta(p.getLongValue());
                    }
                    expect(p, t, JsonToken.END_ARRAY, source, "a time delta is not a whole number");
                }
                default -> p.skipChildren();
            }
        }
    }

    private static void expect(JsonParser p, JsonToken got, JsonToken want, String source, String what) {
        if (got != want) {
            throw InputException.atLine(source, p.currentLocation().getLineNr(), "cpuprofile: " + what);
        }
    }
}
