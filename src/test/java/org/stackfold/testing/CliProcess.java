package org.stackfold.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs the CLI as a real process, the way a shell user does: for what only a process shows (pipes
 * and FIFOs, closed descriptors, signals, the umask, another user). {@code $SF} in the script is
 * the command that starts Stackfold with the test class path (the jar is built after the tests).
 */
public final class CliProcess {
    public record Result(int code, String out, String err) {
        public String[] errLines() {
            return err.isEmpty() ? new String[0] : err.split("\n");
        }
    }

    private CliProcess() {
    }

    public static String command() {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return java + " --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData"
                + " -Xmx512m -cp " + System.getProperty("java.class.path") + " org.stackfold.cli.Main";
    }

    /** Runs {@code script} with bash in {@code dir}; $SF is Stackfold. Gives up after two minutes. */
    public static Result bash(Path dir, String script, Map<String, String> env) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", script).directory(dir.toFile());
        pb.environment().put("SF", command());
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> readAll(p.getInputStream()));
        CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> readAll(p.getErrorStream()));
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError("hung: " + script);
        }
        return new Result(p.exitValue(), new String(out.join(), StandardCharsets.UTF_8),
                new String(err.join(), StandardCharsets.UTF_8));
    }

    public static Result bash(Path dir, String script) throws IOException, InterruptedException {
        return bash(dir, script, Map.of());
    }

    private static byte[] readAll(java.io.InputStream in) {
        try (in) {
            return in.readAllBytes();
        } catch (IOException e) {
            return new byte[0];
        }
    }
}
