package org.stackfold.symbolize;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The native tools the oracle tests compare against (gcc, nm, addr2line), and the test program they build. */
final class NativeTools {
    private static Path program;

    private NativeTools() {
    }

    /** Skips the calling test, with the reason, when {@code tool} is not on the PATH. */
    static void require(String tool) {
        assumeTrue(onPath(tool), tool + " is not installed (apt-get install "
                + switch (tool) {
                    case "gcc" -> "gcc";
                    case "g++" -> "g++";
                    case "eu-addr2line" -> "elfutils";
                    case "perf" -> "linux-perf";
                    default -> "binutils";
                } + "); test skipped");
    }

    static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }

    /** inline.c built with gcc -g -O2 (once per test JVM). */
    static synchronized Path program() throws IOException {
        require("gcc");
        if (program == null) {
            Path dir = Files.createTempDirectory("stackfold-symbolize");
            Path source = dir.resolve("inline.c");
            try (InputStream in = NativeTools.class.getResourceAsStream("/symbolize/inline.c")) {
                Files.copy(in, source);
            }
            Path out = dir.resolve("inline");
            run(List.of("gcc", "-g", "-O2", "-o", out.toString(), source.toString()));
            program = out;
        }
        return program;
    }

    /** Runs a command, returns its standard output; fails on a non-zero exit. */
    static String run(List<String> command) throws IOException {
        return run(command, null);
    }

    static String run(List<String> command, String stdin) throws IOException {
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        Thread feeder = new Thread(() -> {
            try (var in = p.getOutputStream()) {
                if (stdin != null) {
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        feeder.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException(command + " failed");
            }
            feeder.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        return out;
    }

    /** One defined symbol from {@code nm -S}. */
    record NmSymbol(long address, long size, char type, String name) {
    }

    /** The defined text symbols of a file (T, t, W, w, i), as nm lists them; {@code dynamic} for -D. */
    static List<NmSymbol> nmText(Path file, boolean dynamic) throws IOException {
        require("nm");
        List<String> cmd = new ArrayList<>(List.of("nm", "-S", "--defined-only"));
        if (dynamic) {
            cmd.add("-D");
        }
        cmd.add(file.toString());
        List<NmSymbol> out = new ArrayList<>();
        for (String line : run(cmd).split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 4 && "TtWwi".indexOf(f[2].charAt(0)) >= 0) {
                out.add(new NmSymbol(Long.parseUnsignedLong(f[0], 16), Long.parseUnsignedLong(f[1], 16),
                        f[2].charAt(0), f[3]));
            } else if (f.length == 3 && "TtWwi".indexOf(f[1].charAt(0)) >= 0) {
                out.add(new NmSymbol(Long.parseUnsignedLong(f[0], 16), 0, f[1].charAt(0), f[2]));
            }
        }
        return out;
    }
}
