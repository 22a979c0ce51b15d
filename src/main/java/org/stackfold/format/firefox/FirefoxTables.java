package org.stackfold.format.firefox;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.stackfold.io.InputException;

/**
 * The tables of one Firefox profile thread (or of {@code profile.shared}) as int columns, in either
 * layout: the Gecko format's {@code {"schema": {...}, "data": [[...], ...]}} rows or the processed
 * format's {@code {"column": [...], ...}} columns. {@code null} is {@link #NONE}. Strings stay
 * indexes until the string array (which may come later in the file) is known.
 */
final class FirefoxTables {
    static final int NONE = -1;

    /** A growable int column. */
    static final class Column {
        int[] v = new int[16];
        int size;

        void add(int x) {
            if (size == v.length) {
                v = Arrays.copyOf(v, size * 2);
            }
            v[size++] = x;
        }

        int get(int i) {
            return i >= 0 && i < size ? v[i] : NONE;
        }
    }

    /** A growable double column (sample times). */
    static final class Times {
        double[] v = new double[16];
        int size;

        void add(double x) {
            if (size == v.length) {
                v = Arrays.copyOf(v, size * 2);
            }
            v[size++] = x;
        }
    }

    // stackTable
    Column stackPrefix;
    Column stackPrefixOffset;
    Column stackFrame;
    // frameTable
    Column frameFunc;
    Column frameLocation; // Gecko: a string index naming the frame ("name (file:line:col)")
    Column frameLine;
    Column frameColumn;
    // funcTable
    Column funcName;
    Column funcFile;
    Column funcSource;
    Column funcLine;
    Column funcColumn;
    // shared.sources
    Column sourceFile;
    // samples
    Column sampleStack;
    Times sampleTime;
    Times sampleDelta;
    Times sampleWeight;
    String weightType;
    boolean geckoSamples;
    // strings: a per-thread stringTable/stringArray or shared.stringArray
    List<String> strings;

    boolean hasStacks() {
        return stackFrame != null;
    }

