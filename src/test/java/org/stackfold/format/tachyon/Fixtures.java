package org.stackfold.format.tachyon;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/** The CPython-written fixtures in src/test/resources/tachyon and a tiny JSON reader for their oracles. */
final class Fixtures {
    /** Every well-formed fixture, as resource path without ".bin". */
    static final List<String> GOOD = List.of(
            "real/a_none", "real/a_zstd", "real/a_cpu_opcodes_native",
            "edge/edge_threads", "edge/edge_threads_bigendian", "edge/edge_deep",
            "edge/edge_strings", "edge/edge_legacy_stats32");

    private static final JsonFactory JSON = new JsonFactory();

    private Fixtures() {
    }

    static byte[] bytes(String resource) {
        try (InputStream in = Fixtures.class.getResourceAsStream("/tachyon/" + resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no resource " + resource);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static TachyonFile open(String name) {
        return TachyonFile.open(name + ".bin", MemorySegment.ofArray(bytes(name + ".bin")));
    }

    static Object json(String text) {
        try (JsonParser p = JSON.createParser(text)) {
            p.nextToken();
            return value(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Object value(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        switch (t) {
            case START_ARRAY -> {
                List<Object> l = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    l.add(value(p));
                }
                return l;
            }
            case START_OBJECT -> {
                Map<String, Object> m = new LinkedHashMap<>();
                while (p.nextToken() != JsonToken.END_OBJECT) {
                    String k = p.currentName();
                    p.nextToken();
                    m.put(k, value(p));
                }
                return m;
            }
            case VALUE_STRING -> {
                return p.getText();
            }
            case VALUE_NUMBER_INT -> {
                return p.getBigIntegerValue();
            }
            case VALUE_NUMBER_FLOAT -> {
                return p.getDoubleValue();
            }
            case VALUE_TRUE -> {
                return true;
            }
            case VALUE_FALSE -> {
                return false;
            }
            case VALUE_NULL -> {
                return null;
            }
            default -> throw new IOException("unexpected " + t);
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> info(String name) {
        return (Map<String, Object>) json(new String(bytes(name + ".info.json"), StandardCharsets.UTF_8));
    }

    /** The replay oracle as one canonical line per sample. */
    @SuppressWarnings("unchecked")
    static List<String> replaySamples(String name) {
        List<String> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(new GZIPInputStream(
                Fixtures.class.getResourceAsStream("/tachyon/" + name + ".replay.jsonl.gz")), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                Map<String, Object> m = (Map<String, Object>) json(line);
                StringBuilder frames = new StringBuilder();
                for (Object fo : (List<Object>) m.get("frames")) {
                    List<Object> f = (List<Object>) fo;
                    frames.append('[').append(f.get(0)).append('|').append(f.get(1)).append('|')
                            .append(f.get(2)).append('|').append(f.get(3)).append(']');
                }
                for (Object t : (List<Object>) m.get("timestamps_us")) {
                    out.add(m.get("interpreter_id") + " " + m.get("thread_id") + " " + m.get("status") + " " + t
                            + " " + frames);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** Our decode in the same canonical form. */
    static List<String> decodeSamples(TachyonFile f) {
        List<String> out = new ArrayList<>();
        new TachyonReplay(f).run((t, status, ts, n) -> {
            StringBuilder frames = new StringBuilder();
            for (int i = t.depth() - 1; i >= 0; i--) {
                int fr = t.frame(i);
                String loc = f.frameLine(fr) == -1 ? "null" : "[" + f.frameLine(fr) + ", " + f.frameEndLine(fr)
                        + ", " + f.frameColumn(fr) + ", " + f.frameEndColumn(fr) + "]";
                int op = f.frameOpcode(fr);
                frames.append('[').append(new String(f.string(f.frameFile(fr)), StandardCharsets.UTF_8)).append('|')
                        .append(new String(f.string(f.frameFunc(fr)), StandardCharsets.UTF_8)).append('|')
                        .append(loc).append('|').append(op == 255 ? "null" : String.valueOf(op)).append(']');
            }
            for (int i = 0; i < n; i++) {
                out.add(Integer.toUnsignedString(t.interpreterId()) + " " + Long.toUnsignedString(t.threadId()) + " "
                        + status + " " + Long.toUnsignedString(ts[i]) + " " + frames);
            }
        });
        return out;
    }
}
