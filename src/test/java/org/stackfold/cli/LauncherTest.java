package org.stackfold.cli;

import org.stackfold.perf.PerfBytes;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.testing.CliProcess;
import org.stackfold.testing.CliProcess.Result;

/**
 * How ./stackfold starts the JVM, with a stand-in JDK whose {@code java} prints its arguments: the JIT
 * tier by input size, the AOT cache only while it is fresh and of this JDK, JVM warnings kept off
 * standard output. The real JVM with a real cache: {@link AotCacheTest}.
 */
class LauncherTest {
    @TempDir
    Path dir;

    private Path jdk;

    private static final Path PROJECT = Path.of("").toAbsolutePath();

    @BeforeEach
    void layout() throws IOException {
        Files.createDirectories(dir.resolve("scripts"));
        Files.copy(PROJECT.resolve("stackfold"), dir.resolve("stackfold"), StandardCopyOption.COPY_ATTRIBUTES);
        Files.copy(PROJECT.resolve("scripts/jdk.sh"), dir.resolve("scripts/jdk.sh"));
        jdk = dir.resolve("jdk");
        Files.createDirectories(jdk.resolve("bin"));
        Files.createDirectories(jdk.resolve("lib"));
        Files.writeString(jdk.resolve("release"), "JAVA_VERSION=\"25.0.9\"\nJAVA_RUNTIME_VERSION=\"25.0.9+1-LTS\"\n");
        Files.writeString(jdk.resolve("lib/modules"), "");
        executable(jdk.resolve("bin/java"), "#!/bin/sh\nprintf '%s\\n' \"$@\"\n");
        executable(jdk.resolve("bin/javac"), "#!/bin/sh\n");
        Path target = Files.createDirectories(dir.resolve("target"));
        Files.writeString(target.resolve("stackfold.jar"), "a jar");
        Files.writeString(target.resolve("stackfold.aot"), "a cache");
        Files.writeString(target.resolve("stackfold.aot.jdk"), jdk + " 25.0.9+1-LTS\n");
        age(jdk.resolve("lib/modules"), 300);
        age(target.resolve("stackfold.jar"), 200);
        age(target.resolve("stackfold.aot"), 100);
        Files.writeString(dir.resolve("small.folded"), "a;b 1\n");
        Files.write(dir.resolve("big.folded"), new byte[9 << 20]);
    }

    /** A sparse file of {@code size} bytes and a newline, in the test's folder: big to the launcher, nothing on disk. */
    private void sparse(String name, long size) throws IOException {
        try (var f = java.nio.channels.FileChannel.open(dir.resolve(name), java.nio.file.StandardOpenOption.CREATE_NEW,
                java.nio.file.StandardOpenOption.WRITE, java.nio.file.StandardOpenOption.SPARSE)) {
            f.write(java.nio.ByteBuffer.wrap(new byte[] {'\n'}), size);
        }
    }

