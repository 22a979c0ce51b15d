package org.stackfold.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Without privileges, record says in one line what is missing and how to grant it, and demo falls
 * back to the bundled example. Run as root, the test drops to user nobody with setpriv.
 */
class RecordPrivilegesTest {
    @TempDir
    Path dir;

    private List<String> asNobody(String... args) throws IOException {
        // The test's class path may sit under /root, which nobody cannot read: copy it somewhere it can.
        List<String> cp = new ArrayList<>();
        int i = 0;
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path from = Path.of(entry);
            if (!Files.exists(from)) {
                continue;
            }
            Path to = dir.resolve("cp" + i++);
            if (Files.isDirectory(from)) {
                try (Stream<Path> files = Files.walk(from)) {
                    for (Path f : (Iterable<Path>) files::iterator) {
                        Path t = to.resolve(from.relativize(f).toString());
                        if (Files.isDirectory(f)) {
                            Files.createDirectories(t);
                        } else {
                            Files.copy(f, t);
                        }
                    }
                }
            } else {
                Files.copy(from, to);
            }
            cp.add(to.toString());
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(Files.isDirectory(p) ? "rwxr-xr-x" : "rw-r--r--"));
            }
        }
        List<String> command = new ArrayList<>(List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                "--inh-caps=-all", Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", String.join(java.io.File.pathSeparator, cp),
                "org.stackfold.cli.Main"));
        command.addAll(List.of(args));
        return command;
    }

    private static boolean root() throws IOException {
        return Files.readAllLines(Path.of("/proc/self/status")).stream()
                .anyMatch(l -> l.startsWith("Uid:") && l.split("\\s+")[1].equals("0"));
    }

    @Test
    void recordSaysInOneLineWhatIsMissing() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")) && root(), "needs root and setpriv to drop privileges");
        Process p = new ProcessBuilder(asNobody("record", "-d", "1")).directory(dir.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(err).isEqualTo(1);
        assertThat(out).isEmpty();
        assertThat(err.lines().toList()).singleElement().asString()
                .startsWith("stackfold: recording needs CAP_BPF and CAP_PERFMON (or root)")
                .contains("setcap cap_bpf,cap_perfmon+ep").contains("perf_event_paranoid=");
    }

    @Test
    void demoFallsBackToTheBundledExample() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")) && root(), "needs root and setpriv to drop privileges");
        Process p = new ProcessBuilder(asNobody("demo", "-o", "-")).directory(dir.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.getErrorStream().readAllBytes();
        assertThat(p.waitFor()).isZero();
        assertThat(out).startsWith("Cannot record here (recording needs CAP_BPF").contains("Example profile:");
    }
}
