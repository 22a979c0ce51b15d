package org.stackfold.collapse;

import org.stackfold.perf.RustSymbols;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.Profile;

/**
 * {@code xctrace export --xpath '...time-profile...'} XML (Instruments Time Profiler), as
 * {@code inferno-collapse-xctrace} reads it: {@code trace-query-result/node/row/backtrace/frame},
 * where backtraces and frames are defined once ({@code id}, frame {@code name}) and referred to
 * later ({@code ref}). Every row with a backtrace is one sample; frames are listed leaf first;
 * partially demangled Rust names are repaired. Rows whose backtrace is replaced by
 * {@code <sentinel/>} are skipped.
 *
 * <p>Parsed with the JDK's StAX reader with DTDs and external entities off (no network, no file
 * access, no entity expansion bombs).
 */
public final class XctraceCollapser implements Collapser {
    @Override
    public String name() {
        return "xctrace";
    }

    @Override
    public boolean detect(byte[] head, int length) {
        boolean xml = false;
        boolean xctrace = false;
        for (String line : Detect.allLines(head, length)) {
            xml |= line.contains("<?xml version=\"1.0\"");
            xctrace |= line.contains("<trace-query-result");
            if (xml && xctrace) {
                return true;
            }
        }
        return false;
    }

    static XMLInputFactory secureFactory() {
        XMLInputFactory f = XMLInputFactory.newFactory();
        f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        f.setProperty(XMLInputFactory.IS_REPLACING_ENTITY_REFERENCES, true);
        f.setProperty(XMLInputFactory.IS_COALESCING, false);
        return f;
    }

    // Element kinds of the path we follow; anything else is skipped with its subtree.
    private static final int ROOT = 1;
    private static final int NODE = 2;
    private static final int ROW = 3;
    private static final int BACKTRACE = 4;
    private static final int FRAME = 5;
    private static final int OTHER = 0;

