package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.testing.CliProcess;
import org.stackfold.testing.CliProcess.Result;

/**
 * What only a real process shows: inputs that are pipes, FIFOs and process substitutions (read
 * once, nothing lost), closed or full standard streams, signals during a write, the umask, and a
 * user who may not write the target. Each case failed before the fix it guards.
 */
class ProcessHardeningTest {
    @TempDir
    Path dir;

    /** 45 samples in 9 lines; the first frame is "java", which a lost byte turns into "ava". */
    private static final String FOLDED = "java;a;b 1\njava;a;c 2\njava;d 3\njava;e;f 4\njava;e;g 5\njava;h 6\n"
            + "java;i 7\njava;j 8\njava;k 9\n";

    @BeforeEach
    void files() throws IOException {
        Files.writeString(dir.resolve("p.folded"), FOLDED);
    }

    private Result bash(String script) throws Exception {
        return CliProcess.bash(dir, script, Map.of("TMPDIR", dir.resolve("tmp").toString()));
    }

    private void noTemporaryFilesLeft() throws IOException {
        try (var s = Files.walk(dir)) {
            assertThat(s.map(p -> dir.relativize(p).toString()))
                    .noneMatch(n -> n.endsWith(".tmp") || n.contains("stackfold-"));
        }
    }

    @Test
    void processSubstitutionAndDevStdinLoseNoByte() throws Exception {
        Files.createDirectories(dir.resolve("tmp"));
        Result info = bash("$SF info <(cat p.folded)");
        assertThat(info.code()).as(info.err()).isZero();
        assertThat(info.out()).contains("total samples      45");
        Result fold = bash("cat p.folded | $SF fold /dev/stdin");
        assertThat(fold.code()).as(fold.err()).isZero();
        assertThat(fold.out()).isEqualTo(FOLDED);
        Result top = bash("$SF top <(gzip -c p.folded)");
        assertThat(top.out()).contains("45 samples").doesNotContain("ava;");
    }

    @Test
    void collapseOfAProcessSubstitutionKeepsTheFirstByte() throws Exception {
        Files.createDirectories(dir.resolve("tmp"));
        Files.writeString(dir.resolve("perf.txt"), "java 1234 [000] 1.000: 1 cycles:\n\tffff1 leaf (/bin/x)\n"
                + "\tffff2 main (/bin/x)\n\n");
        Result r = bash("$SF collapse perf <(cat perf.txt)");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("java;main;leaf 1\n");
    }

    @Test
    void aNamedFifoIsReadOnceAndDoesNotHang() throws Exception {
        Files.createDirectories(dir.resolve("tmp"));
        Result r = bash("mkfifo f && (cat p.folded > f &) && $SF fold f");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo(FOLDED);
    }

    @Test
    void speedscopeThroughAPipeIsConverted() throws Exception {
        Files.createDirectories(dir.resolve("tmp"));
        Files.copy(Path.of("src/test/resources/formats/speedscope/0.1.2_simple-sampled.speedscope.json"),
                dir.resolve("s.json"));
        Result direct = bash("$SF convert s.json");
        Result piped = bash("$SF convert <(cat s.json)");
        assertThat(piped.code()).as(piped.err()).isZero();
        assertThat(piped.out()).isNotEmpty().isEqualTo(direct.out());
    }

    @Test
    void closedStandardInputIsAClearErrorNotACrash() throws Exception {
        Files.createDirectories(dir.resolve("tmp"));
        for (String cmd : new String[] {"fold -", "info -", "top -", "convert -", "flamegraph"}) {
            Result r = bash("$SF " + cmd + " <&-");
            assertThat(r.code()).as(cmd + ": " + r.err()).isEqualTo(1);
            assertThat(r.errLines()).as(cmd).hasSize(1);
            assertThat(r.err()).as(cmd).contains("standard input is closed");
        }
        noTemporaryFilesLeft();
    }

