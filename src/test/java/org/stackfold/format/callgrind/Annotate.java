package org.stackfold.format.callgrind;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Runs Valgrind's tools for the oracle tests; each test skips where they are not installed. */
final class Annotate {
    private static final Pattern ROW = Pattern.compile("^\\s*([\\d,]+) \\([^)]*\\)\\s+(\\S+?):(.+?)(?: \\[.*\\])?$");

    private Annotate() {
    }

    static boolean installed(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }

    /** Function name → cost of the first event, as {@code callgrind_annotate} prints it (self, or inclusive). */
    static Map<String, Long> costs(Path file, boolean inclusive) throws IOException, InterruptedException {
        String out = run(file.getParent(), "callgrind_annotate", "--threshold=100", "--inclusive=" + (inclusive ? "yes" : "no"),
                file.toString());
        Map<String, Long> costs = new HashMap<>();
        boolean table = false;
        for (String line : out.split("\n")) {
            if (line.contains("file:function")) {
                table = true;
                continue;
            }
            if (table && line.startsWith("-- ")) {
                break;
            }
            Matcher m = ROW.matcher(line);
            if (table && m.matches()) {
                // the same function may be listed under two spellings of its file: keep the first (largest)
                costs.putIfAbsent(m.group(3), Long.parseLong(m.group(1).replace(",", "")));
            }
        }
        return costs;
    }

    static String run(Path dir, String... command) throws IOException, InterruptedException {
        Path out = Files.createTempFile(dir, "out", ".txt");
        Process p = new ProcessBuilder(List.of(command)).directory(dir.toFile())
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IOException("timed out: " + String.join(" ", command));
        }
        String text = Files.readString(out, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + text);
        }
        return text;
    }

    static List<String> list(String... s) {
        return new ArrayList<>(List.of(s));
    }
}
