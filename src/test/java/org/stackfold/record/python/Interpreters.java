package org.stackfold.record.python;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The real CPython interpreters the Python tests run: Debian's {@code /usr/bin/python3} (3.11 in
 * CI), pyenv's builds where the machine has them, and 3.14/3.15 from a Debian sid chroot where one
 * was made ({@code STACKFOLD_SID_CHROOT}, default {@code /var/tmp/stackfold-sid}; see
 * docs/python.md). Each is skipped, with the reason, where it is absent.
 */
public final class Interpreters {
    public static final Path SID = Path.of(System.getenv().getOrDefault("STACKFOLD_SID_CHROOT", "/var/tmp/stackfold-sid"));

    /** How to start one interpreter; {@code root} non-null for a chroot. */
    public record Interpreter(String label, Path python, Path root) {
        @Override
        public String toString() {
            return label;
        }

        /** Why it cannot run here, or null. */
        public String missing() {
            Path p = root == null ? python : Path.of(root + python.toString());
            if (!Files.isExecutable(p)) {
                return label + ": " + p + " is not installed";
            }
            if (root != null && !"root".equals(System.getProperty("user.name"))) {
                return label + ": a chroot needs root";
            }
            return null;
        }

        /** Starts a resource script and waits for its "ready" line. */
        public Running start(String script) throws IOException, InterruptedException {
            Path dir = root == null ? Files.createTempDirectory("sfpy") : Files.createTempDirectory(root.resolve("tmp"), "sfpy");
            Path file = dir.resolve(script);
            try (InputStream in = Interpreters.class.getResourceAsStream(script)) {
                Files.write(file, in.readAllBytes());
            }
            List<String> cmd = new ArrayList<>();
            String scriptPath = file.toString();
            if (root != null) {
                cmd.add("chroot");
                cmd.add(root.toString());
                scriptPath = scriptPath.substring(root.toString().length());
            }
            cmd.add(python.toString());
            cmd.add(scriptPath);
            Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> {
                try {
                    return out.readLine();
                } catch (IOException e) {
                    return null;
                }
            });
            String line;
            try {
                line = ready.get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                line = null;
            }
            if (!"ready".equals(line)) {
                p.destroyForcibly().waitFor();
                throw new IOException(label + ": " + script + " did not start (" + line + ")");
            }
            return new Running(p, file, dir);
        }
    }

    /** A started workload; closing kills it and removes its script. */
    public record Running(Process process, Path script, Path dir) implements AutoCloseable {
        public int pid() {
            return (int) process.pid();
        }

        @Override
        public void close() throws Exception {
            process.destroyForcibly().waitFor();
            Files.deleteIfExists(script);
            Files.deleteIfExists(dir);
        }
    }

    private Interpreters() {
    }

    /** The number of the first line of a resource script of the Python tests that contains {@code text}. */
    public static int scriptLine(String script, String text) throws IOException {
        try (InputStream in = Interpreters.class.getResourceAsStream(script)) {
            String[] lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                if (lines[i].contains(text)) {
                    return i + 1;
                }
            }
        }
        throw new AssertionError(text + " not in " + script);
    }

    public static Stream<Interpreter> all() {
        Path pyenv = Path.of("/root/.pyenv/versions");
        return Stream.of(
                new Interpreter("debian-python3", Path.of("/usr/bin/python3"), null),
                new Interpreter("pyenv-3.11.7", pyenv.resolve("3.11.7/bin/python3"), null),
                new Interpreter("pyenv-3.12.1", pyenv.resolve("3.12.1/bin/python3"), null),
                new Interpreter("pyenv-3.13.0", pyenv.resolve("3.13.0/bin/python3"), null),
                new Interpreter("sid-3.14", Path.of("/usr/bin/python3.14"), SID),
                new Interpreter("sid-3.15", Path.of("/usr/bin/python3.15"), SID));
    }
}
