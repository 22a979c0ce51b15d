package org.stackfold.fleet.store;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.stackfold.io.UsageException;

/**
 * A profile's labels: {@code service} and {@code host} get columns of their own (service names a
 * partition directory), the rest are kept sorted as {@code k=v,k=v} in the {@code labels} column.
 */
public record Labels(String service, String host, String others) {
    /** Names and values that are safe in a partition directory name, a Pyroscope app name and SQL. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_.-]*");
    private static final Pattern VALUE = Pattern.compile("[A-Za-z0-9_.:/-]+");

    /** Parses {@code k=v} options; {@code service} is required. */
    public static Labels parse(Iterable<String> pairs) {
        return of(map(pairs));
    }

    public static Map<String, String> map(Iterable<String> pairs) {
        Map<String, String> all = new TreeMap<>();
        for (String pair : pairs) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new UsageException("a label is NAME=VALUE, not '" + pair + "'");
            }
            String k = pair.substring(0, eq);
            String v = pair.substring(eq + 1);
            if (!NAME.matcher(k).matches()) {
                throw new UsageException("label name '" + k + "' must match " + NAME.pattern());
            }
            if (!VALUE.matcher(v).matches() || v.contains("..")) {
                throw new UsageException("label " + k + "'s value '" + v + "' must match " + VALUE.pattern());
            }
            if (all.put(k, v) != null) {
                throw new UsageException("label " + k + " given twice");
            }
        }
        return all;
    }

    public static Labels of(Map<String, String> labels) {
        Map<String, String> rest = new TreeMap<>(labels);
        String service = rest.remove("service");
        if (service == null) {
            throw new UsageException("a service label is required (--label service=NAME): it partitions the table");
        }
        String host = rest.remove("host");
        StringBuilder others = new StringBuilder();
        rest.forEach((k, v) -> others.append(others.isEmpty() ? "" : ",").append(k).append('=').append(v));
        return new Labels(service, host == null ? "" : host, others.toString());
    }
}