    @Test
    void standardOutputThatCannotBeWrittenIsNamed() throws Exception {
        Files.createDirectories(dir.resolve("tmp"));
        Result full = bash("$SF fold p.folded > /dev/full");
        assertThat(full.code()).isEqualTo(1);
        assertThat(full.err()).startsWith("stackfold: standard output: ").contains("No space left on device");
        Result closed = bash("$SF fold p.folded >&-");
        assertThat(closed.code()).isEqualTo(1);
        assertThat(closed.err()).startsWith("stackfold: standard output: ").contains("closed");
        Result topFull = bash("$SF top p.folded > /dev/full");
        assertThat(topFull.code()).isEqualTo(1);
        assertThat(topFull.err()).contains("standard output");
        Result fileFull = bash("$SF fold p.folded -o /dev/full");
        assertThat(fileFull.code()).isEqualTo(1);
        assertThat(fileFull.err()).contains("/dev/full: ").contains("No space left on device");
    }

    @Test
    void outputsFollowTheUmask() throws Exception {
        Files.createDirectories(dir.resolve("tmp"));
        Result r = bash("umask 077 && $SF fold p.folded -o private.folded && stat -c %a private.folded"
                + " && umask 022 && $SF fold p.folded -o shared.folded && stat -c %a shared.folded");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("600\n644\n");
    }

    @Test
    void aSignalDuringAWriteLeavesNoTemporaryFile() throws Exception {
        // flamegraph opens its output before it reads, and this stdin never ends: the temporary file
        // exists, being written, when the signal comes. set -m: background jobs keep SIGINT.
        Files.createDirectories(dir.resolve("tmp"));
        for (String signal : new String[] {"INT", "TERM", "HUP"}) {
            Result r = bash("set -m; yes 'java;a 1' | $SF flamegraph - -o out.svg & pid=$!;"
                    + " for i in $(seq 600); do ls -a | grep -q '^\\.out\\.svg\\..*\\.tmp$' && break; sleep 0.1; done;"
                    + " ls -a | grep -c '\\.tmp$'; kill -" + signal + " $pid; wait $pid; echo rc=$?; ls -a");
            assertThat(r.out()).as(signal).startsWith("1\n").contains("rc=")
                    .doesNotContain(".tmp").doesNotContain("out.svg");
        }
        noTemporaryFilesLeft();
    }

    @Test
    void aGzipBombStopsAtTheLimitAndLeavesNothing() throws Exception {
        Files.createDirectories(dir.resolve("tmp"));
        Path bomb = dir.resolve("bomb.gz");
        byte[] line = "main;a;b 1\n".getBytes(StandardCharsets.UTF_8);
        try (GZIPOutputStream gz = new GZIPOutputStream(Files.newOutputStream(bomb))) {
            for (int i = 0; i < 300_000; i++) {
                gz.write(line); // 3.3 MB of text
            }
        }
        Result r = bash("$SF info --max-input 1m bomb.gz; echo rc=$?; cat bomb.gz | $SF fold --max-input 2m - -o o; echo rc=$?");
        assertThat(r.out()).contains("rc=1\nrc=1");
        assertThat(r.err()).contains("more than 1 MiB").contains("more than 2 MiB").contains("--max-input");
        Result zero = bash("$SF info /dev/zero");
        assertThat(zero.code()).isEqualTo(1);
        assertThat(zero.err()).contains("/dev/zero").contains("binary data");
        noTemporaryFilesLeft();
    }

