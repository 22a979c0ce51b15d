package org.stackfold.format.perfdata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.stackfold.cli.Main;

/** What the perf.data oracle tests share: recording with the real perf, collapsing, comparing stacks. */
final class PerfTools {
    private PerfTools() {
    }

    static boolean onPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(d, tool))) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code perf record OPTIONS -o DIR/perf.data -- COMMAND}; skips the test where perf is missing or
     * refused (its message as the reason), fails when it does not finish in five minutes.
     */
    static Path record(Path dir, List<String> options, List<String> command) throws Exception {
        assumeThat(onPath("perf")).as("perf (linux-perf) is not installed").isTrue();
        Path data = dir.resolve("perf.data");
        List<String> cmd = new ArrayList<>(List.of("perf", "record", "-q"));
        cmd.addAll(options);
        cmd.addAll(List.of("-o", data.toString(), "--"));
        cmd.addAll(command);
        Path err = Files.createTempFile(dir, "record", ".err");
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(err.toFile()).start();
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("perf record timed out: " + cmd);
        }
        assumeThat(p.exitValue() == 0 && Files.isRegularFile(data) && Files.size(data) > 0)
                .as("perf cannot record here: " + Files.readString(err).strip()).isTrue();
        return data;
    }

    /** {@code stackfold collapse perf OPTIONS INPUT}, the folded text it wrote. */
    static String collapse(Path dir, String input, String... options) throws Exception {
        Path out = Files.createTempFile(dir, "out", ".folded");
        List<String> args = new ArrayList<>(List.of("collapse", "perf"));
        args.addAll(List.of(options));
        args.addAll(List.of(input, "-o", out.toString()));
        StringWriter err = new StringWriter();
        int code = Main.run(args.toArray(String[]::new), new java.io.ByteArrayOutputStream(), new PrintWriter(err, true));
        assertThat(code).as(err.toString()).isZero();
        return Files.readString(out);
    }

    /** Folded text as stack -> count, each stack first passed through {@code stack} (equal ones summed). */
    static Map<String, Long> stacks(String folded, UnaryOperator<String> stack) {
        Map<String, Long> m = new TreeMap<>();
        for (String line : folded.split("\n")) {
            int sp = line.lastIndexOf(' ');
            if (sp > 0) {
                m.merge(stack.apply(line.substring(0, sp)), Long.parseLong(line.substring(sp + 1)), Long::sum);
            }
        }
        return m;
    }
}