    @Override
    public Profile collapse(Input in, FormatOptions options, Consumer<String> warnings) throws IOException {
        Map<Long, String> frameNames = new HashMap<>();
        Map<Long, long[]> backtraces = new HashMap<>(); // id -> frame ids, leaf first
        Map<Long, long[]> rowsPerBacktrace = new LinkedHashMap<>(); // id -> {count}
        int[] path = new int[64];
        int depth = 0;
        boolean done = false;
        long currentBacktrace = -1;
        ArrayList<Long> currentFrames = new ArrayList<>();
        long rowBacktrace = -1;
        XMLStreamReader x = null;
        try (InputStream s = in.stream()) {
            x = secureFactory().createXMLStreamReader(s);
            while (!done && x.hasNext()) {
                int ev = x.next();
                if (ev == XMLStreamConstants.START_ELEMENT) {
                    String tag = x.getLocalName();
                    int parent = depth == 0 ? -1 : path[depth - 1];
                    int kind = OTHER;
                    if (parent == -1 && tag.equals("trace-query-result")) {
                        kind = ROOT;
                    } else if (parent == ROOT && tag.equals("node")) {
                        kind = NODE;
                    } else if (parent == NODE && tag.equals("row")) {
                        kind = ROW;
                        rowBacktrace = -1;
                    } else if (parent == ROW && tag.equals("backtrace")) {
                        String ref = x.getAttributeValue(null, "ref");
                        if (ref != null) {
                            long id = number(ref, "backtrace ref", x);
                            if (!backtraces.containsKey(id)) {
                                throw error(x, "backtrace ref " + id + " refers to no earlier backtrace");
                            }
                            rowBacktrace = id;
                            kind = OTHER; // nothing inside a reference matters
                        } else {
                            currentBacktrace = number(x.getAttributeValue(null, "id"), "backtrace id", x);
                            if (backtraces.containsKey(currentBacktrace)) {
                                throw error(x, "backtrace id " + currentBacktrace + " is defined twice");
                            }
                            currentFrames.clear();
                            kind = BACKTRACE;
                        }
                    } else if (parent == BACKTRACE && tag.equals("frame")) {
                        String ref = x.getAttributeValue(null, "ref");
                        long id;
                        if (ref != null) {
                            id = number(ref, "frame ref", x);
                            if (!frameNames.containsKey(id)) {
                                throw error(x, "frame ref " + id + " refers to no earlier frame");
                            }
                        } else {
                            id = number(x.getAttributeValue(null, "id"), "frame id", x);
                            String name = x.getAttributeValue(null, "name");
                            if (name == null) {
                                throw error(x, "frame " + id + " has no name attribute");
                            }
                            if (frameNames.putIfAbsent(id, name) != null) {
                                throw error(x, "frame id " + id + " is defined twice");
                            }
                        }
                        currentFrames.add(id);
                        kind = FRAME;
                    } else if (parent == -1) {
                        kind = OTHER; // an unknown root element: skipped
                    }
                    if (depth == path.length) {
                        path = java.util.Arrays.copyOf(path, depth * 2);
                    }
                    path[depth++] = kind;
                } else if (ev == XMLStreamConstants.END_ELEMENT) {
                    int kind = path[--depth];
                    if (kind == BACKTRACE) {
                        long[] frames = new long[currentFrames.size()];
                        for (int i = 0; i < frames.length; i++) {
                            frames[i] = currentFrames.get(i);
                        }
                        backtraces.put(currentBacktrace, frames);
                        rowBacktrace = currentBacktrace;
                    } else if (kind == ROW) {
                        if (rowBacktrace >= 0) {
                            rowsPerBacktrace.computeIfAbsent(rowBacktrace, k -> new long[1])[0]++;
                        }
                    } else if (kind == ROOT) {
                        done = true;
                    }
                }
            }
        } catch (BadXml e) {
            throw InputException.atLine(in.name(), e.line, e.getMessage());
        } catch (XMLStreamException e) {
            long line = e.getLocation() == null ? 0 : e.getLocation().getLineNumber();
            throw InputException.atLine(in.name(), line, "invalid XML: " + firstLine(e.getMessage()));
        } finally {
            if (x != null) {
                try {
                    x.close();
                } catch (XMLStreamException ignored) {
                    // closing a reader of a stream we close anyway
                }
            }
        }
        if (!done) {
            throw new InputException(in.name() + ": input ended before </trace-query-result>");
        }
        Stacks stacks = new Stacks().utf8();
        Map<Long, Integer> frameIds = new HashMap<>();
        for (var e : rowsPerBacktrace.entrySet()) {
            long[] frames = backtraces.get(e.getKey());
            stacks.clear();
            for (int i = frames.length - 1; i >= 0; i--) {
                long f = frames[i];
                stacks.pushFrame(frameIds.computeIfAbsent(f,
                        k -> stacks.frame(RustSymbols.repair(frameNames.get(k)))));
            }
            stacks.add(e.getValue()[0]);
        }
        return stacks.profile();
    }

    private static long number(String s, String what, XMLStreamReader x) {
        if (s == null) {
            throw error(x, "no " + what + " attribute");
        }
        long v = Text.parseCount(s);
        if (v < 0) {
            throw error(x, "invalid " + what + " '" + s + "'");
        }
        return v;
    }

    private static BadXml error(XMLStreamReader x, String what) {
        return new BadXml(x.getLocation().getLineNumber(), what);
    }

    /** Bad content found while reading; named with the file once caught. */
    private static final class BadXml extends RuntimeException {
        final long line;

        BadXml(long line, String what) {
            super(what, null, false, false);
            this.line = line;
        }
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "parse error";
        }
        int nl = s.indexOf('\n');
        String t = nl < 0 ? s : s.substring(nl + 1).strip();
        return t.isEmpty() ? s.strip() : t;
    }
}