    @Test
    void aBadHeapSettingIsOneLine() throws Exception {
        Path launcher = Path.of("stackfold").toAbsolutePath();
        assumeThat(Files.isExecutable(launcher)).isTrue();
        Result r = CliProcess.bash(dir, launcher + " info p.folded", Map.of("STACKFOLD_HEAP", "abc"));
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.errLines()).containsExactly("stackfold: STACKFOLD_HEAP='abc' is not a heap size (e.g. 2g, 4096m)");
    }

    @Test
    void aReadOnlyTargetIsRefusedByNameForAnotherUser() throws Exception {
        Result who = CliProcess.bash(dir, "id -u; command -v setpriv");
        assumeThat(who.out()).as("root with setpriv, to run as nobody").startsWith("0\n").contains("setpriv");
        Files.createDirectories(dir.resolve("tmp"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setPosixFilePermissions(dir.resolve("tmp"), PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setPosixFilePermissions(dir.resolve("p.folded"), PosixFilePermissions.fromString("rw-r--r--"));
        Files.writeString(dir.resolve("ro.folded"), "old 1\n");
        Files.setPosixFilePermissions(dir.resolve("ro.folded"), PosixFilePermissions.fromString("r--r--r--"));
        // Another user cannot read root's Maven repository: the class path is copied where it can.
        StringBuilder cp = new StringBuilder();
        Path lib = Files.createDirectories(dir.resolve("lib"));
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path e = Path.of(entry);
            if (entry.endsWith(".jar") && (entry.contains("picocli") || entry.contains("zstd") || entry.contains("jackson-core"))) {
                cp.append(':').append(Files.copy(e, lib.resolve(e.getFileName())));
            } else if (Files.isDirectory(e) && e.endsWith("classes")) {
                Path copy = lib.resolve("classes");
                try (var files = Files.walk(e)) {
                    for (Path f : (Iterable<Path>) files::iterator) {
                        Path to = copy.resolve(e.relativize(f).toString());
                        if (Files.isDirectory(f)) {
                            Files.createDirectories(to);
                        } else {
                            Files.copy(f, to);
                        }
                    }
                }
                cp.append(':').append(copy);
            }
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Result r = bash("chmod -R a+rX " + dir + "; chmod o+rx " + dir.getParent()
                + "; setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp " + java
                + " -Xmx256m -XX:-UsePerfData -cp " + cp.substring(1) + " org.stackfold.cli.Main fold p.folded -o ro.folded");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).contains("ro.folded: permission denied").doesNotContain(".tmp");
        assertThat(Files.readString(dir.resolve("ro.folded"))).isEqualTo("old 1\n");
        noTemporaryFilesLeft();
    }

    @Test
    void runningOutOfMemoryIsOneLineWithTheHint() throws Exception {
        // 400,000 distinct frames in 300,000 lines cannot fit in a 24 MiB heap.
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 300_000; i++) {
            sb.append("root;function_number_").append(i).append(";leaf_").append(i % 100_000 + 1_000_000).append(" 1\n");
        }
        Files.writeString(dir.resolve("big.folded"), sb);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        for (String cmd : new String[] {"info", "fold", "top", "convert", "flamegraph"}) {
            Result r = bash(java + " -Xmx24m -XX:-UsePerfData -cp " + System.getProperty("java.class.path")
                    + " org.stackfold.cli.Main " + cmd + " big.folded -o out");
            if (cmd.equals("info") || cmd.equals("top")) {
                r = bash(java + " -Xmx24m -XX:-UsePerfData -cp " + System.getProperty("java.class.path")
                        + " org.stackfold.cli.Main " + cmd + " big.folded");
            }
            assertThat(r.code()).as(cmd + ": " + r.err()).isEqualTo(1);
            assertThat(r.errLines()).as(cmd + ": " + r.err()).hasSize(1);
            assertThat(r.err()).as(cmd).contains("out of memory").contains("STACKFOLD_HEAP");
        }
        noTemporaryFilesLeft();
    }

    @Test
    void aReaderThatStopsEarlyIsNoError() throws Exception {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 200_000; i++) {
            sb.append("main;function_").append(i).append(" 1\n");
        }
        Files.writeString(dir.resolve("many.folded"), sb);
        Files.createDirectories(dir.resolve("tmp"));
        for (String cmd : new String[] {"fold many.folded", "top -n 100000 many.folded"}) {
            Result r = bash("set -o pipefail; $SF " + cmd + " | head -1");
            assertThat(r.out().strip()).as(cmd).startsWith(cmd.startsWith("fold") ? "main;function_0 1" : "SELF");
            assertThat(r.err()).as(cmd).isEmpty();
        }
    }
}