    private static void executable(Path p, String script) throws IOException {
        Files.writeString(p, script);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private static void age(Path p, int secondsAgo) throws IOException {
        Files.setLastModifiedTime(p, FileTime.fromMillis(System.currentTimeMillis() - secondsAgo * 1000L));
    }

    /** The JVM's arguments as the launcher gives them. */
    private List<String> jvmArguments(String args, Map<String, String> env) throws Exception {
        Result r = CliProcess.bash(dir, "./stackfold " + args + " </dev/null", env);
        assertThat(r.code()).as(r.err()).isZero();
        return r.out().lines().toList();
    }

    private List<String> jvmArguments(String args) throws Exception {
        return jvmArguments(args, Map.of("STACKFOLD_JAVA_HOME", jdk.toString()));
    }

    @Test
    void smallInputsRunWithC1AloneAndTheRestWithC2Too() throws Exception {
        assertThat(jvmArguments("info small.folded")).contains("-XX:TieredStopAtLevel=1");
        assertThat(jvmArguments("fold small.folded small.folded -o out.folded")).contains("-XX:TieredStopAtLevel=1");
        assertThat(jvmArguments("info big.folded")).contains("-XX:TieredStopAtLevel=4");
        assertThat(jvmArguments("fold small.folded big.folded")).contains("-XX:TieredStopAtLevel=4");
        assertThat(jvmArguments("info -")).contains("-XX:TieredStopAtLevel=4");
        assertThat(jvmArguments("collapse perf")).contains("-XX:TieredStopAtLevel=1"); // perf script | ...
        assertThat(jvmArguments("collapse perf big.folded")).contains("-XX:TieredStopAtLevel=1");
        sparse("huge.txt", (1L << 30) + 1); // past 1 GiB
        assertThat(jvmArguments("collapse perf huge.txt")).contains("-XX:TieredStopAtLevel=4");
        assertThat(jvmArguments("collapse dtrace big.folded")).contains("-XX:TieredStopAtLevel=4");
        // Folded stacks (by their first line) up to 1 GiB: C1 alone; the file written is no input.
        byte[] stacks = new byte[9 << 20];
        java.util.Arrays.fill(stacks, (byte) '\n');
        System.arraycopy("main;a b 12\n".getBytes(), 0, stacks, 0, 12);
        Files.write(dir.resolve("stacks.folded"), stacks);
        Files.writeString(dir.resolve("old.svg"), "<svg/>");
        assertThat(jvmArguments("flamegraph stacks.folded -o old.svg")).contains("-XX:TieredStopAtLevel=1");
        assertThat(jvmArguments("info stacks.folded small.folded")).contains("-XX:TieredStopAtLevel=1");
        assertThat(jvmArguments("flamegraph stacks.folded old.svg")).contains("-XX:TieredStopAtLevel=4");
        assertThat(jvmArguments("info stacks.folded -")).contains("-XX:TieredStopAtLevel=4");
        Files.writeString(dir.resolve("huge.folded"), "a;b 1\n");
        try (var huge = java.nio.channels.FileChannel.open(dir.resolve("huge.folded"), java.nio.file.StandardOpenOption.WRITE)) {
            huge.write(java.nio.ByteBuffer.wrap(new byte[] {'\n'}), 1L << 30); // sparse, past 1 GiB
        }
        assertThat(jvmArguments("info huge.folded")).contains("-XX:TieredStopAtLevel=4");
        assertThat(jvmArguments("record --duration 1")).contains("-XX:TieredStopAtLevel=1");
        assertThat(jvmArguments("info small.folded", Map.of("STACKFOLD_JAVA_HOME", jdk.toString(), "STACKFOLD_TIER", "4")))
                .contains("-XX:TieredStopAtLevel=4");
    }

    @Test
    void bigInputsUnderC1AloneCompileStackfoldsOwnMethodsEarly() throws Exception {
        String scaling = "-XX:CompileCommand=CompileThresholdScaling,org.stackfold.*::*,0.1";
        sparse("perf-100mb.txt", 100L << 20);
        assertThat(jvmArguments("collapse perf perf-100mb.txt")).contains("-XX:TieredStopAtLevel=1", scaling);
        assertThat(jvmArguments("collapse perf big.folded")).contains("-XX:TieredStopAtLevel=1").doesNotContain(scaling);
        assertThat(jvmArguments("collapse perf")).doesNotContain(scaling); // standard input: size unknown
        assertThat(jvmArguments("info small.folded")).doesNotContain(scaling);
        assertThat(jvmArguments("collapse perf perf-100mb.txt", Map.of("STACKFOLD_JAVA_HOME", jdk.toString(), "STACKFOLD_TIER", "4")))
                .doesNotContain(scaling); // C2's thresholds are left alone
        // A big named perf script waits for its compiles; nothing else does.
        String wait = "-XX:-BackgroundCompilation";
        assertThat(jvmArguments("collapse perf perf-100mb.txt")).contains(wait);
        assertThat(jvmArguments("collapse perf")).doesNotContain(wait);
        assertThat(jvmArguments("collapse perf big.folded")).doesNotContain(wait);
        assertThat(jvmArguments("info perf-100mb.txt")).doesNotContain(wait);
        assertThat(jvmArguments("collapse perf perf-100mb.txt", Map.of("STACKFOLD_JAVA_HOME", jdk.toString(), "STACKFOLD_TIER", "4")))
                .doesNotContain(wait);
    }

    @Test
    void aBigPerfScriptThatOneThreadParsesRunsOnOneCpu() throws Exception {
        executable(jdk.resolve("bin/java"), "#!/bin/sh\nsed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status\n");
        sparse("perf-100mb.txt", 100L << 20);
        sparse("perf-600mb.txt", 600L << 20); // two ranges, two threads
        String free = jvmArguments("info small.folded").getFirst();
        org.junit.jupiter.api.Assumptions.assumeTrue(CliProcess.bash(dir, "command -v taskset").code() == 0,
                "taskset (util-linux) is not installed: the launcher leaves the JVM free to move");
        assertThat(jvmArguments("collapse perf perf-100mb.txt").getFirst()).matches("[0-9]+");
        assertThat(jvmArguments("collapse perf perf-600mb.txt").getFirst()).isEqualTo(free);
        assertThat(jvmArguments("collapse perf small.folded").getFirst()).isEqualTo(free);
        assertThat(jvmArguments("collapse perf").getFirst()).isEqualTo(free); // standard input: size unknown
        assertThat(jvmArguments("info perf-100mb.txt").getFirst()).isEqualTo(free);
        assertThat(jvmArguments("collapse perf perf-100mb.txt", Map.of("STACKFOLD_JAVA_HOME", jdk.toString(),
                "STACKFOLD_PIN", "no")).getFirst()).isEqualTo(free);
    }

    @Test
    void bigInputsPutTheHeapOnHugePagesWhereTheKernelOffersThem() throws Exception {
        String thp = "-XX:+UseTransparentHugePages";
        sparse("perf-100mb.txt", 100L << 20);
        // The launcher reads the kernel's mode itself; the JVM only warns where it is [never].
        Path sysfs = Path.of("/sys/kernel/mm/transparent_hugepage/enabled");
        String mode = Files.isReadable(sysfs) ? Files.readString(sysfs) : "";
        boolean offered = mode.contains("[always]") || mode.contains("[madvise]");
        assertThat(jvmArguments("collapse perf perf-100mb.txt").contains(thp)).as(mode).isEqualTo(offered);
        assertThat(jvmArguments("flamegraph perf-100mb.txt -o out.svg").contains(thp)).as(mode).isEqualTo(offered);
        assertThat(jvmArguments("collapse perf big.folded")).doesNotContain(thp);
        assertThat(jvmArguments("info small.folded")).doesNotContain(thp);
        assertThat(jvmArguments("collapse perf")).doesNotContain(thp); // standard input: size unknown
        assertThat(jvmArguments("--version")).doesNotContain(thp);
    }

    @Test
    void bigInputsMapTheCacheInPlace() throws Exception {
        String inPlace = "-XX:ArchiveRelocationMode=0";
        sparse("perf-100mb.txt", 100L << 20);
        List<String> args = jvmArguments("collapse perf perf-100mb.txt");
        assertThat(args).contains(inPlace);
        assertThat(args.indexOf("-XX:+UnlockDiagnosticVMOptions")).isBetween(0, args.indexOf(inPlace)); // a diagnostic switch
        assertThat(jvmArguments("info perf-100mb.txt", Map.of("STACKFOLD_JAVA_HOME", jdk.toString(), "STACKFOLD_TIER", "4")))
                .contains(inPlace);
        assertThat(jvmArguments("info small.folded")).doesNotContain(inPlace); // wall time counts there
        assertThat(jvmArguments("collapse perf")).doesNotContain(inPlace);
        Files.delete(dir.resolve("target/stackfold.aot")); // no cache, nothing to map
        assertThat(jvmArguments("collapse perf perf-100mb.txt")).doesNotContain(inPlace);
    }

    @Test
    void collapsePerfUnderC1InlinesTheLineCache() throws Exception {
        String hint = "-XX:CompileCommand=inline,org.stackfold.collapse.perf.LineCache::*";
        assertThat(jvmArguments("collapse perf big.folded")).contains("-XX:TieredStopAtLevel=1", hint);
        assertThat(jvmArguments("collapse perf")).contains(hint); // perf script | stackfold collapse perf
        assertThat(jvmArguments("collapse perf big.folded")) // the cold paths' comparison stays a call
                .contains("-XX:CompileCommand=dontinline,org.stackfold.collapse.perf.PerfBytes::same");
        assertThat(jvmArguments("info small.folded")).doesNotContain(hint);
        assertThat(jvmArguments("collapse perf big.folded", Map.of("STACKFOLD_JAVA_HOME", jdk.toString(), "STACKFOLD_TIER", "4")))
                .doesNotContain(hint);
    }

    @Test
    void helpAndTheVersionRunWithC1Alone() throws Exception {
        for (String args : List.of("", "--version", "-V", "--help", "help info", "info --help", "flamegraph -h")) {
            assertThat(jvmArguments(args)).as(args).contains("-XX:TieredStopAtLevel=1");
        }
        assertThat(jvmArguments("flamegraph")).contains("-XX:TieredStopAtLevel=4"); // reads standard input
    }

    @Test
    void c1AloneDoesNotReplayTheTrainingsProfiles() throws Exception {
        assertThat(jvmArguments("info small.folded")).containsSubsequence("-XX:AOTCache=" + dir.resolve("target/stackfold.aot"),
                "-XX:+UnlockDiagnosticVMOptions", "-XX:-AOTReplayTraining", "-XX:TieredStopAtLevel=1");
        assertThat(jvmArguments("info big.folded")).doesNotContain("-XX:-AOTReplayTraining");
        assertThat(jvmArguments("info small.folded")).contains("-XX:Tier3InvocationThreshold=1000");
        assertThat(jvmArguments("info big.folded")).noneMatch(a -> a.startsWith("-XX:Tier3"));
        assertThat(jvmArguments("info small.folded", Map.of("STACKFOLD_JAVA_HOME", jdk.toString(), "STACKFOLD_TIER", "4")))
                .doesNotContain("-XX:-AOTReplayTraining");
        Files.writeString(jdk.resolve("release"), "JAVA_VERSION=\"26.0.1\"\nJAVA_RUNTIME_VERSION=\"25.0.9+1-LTS\"\n");
        assertThat(jvmArguments("info small.folded")).contains("-XX:AOTCache=" + dir.resolve("target/stackfold.aot"))
                .doesNotContain("-XX:-AOTReplayTraining"); // a JDK 25 option: another JDK may not know it
        age(dir.resolve("target/stackfold.jar"), 50); // no cache used: nothing to replay
        assertThat(jvmArguments("info small.folded")).doesNotContain("-XX:-AOTReplayTraining");
    }

    @Test
    void theArgumentsReachTheJarUnchanged() throws Exception {
        List<String> args = jvmArguments("info 'a b' small.folded");
        assertThat(args.subList(args.indexOf("-cp"), args.size())).containsExactly("-cp",
                dir.resolve("target/stackfold.jar").toString(), "org.stackfold.cli.Main", "info", "a b", "small.folded");
    }

    @Test
    void jvmOptionsFromTheEnvironmentPassUnglobbed() throws Exception {
        List<String> args = jvmArguments("info small.folded", Map.of("STACKFOLD_JAVA_HOME", jdk.toString(),
                "STACKFOLD_JAVA_OPTS", "-Xlog:gc*:file=gc.log -Xss2m"));
        assertThat(args).contains("-Xlog:gc*:file=gc.log", "-Xss2m");
        assertThat(args.indexOf("-Xss2m")).isLessThan(args.indexOf("-cp"));
    }

    @Test
    void jvmWarningsGoToStderrAndCacheMessagesNowhere() throws Exception {
        List<String> args = jvmArguments("info small.folded");
        assertThat(args).contains("-Xlog:disable", "-Xlog:all=warning,aot*=off,cds*=off:stderr");
        assertThat(args.indexOf("-Xlog:disable")).isLessThan(args.indexOf("-cp"));
    }

    @Test
    void aFamilysOwnCacheIsUsedForItsCommandsWhileFreshElseTheCacheOfEveryCommand() throws Exception {
        String every = "-XX:AOTCache=" + dir.resolve("target/stackfold.aot");
        String folded = "-XX:AOTCache=" + dir.resolve("target/stackfold-folded.aot");
        Files.writeString(dir.resolve("target/stackfold-folded.aot"), "a smaller cache");
        Files.writeString(dir.resolve("target/stackfold-folded.aot.jdk"), jdk + " 25.0.9+1-LTS\n");
        age(dir.resolve("target/stackfold-folded.aot"), 100);
        for (String command : List.of("info", "fold", "top", "flamegraph", "diff small.folded")) {
            assertThat(jvmArguments(command + " small.folded")).as(command).contains(folded).doesNotContain(every);
        }
        assertThat(jvmArguments("convert small.folded")).contains(every).doesNotContain(folded);
        assertThat(jvmArguments("collapse perf small.folded")).contains(every); // no collapse cache here
        assertThat(jvmArguments("info --help")).contains(every); // help is trained in the cache of every command

        age(dir.resolve("target/stackfold-folded.aot"), 250); // older than the jar: a stale family cache
        assertThat(jvmArguments("info small.folded")).contains(every).doesNotContain(folded);
        age(dir.resolve("target/stackfold-folded.aot"), 100);
        Files.writeString(dir.resolve("target/stackfold-folded.aot.jdk"), jdk + " 25.0.8+2-LTS\n"); // another JDK's
        assertThat(jvmArguments("info small.folded")).contains(every).doesNotContain(folded);
        Files.delete(dir.resolve("target/stackfold-folded.aot.jdk"));
        assertThat(jvmArguments("info small.folded")).contains(every).doesNotContain(folded);
    }

    @Test
    void theCacheIsUsedWhileFreshAndOfThisJdk() throws Exception {
        String cache = "-XX:AOTCache=" + dir.resolve("target/stackfold.aot");
        assertThat(jvmArguments("info small.folded")).contains(cache);

        age(dir.resolve("target/stackfold.jar"), 50); // rebuilt after the cache
        assertThat(jvmArguments("info small.folded")).noneMatch(a -> a.startsWith("-XX:AOTCache"));
        age(dir.resolve("target/stackfold.jar"), 200);

        age(jdk.resolve("lib/modules"), 10); // the JDK updated in place after the cache
        assertThat(jvmArguments("info small.folded")).noneMatch(a -> a.startsWith("-XX:AOTCache"));
        age(jdk.resolve("lib/modules"), 300);

        Files.writeString(dir.resolve("target/stackfold.aot.jdk"), jdk + " 25.0.8+2-LTS\n"); // made by another build
        assertThat(jvmArguments("info small.folded")).noneMatch(a -> a.startsWith("-XX:AOTCache"));

        Files.delete(dir.resolve("target/stackfold.aot.jdk"));
        assertThat(jvmArguments("info small.folded")).noneMatch(a -> a.startsWith("-XX:AOTCache"));
    }

    @Test
    void aChangedOrDeletedSourceRebuildsTheJarAndItsCache() throws Exception {
        Path sources = Files.createDirectories(dir.resolve("src/main/java"));
        Files.writeString(sources.resolve("Old.java"), "class Old {}");
        Files.writeString(dir.resolve("pom.xml"), "<project/>");
        for (Path p : List.of(sources.resolve("Old.java"), sources, dir.resolve("src/main"), dir.resolve("pom.xml"))) {
            age(p, 300);
        }
        // A stand-in Maven that records its arguments and "builds" the jar and its cache.
        Path bin = Files.createDirectories(dir.resolve("bin"));
        executable(bin.resolve("mvn"), "#!/bin/sh\necho \"$@\" >> mvn.args\ncat >> mvn.stdin\ntouch target/stackfold.jar\n"
                + "touch -d @$(($(date +%s) + 1)) target/stackfold.aot\n");
        Map<String, String> env = Map.of("STACKFOLD_JAVA_HOME", jdk.toString(), "PATH", bin + ":" + System.getenv("PATH"));

        assertThat(jvmArguments("info small.folded", env)).contains("-XX:AOTCache=" + dir.resolve("target/stackfold.aot"));
        assertThat(dir.resolve("mvn.args")).doesNotExist();

        Files.writeString(sources.resolve("New.java"), "class New {}");
        assertThat(jvmArguments("info small.folded", env)).contains("-XX:AOTCache=" + dir.resolve("target/stackfold.aot"));
        assertThat(dir.resolve("mvn.args")).content().contains("clean package");

        age(dir.resolve("target/stackfold.jar"), 100);
        age(dir.resolve("target/stackfold.aot"), 50);
        Files.delete(dir.resolve("mvn.args"));
        Files.delete(sources.resolve("Old.java"));
        jvmArguments("info small.folded", env);
        assertThat(dir.resolve("mvn.args")).content().contains("clean package");

        // A profile piped to a command that rebuilds first goes to the command, not to the build.
        Files.writeString(sources.resolve("Newer.java"), "class Newer {}");
        Files.delete(dir.resolve("mvn.args"));
        Result piped = CliProcess.bash(dir, "printf 'piped;stack 1\\n' | ./stackfold info -", env);
        assertThat(piped.code()).as(piped.err()).isZero();
        assertThat(dir.resolve("mvn.args")).content().contains("clean package");
        assertThat(dir.resolve("mvn.stdin")).isEmptyFile();
    }

    @Test
    void aReleaseRunsItsOwnRuntimeJarAndCachesWhereverItIsUnpacked() throws Exception {
        // scripts/release's layout: bin/stackfold, lib/ (jar, caches, jdk.sh, natives), runtime/ (jlink).
        // Its caches name the runtime "bundled", not by path: they were made in the build's folder.
        Path rel = dir.resolve("opt/stackfold-1.0");
        Files.createDirectories(rel.resolve("bin"));
        Files.createDirectories(rel.resolve("lib"));
        Files.copy(PROJECT.resolve("stackfold"), rel.resolve("bin/stackfold"), StandardCopyOption.COPY_ATTRIBUTES);
        Files.copy(PROJECT.resolve("scripts/jdk.sh"), rel.resolve("lib/jdk.sh"));
        Path runtime = rel.resolve("runtime");
        Files.createDirectories(runtime.resolve("bin"));
        Files.createDirectories(runtime.resolve("lib"));
        Files.writeString(runtime.resolve("release"), "JAVA_VERSION=\"25.0.9\"\nJAVA_RUNTIME_VERSION=\"25.0.9+1-LTS\"\n");
        Files.writeString(runtime.resolve("lib/modules"), "");
        executable(runtime.resolve("bin/java"), "#!/bin/sh\nprintf '%s\\n' \"$@\"\n");
        Files.writeString(rel.resolve("lib/stackfold.jar"), "a jar");
        Files.writeString(rel.resolve("lib/stackfold-folded.aot"), "a cache");
        Files.writeString(rel.resolve("lib/stackfold-folded.aot.jdk"), "bundled 25.0.9+1-LTS\n");
        Files.writeString(rel.resolve("lib/stackfold.aot"), "a cache");
        Files.writeString(rel.resolve("lib/stackfold.aot.jdk"), "/build/stackfold-1.0/runtime 25.0.9+1-LTS\n");
        age(runtime.resolve("lib/modules"), 300);
        age(rel.resolve("lib/stackfold.jar"), 200);
        age(rel.resolve("lib/stackfold-folded.aot"), 100);
        age(rel.resolve("lib/stackfold.aot"), 100);
        // Linked from elsewhere, as /usr/bin/stackfold is; no JDK, no Maven, no sources: nothing is built.
        Files.createSymbolicLink(dir.resolve("stackfold-link"), rel.resolve("bin/stackfold"));
        Map<String, String> env = Map.of("JAVA_HOME", "/nonexistent", "PATH", "/usr/bin:/bin");
        Result r = CliProcess.bash(dir, "./stackfold-link info small.folded </dev/null", env);
        assertThat(r.code()).as(r.err()).isZero();
        List<String> args = r.out().lines().toList();
        assertThat(args).contains("-Djava.library.path=" + rel.resolve("lib"),
                "-XX:AOTCache=" + rel.resolve("lib/stackfold-folded.aot"), "-cp", rel.resolve("lib/stackfold.jar").toString(),
                "org.stackfold.cli.Main", "info");
        // A cache named by a path (a development build's) is not the bundled runtime's: not used.
        Result version = CliProcess.bash(dir, "./stackfold-link --version </dev/null", env);
        assertThat(version.code()).as(version.err()).isZero();
        assertThat(version.out()).doesNotContain("-XX:AOTCache");
        assertThat(dir.resolve("target.build.log")).doesNotExist();
    }
}