    /** Reads a table by name into its columns; false where the name is not a table read here. */
    boolean readTable(String table, JsonParser p, JsonToken t, String source) throws IOException {
        String[] wanted = switch (table) {
            case "stackTable" -> new String[] {"prefix", "frame", "prefixOffset"};
            case "frameTable" -> new String[] {"func", "location", "line", "column"};
            case "funcTable" -> new String[] {"name", "fileName", "source", "lineNumber", "columnNumber"};
            case "sources" -> new String[] {"filename"};
            case "samples" -> new String[] {"stack"};
            default -> null;
        };
        if (wanted == null) {
            return false;
        }
        if (t != JsonToken.START_OBJECT) {
            p.skipChildren();
            return true;
        }
        Column[] cols = new Column[wanted.length];
        for (int i = 0; i < cols.length; i++) {
            cols[i] = new Column();
        }
        boolean[] seen = new boolean[wanted.length];
        int[] schema = null; // Gecko: position of each wanted column in a row
        int timeAt = -1;
        int weightAt = -1;
        Times time = null;
        Times delta = null;
        Times weight = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken v = p.nextToken();
            if (field.equals("schema") && v == JsonToken.START_OBJECT) {
                schema = new int[wanted.length];
                Arrays.fill(schema, -1);
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String col = p.currentName();
                    p.nextToken();
                    int at = p.getValueAsInt(-1);
                    for (int i = 0; i < wanted.length; i++) {
                        if (wanted[i].equals(col)) {
                            schema[i] = at;
                        }
                    }
                    if (col.equals("time")) {
                        timeAt = at;
                    } else if (col.equals("weight") && table.equals("samples")) {
                        weightAt = at;
                    }
                }
                continue;
            }
            if (field.equals("data") && v == JsonToken.START_ARRAY) {
                if (schema == null) {
                    schema = defaultSchema(table, wanted.length);
                    timeAt = table.equals("samples") ? 1 : -1;
                }
                if (timeAt >= 0) {
                    time = new Times();
                }
                if (weightAt >= 0) {
                    weight = new Times();
                }
                rows(p, schema, cols, seen, timeAt, time, weightAt, weight, source);
                continue;
            }
            if (field.equals("weightType") && table.equals("samples")) {
                weightType = v == JsonToken.VALUE_STRING ? p.getText() : null;
                continue;
            }
            if ((field.equals("time") || field.equals("timeDeltas") || field.equals("weight")) && table.equals("samples")) {
                Times times = new Times();
                if (v == JsonToken.START_ARRAY) {
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        times.add(p.currentToken().isNumeric() ? p.getDoubleValue() : 0);
                    }
                } else {
                    p.skipChildren();
                }
                if (field.equals("time")) {
                    time = times;
                } else if (field.equals("weight")) {
                    weight = v == JsonToken.START_ARRAY ? times : null;
                } else {
                    delta = times;
                }
                continue;
            }
            int i = indexOf(wanted, field);
            if (i < 0 || v != JsonToken.START_ARRAY) {
                p.skipChildren();
                continue;
            }
            seen[i] = true;
            while ((v = p.nextToken()) != JsonToken.END_ARRAY) {
                cols[i].add(intValue(p, v, source));
            }
        }
        boolean gecko = schema != null;
        switch (table) {
            case "stackTable" -> {
                stackPrefix = cols[0];
                stackFrame = cols[1];
                stackPrefixOffset = seen[2] ? cols[2] : null;
            }
            case "frameTable" -> {
                frameFunc = cols[0];
                frameLocation = gecko || seen[1] ? cols[1] : null;
                frameLine = cols[2];
                frameColumn = cols[3];
            }
            case "funcTable" -> {
                funcName = cols[0];
                funcFile = seen[1] ? cols[1] : null;
                funcSource = seen[2] ? cols[2] : null;
                funcLine = cols[3];
                funcColumn = cols[4];
            }
            case "sources" -> sourceFile = cols[0];
            default -> {
                sampleStack = cols[0];
                sampleWeight = weight;
                sampleTime = time;
                sampleDelta = delta;
                geckoSamples = gecko;
            }
        }
        return true;
    }

    /** Column positions speedscope assumes where a Gecko table has no schema. */
    private static int[] defaultSchema(String table, int n) {
        int[] s = new int[n];
        Arrays.fill(s, -1);
        switch (table) {
            case "stackTable" -> {
                s[0] = 0;
                s[1] = 1;
            }
            case "frameTable" -> s[1] = 0;
            case "samples" -> s[0] = 0;
            default -> {
            }
        }
        return s;
    }

    private static void rows(JsonParser p, int[] schema, Column[] cols, boolean[] seen, int timeAt, Times time,
                             int weightAt, Times weight, String source) throws IOException {
        JsonToken t;
        int[] row = new int[cols.length];
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            if (t != JsonToken.START_ARRAY) {
                throw InputException.atOffset(source, p.currentLocation().getByteOffset(),
                        "firefox: a table row is not an array");
            }
            Arrays.fill(row, NONE);
            double at = 0;
            double w = 1;
            int pos = 0;
            while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                if (pos == timeAt) {
                    at = t.isNumeric() ? p.getDoubleValue() : 0;
                } else if (pos == weightAt) {
                    w = t.isNumeric() ? p.getDoubleValue() : 1;
                } else {
                    for (int i = 0; i < schema.length; i++) {
                        if (schema[i] == pos) {
                            row[i] = intValue(p, t, source);
                        }
                    }
                }
                if (t == JsonToken.START_ARRAY || t == JsonToken.START_OBJECT) {
                    p.skipChildren();
                }
                pos++;
            }
            for (int i = 0; i < cols.length; i++) {
                if (schema[i] >= 0) {
                    seen[i] = true;
                    cols[i].add(row[i]);
                }
            }
            if (time != null) {
                time.add(at);
            }
            if (weight != null) {
                weight.add(w);
            }
        }
    }

    private static int intValue(JsonParser p, JsonToken t, String source) throws IOException {
        if (t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) {
            long x = p.getValueAsLong();
            if (x < Integer.MIN_VALUE || x > Integer.MAX_VALUE) {
                throw InputException.atOffset(source, p.currentLocation().getByteOffset(),
                        "firefox: a table value out of range: " + x);
            }
            return (int) x;
        }
        if (t == JsonToken.START_ARRAY || t == JsonToken.START_OBJECT) {
            p.skipChildren();
        }
        return NONE; // null, true/false, strings
    }

    private static int indexOf(String[] a, String s) {
        for (int i = 0; i < a.length; i++) {
            if (a[i].equals(s)) {
                return i;
            }
        }
        return -1;
    }

    static List<String> readStrings(JsonParser p, JsonToken t) throws IOException {
        List<String> out = new ArrayList<>();
        if (t != JsonToken.START_ARRAY) {
            p.skipChildren();
            return out;
        }
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            out.add(t == JsonToken.VALUE_STRING ? p.getText() : null);
            if (t == JsonToken.START_ARRAY || t == JsonToken.START_OBJECT) {
                p.skipChildren();
            }
        }
        return out;
    }
}
