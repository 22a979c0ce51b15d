package org.stackfold.format;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Options for a reader or writer, by name, as the CLI collected them. Each format documents the
 * names it reads; unknown names are ignored so one set can serve a reader and a writer.
 */
public final class FormatOptions {
    private final Map<String, String> values = new LinkedHashMap<>();
    private Consumer<String> warnings = w -> System.err.println("stackfold: warning: " + org.stackfold.io.Printable.of(w));

    public static FormatOptions none() {
        return new FormatOptions();
    }

    public FormatOptions set(String name, Object value) {
        if (value != null) {
            values.put(name, String.valueOf(value));
        }
        return this;
    }

    public String get(String name, String fallback) {
        return values.getOrDefault(name, fallback);
    }

    public boolean flag(String name) {
        return Boolean.parseBoolean(values.getOrDefault(name, "false"));
    }

    public long getLong(String name, long fallback) {
        String v = values.get(name);
        return v == null ? fallback : Long.parseLong(v);
    }

    public boolean has(String name) {
        return values.containsKey(name);
    }

    /** Where readers and writers send warnings (the CLI: its error stream). */
    public FormatOptions withWarnings(Consumer<String> sink) {
        this.warnings = sink;
        return this;
    }

    public Consumer<String> warnings() {
        return warnings;
    }

    public void warn(String message) {
        warnings.accept(message);
    }

    public Map<String, String> asMap() {
        return Map.copyOf(values);
    }
}
